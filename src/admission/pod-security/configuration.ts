import { fieldErrorString, type FieldError } from '../../machinery/errors.js';
import { isDns1123Label, isDns1123Subdomain } from '../../machinery/name-validation.js';
import { parseLevel, parseVersion, type Policy } from './api.js';

/**
 * The PodSecurity plugin's configuration: a PodSecurityConfiguration of
 * pod-security.admission.config.k8s.io (v1, v1beta1, v1alpha1) with the
 * defaults for namespaces without labels and the exemptions. Absent, every
 * default is privileged:latest and nothing is exempt.
 */

export const CONFIGURATION_GROUP = 'pod-security.admission.config.k8s.io';
const VERSIONS = ['v1', 'v1beta1', 'v1alpha1'];

export interface PodSecurityConfiguration {
  defaults: Policy;
  exemptions: { usernames: string[]; runtimeClasses: string[]; namespaces: string[] };
}

interface RawConfiguration {
  apiVersion?: unknown;
  kind?: unknown;
  defaults?: Record<string, unknown>;
  exemptions?: Record<string, unknown>;
}

function stringField(obj: Record<string, unknown> | undefined, key: string, fallback: string): string {
  const value = obj?.[key];
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value !== 'string') throw new Error(`PodSecurityConfiguration: ${key} must be a string`);
  return value;
}

function stringList(obj: Record<string, unknown> | undefined, key: string): string[] {
  const value = obj?.[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((s) => typeof s !== 'string')) throw new Error(`PodSecurityConfiguration: exemptions.${key} must be a list of strings`);
  return value as string[];
}

/** Reads, defaults and validates the configuration; throws with kube's wording when it is wrong. */
export function loadPodSecurityConfiguration(raw: unknown): PodSecurityConfiguration {
  const cfg = (raw ?? {}) as RawConfiguration;
  if (typeof cfg !== 'object' || Array.isArray(cfg)) throw new Error('PodSecurityConfiguration: expected an object');
  if (raw !== undefined && raw !== null) {
    const [group, version] = String(cfg.apiVersion ?? '').split('/');
    if (group !== CONFIGURATION_GROUP || !VERSIONS.includes(version ?? '') || cfg.kind !== 'PodSecurityConfiguration') {
      throw new Error(`expected PodSecurityConfiguration of ${CONFIGURATION_GROUP}/v1, got ${String(cfg.kind)} of ${String(cfg.apiVersion)}`);
    }
  }
  const d = cfg.defaults;
  const levels = {
    enforce: stringField(d, 'enforce', 'privileged'),
    enforceVersion: stringField(d, 'enforce-version', 'latest'),
    audit: stringField(d, 'audit', 'privileged'),
    auditVersion: stringField(d, 'audit-version', 'latest'),
    warn: stringField(d, 'warn', 'privileged'),
    warnVersion: stringField(d, 'warn-version', 'latest'),
  };
  const exemptions = {
    usernames: stringList(cfg.exemptions, 'usernames'),
    runtimeClasses: stringList(cfg.exemptions, 'runtimeClasses'),
    namespaces: stringList(cfg.exemptions, 'namespaces'),
  };
  // kube's plugin turns the defaults into a policy first (CompleteConfiguration), then validates the whole.
  const policyErrors = defaultsErrors(levels);
  if (policyErrors.length > 0) throw new Error(`PodSecurity configuration error: ${policyErrors.length === 1 ? policyErrors[0] : `[${policyErrors.join(', ')}]`}`);
  const errors = validateExemptions(exemptions);
  if (errors.length > 0) {
    const parts = errors.map(fieldErrorString);
    throw new Error(`PodSecurity invalid: ${parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`}`);
  }
  return {
    defaults: {
      enforce: { level: parseLevel(levels.enforce).level, version: parseVersion(levels.enforceVersion).version },
      audit: { level: parseLevel(levels.audit).level, version: parseVersion(levels.auditVersion).version },
      warn: { level: parseLevel(levels.warn).level, version: parseVersion(levels.warnVersion).version },
    },
    exemptions,
  };
}

/** admissionapi.ToPolicy's errors: `Enforce.Level: must be one of ...`. */
function defaultsErrors(levels: Record<'enforce' | 'enforceVersion' | 'audit' | 'auditVersion' | 'warn' | 'warnVersion', string>): string[] {
  const errs: string[] = [];
  const modes = [['Enforce', levels.enforce, levels.enforceVersion], ['Audit', levels.audit, levels.auditVersion], ['Warn', levels.warn, levels.warnVersion]] as const;
  for (const [mode, level, version] of modes) {
    const levelError = parseLevel(level).error;
    if (levelError) errs.push(`${mode}.Level: ${levelError}`);
    const versionError = parseVersion(version).error;
    if (versionError) errs.push(`${mode}.Version: ${versionError}`);
  }
  return errs;
}

/** ValidatePodSecurityConfiguration's exemption rules (the defaults were checked by defaultsErrors). */
function validateExemptions(exemptions: PodSecurityConfiguration['exemptions']): FieldError[] {
  const errs: FieldError[] = [];
  const names = (key: 'namespaces' | 'runtimeClasses', check: (s: string) => string[]): void => {
    const seen = new Set<string>();
    exemptions[key].forEach((name, i) => {
      const field = `exemptions.${key}[${i}]`;
      const problems = check(name);
      if (problems.length > 0) errs.push({ type: 'FieldValueInvalid', field, value: name, detail: problems.join(', ') });
      else if (seen.has(name)) errs.push({ type: 'FieldValueDuplicate', field, value: name });
      else seen.add(name);
    });
  };
  names('namespaces', isDns1123Label);
  names('runtimeClasses', isDns1123Subdomain);
  const users = new Set<string>();
  exemptions.usernames.forEach((name, i) => {
    const field = `exemptions.usernames[${i}]`;
    if (name === '') errs.push({ type: 'FieldValueRequired', field });
    else if (users.has(name)) errs.push({ type: 'FieldValueDuplicate', field, value: name });
    else users.add(name);
  });
  return errs;
}
