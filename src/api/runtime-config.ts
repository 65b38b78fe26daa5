/**
 * Parsing of kube-apiserver's `--runtime-config` flag: a comma-separated list
 * of `<key>[=<value>]`, where the key is one of the matchers `api/all`,
 * `api/ga`, `api/beta`, `api/alpha`, a `<group>/<version>`, or a
 * `<group>/<version>/<resource>`. A missing value means true.
 *
 * This module only parses; checking keys against the known groups happens
 * when a catalog applies the entries (see ApiCatalog), because that needs the
 * catalog.
 */

export type RuntimeConfigMatcher = 'api/all' | 'api/ga' | 'api/beta' | 'api/alpha';

export const RUNTIME_CONFIG_MATCHERS: readonly RuntimeConfigMatcher[] = ['api/all', 'api/ga', 'api/beta', 'api/alpha'];

export type RuntimeConfigEntry =
  | { kind: 'matcher'; key: RuntimeConfigMatcher; enabled: boolean }
  | { kind: 'groupVersion'; key: string; group: string; version: string; enabled: boolean }
  | { kind: 'resource'; key: string; group: string; version: string; resource: string; enabled: boolean };

export class RuntimeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RuntimeConfigError';
  }
}

function parseValue(key: string, raw: string | undefined): boolean {
  if (raw === undefined || raw === '') return true;
  // strconv.ParseBool's accepted spellings, which kube uses for these values.
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(raw)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(raw)) return false;
  throw new RuntimeConfigError(`invalid value of ${key}: ${raw}, must be true or false`);
}

/** Parses one key/value pair. */
export function parseRuntimeConfigEntry(key: string, value?: string): RuntimeConfigEntry {
  const k = key.trim();
  const enabled = parseValue(k, value?.trim());
  if ((RUNTIME_CONFIG_MATCHERS as readonly string[]).includes(k)) {
    return { kind: 'matcher', key: k as RuntimeConfigMatcher, enabled };
  }
  // The legacy group has no name; kube-apiserver users write it as api/v1 (or /v1).
  const normalized = k === 'api/v1' ? '/v1' : k.startsWith('api/v1/') ? '/v1/' + k.slice('api/v1/'.length) : k;
  const tokens = normalized.split('/');
  if (tokens.length < 2 || tokens.length > 3 || tokens[1] === '') {
    throw new RuntimeConfigError(`runtime-config invalid key ${k}`);
  }
  const group = tokens[0] as string;
  const version = tokens[1] as string;
  if (tokens.length === 2) return { kind: 'groupVersion', key: k, group, version, enabled };
  const resource = tokens[2] as string;
  if (resource === '' || resource.toLowerCase() !== resource) {
    throw new RuntimeConfigError(
      `invalid key ${k}: group/version/resource and resource is always lowercase plural, not ${JSON.stringify(resource)}`,
    );
  }
  return { kind: 'resource', key: k, group, version, resource, enabled };
}

/**
 * Parses the flag's value(s). Accepts the comma-separated string of one flag,
 * several such strings (repeated flags), or a key → value map.
 */
export function parseRuntimeConfig(spec: string | readonly string[] | Readonly<Record<string, string>>): RuntimeConfigEntry[] {
  if (typeof spec === 'string' || Array.isArray(spec)) {
    const parts = (typeof spec === 'string' ? [spec] : (spec as readonly string[]))
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter((s) => s !== '');
    return parts.map((part) => {
      const eq = part.indexOf('=');
      return eq < 0 ? parseRuntimeConfigEntry(part) : parseRuntimeConfigEntry(part.slice(0, eq), part.slice(eq + 1));
    });
  }
  return Object.entries(spec as Readonly<Record<string, string>>).map(([k, v]) => parseRuntimeConfigEntry(k, v));
}
