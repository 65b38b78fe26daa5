import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { decode } from '../codec/codec.js';
import { YAML_TYPE } from '../codec/media-type.js';

/**
 * --admission-control-config-file, as kube's admission.ReadAdmissionConfiguration
 * reads it: an AdmissionConfiguration (apiserver.config.k8s.io/v1 or v1alpha1,
 * or the legacy apiserver.k8s.io/v1alpha1; YAML or JSON) whose `plugins[]`
 * give each plugin its configuration inline (`configuration`) or in a file
 * (`path`, relative to the configuration file's directory). A file of the
 * two legacy shapes (an `imagePolicy` or `podNodeSelectorPluginConfig`
 * document) configures ImagePolicyWebhook and PodNodeSelector as a whole.
 */

export class AdmissionConfigError extends Error {}

const ADMISSION_CONFIGURATION_VERSIONS = ['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1alpha1', 'apiserver.k8s.io/v1alpha1'];
const LEGACY_UNVERSIONED_PLUGINS = ['ImagePolicyWebhook', 'PodNodeSelector'];

interface PluginEntry {
  name: string;
  path: string;
  configuration: unknown;
}

/** A decode failure of the file that kube tolerates for the legacy shapes (missing kind or version, type not registered). */
class TypeMetaError extends Error {}

/**
 * The configuration of each named plugin that the file configures (plugins
 * it does not name are absent). Errors carry kube's texts, prefixed as
 * kube-apiserver's admission options prefix them.
 */
export function readAdmissionConfiguration(pluginNames: readonly string[], configFile: string | undefined): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (!configFile) return out;
  let data: Buffer;
  try {
    data = readFileSync(configFile);
  } catch (err) {
    throw new AdmissionConfigError(`failed to read plugin config: unable to read admission control configuration from "${configFile}" [${goFileError(err, configFile)}]`);
  }
  let entries: PluginEntry[];
  try {
    entries = decodeAdmissionConfiguration(data, dirname(configFile));
  } catch (err) {
    if (!(err instanceof TypeMetaError) || !isLegacyPluginConfig(data)) throw new AdmissionConfigError(`failed to read plugin config: ${(err as Error).message}`);
    entries = pluginNames.filter((n) => LEGACY_UNVERSIONED_PLUGINS.includes(n)).map((name) => ({ name, path: configFile, configuration: undefined }));
  }
  for (const name of pluginNames) {
    // kube's configProvider.ConfigFor: the first entry of that name.
    const entry = entries.find((e) => e.name === name);
    if (!entry) continue;
    if (entry.configuration !== undefined && entry.configuration !== null) out.set(name, entry.configuration);
    else if (entry.path) out.set(name, readPluginFile(name, entry.path));
  }
  return out;
}

function decodeAdmissionConfiguration(data: Buffer, baseDir: string): PluginEntry[] {
  const doc = decodeDocument(data);
  const raw = data.toString('utf8');
  const obj = (doc && typeof doc === 'object' && !Array.isArray(doc) ? doc : {}) as { apiVersion?: unknown; kind?: unknown; plugins?: unknown };
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  // The JSON serializer's checks, in its order.
  if (!kind) throw new TypeMetaError(`Object 'Kind' is missing in '${raw}'`);
  if (!apiVersion) throw new TypeMetaError(`Object 'apiVersion' is missing in '${raw}'`);
  if (kind !== 'AdmissionConfiguration' || !ADMISSION_CONFIGURATION_VERSIONS.includes(apiVersion)) {
    throw new TypeMetaError(`no kind "${kind}" is registered for version "${apiVersion}"`);
  }
  const plugins = obj.plugins;
  if (plugins !== undefined && plugins !== null && !Array.isArray(plugins)) {
    throw new Error(`json: cannot unmarshal ${goJsonType(plugins)} into Go struct field AdmissionConfiguration.plugins of type []${goPackage(apiVersion)}.AdmissionPluginConfiguration`);
  }
  return ((plugins ?? []) as unknown[]).map((item) => {
    const p = (item && typeof item === 'object' ? item : {}) as { name?: unknown; path?: unknown; configuration?: unknown };
    for (const field of ['name', 'path'] as const) {
      if (p[field] !== undefined && p[field] !== null && typeof p[field] !== 'string') {
        throw new Error(`json: cannot unmarshal ${goJsonType(p[field])} into Go struct field AdmissionPluginConfiguration.plugins.${field} of type string`);
      }
    }
    const path = typeof p.path === 'string' ? p.path : '';
    // Relative paths are taken from the configuration file's directory (kube's makeAbs).
    return { name: typeof p.name === 'string' ? p.name : '', path: path && !isAbsolute(path) ? join(baseDir, path) : path, configuration: p.configuration };
  });
}

/** A plugin's own file (`path`): its document, decoded as the plugin's configuration. */
function readPluginFile(name: string, path: string): unknown {
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch (err) {
    // kube exits here (klog.Fatalf) with the open error.
    throw new AdmissionConfigError(`Couldn't open admission plugin configuration ${path}: ${goFileError(err, path)}`);
  }
  try {
    return decodeDocument(data);
  } catch (err) {
    throw new AdmissionConfigError(`couldn't init admission plugin "${name}": ${(err as Error).message}`);
  }
}

function decodeDocument(data: Buffer): unknown {
  return decode(data, YAML_TYPE);
}

/** Whether the file is one of the two legacy, unversioned plugin configurations. */
function isLegacyPluginConfig(data: Buffer): boolean {
  try {
    const doc = decodeDocument(data);
    return !!doc && typeof doc === 'object' && ('imagePolicy' in doc || 'podNodeSelectorPluginConfig' in doc);
  } catch {
    return false;
  }
}

/** Go's *PathError text for a failed open. */
function goFileError(err: unknown, path: string): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT') return `open ${path}: no such file or directory`;
  if (code === 'EACCES') return `open ${path}: permission denied`;
  if (code === 'EISDIR') return `read ${path}: is a directory`;
  return `open ${path}: ${(err as Error)?.message ?? String(err)}`;
}

/** The Go package of the version's types (v1, v1alpha1). */
function goPackage(apiVersion: string): string {
  return apiVersion.slice(apiVersion.indexOf('/') + 1);
}

/** encoding/json's name of a JSON value's type in an UnmarshalTypeError. */
function goJsonType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'array';
  return 'object';
}
