import { readFileSync } from 'node:fs';
import type { UserInfo } from '../machinery/context.js';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer, NonResourceRule, ResourceRule, RulesResult } from './authorizer.js';

/**
 * kube's ABAC authorizer (pkg/auth/authorizer/abac): `--authorization-policy-file`
 * holds one Policy a line (blank lines and `#` comments skipped), read once
 * at start; a request is allowed when any policy matches its subject, verb
 * (read-only requests always; others unless `readonly`) and resource or
 * path, `*` matching anything.
 */

export interface AbacPolicySpec {
  user: string;
  group: string;
  readonly: boolean;
  apiGroup: string;
  resource: string;
  namespace: string;
  nonResourcePath: string;
}

/** A policy file that does not load (the server does not start). */
export class PolicyFileError extends Error {}

/** kube's apiVersion for ABAC policies; SPEC.md writes the same group under its own domain, which is accepted too. */
const API_VERSIONS = ['abac.authorization.kubernetes.io/v1beta1', 'abac.authorization.k8s.io/v1beta1'];

/**
 * The policies of a file; `onUnversioned` hears of a file with unversioned
 * (v0) lines, which are converted as kube converts them.
 */
export function loadPolicyFile(path: string, onUnversioned?: (message: string) => void): AbacPolicySpec[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new PolicyFileError((err as Error).message);
  }
  const out: AbacPolicySpec[] = [];
  let unversioned = 0;
  text.split('\n').forEach((line, i) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const fail = (why: string): never => {
      throw new PolicyFileError(`error reading policy file ${path}, line ${i + 1}: ${line}: ${why}`);
    };
    let doc: unknown;
    try {
      doc = JSON.parse(line);
    } catch (err) {
      fail(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
    }
    const p = (doc && typeof doc === 'object' ? doc : {}) as { apiVersion?: unknown; kind?: unknown; spec?: unknown };
    if (!p.apiVersion || !p.kind) {
      unversioned++;
      out.push(fromV0(p as Record<string, unknown>));
      return;
    }
    if (p.kind !== 'Policy' || !API_VERSIONS.includes(String(p.apiVersion))) fail(`no kind "${String(p.kind)}" is registered for version "${String(p.apiVersion)}"`);
    const s = (p.spec && typeof p.spec === 'object' ? p.spec : {}) as Record<string, unknown>;
    const str = (k: string): string => (typeof s[k] === 'string' ? (s[k] as string) : '');
    out.push({ user: str('user'), group: str('group'), readonly: s.readonly === true, apiGroup: str('apiGroup'), resource: str('resource'), namespace: str('namespace'), nonResourcePath: str('nonResourcePath') });
  });
  if (unversioned > 0) onUnversioned?.(`Policy file ${path} contained unversioned rules. See docs/admin/authorization.md#abac-mode for ABAC file format details.`);
  return out;
}

/**
 * A v0 line (no apiVersion/kind: user, group, readonly, resource, namespace
 * at the top level) as kube's v0 conversion reads it: no subject means every
 * authenticated user, as does `*`; no namespace or resource means all; any
 * API group; and with neither namespace nor resource, every non-resource path.
 */
function fromV0(line: Record<string, unknown>): AbacPolicySpec {
  const str = (k: string): string => (typeof line[k] === 'string' ? (line[k] as string) : '');
  let user = str('user');
  let group = str('group');
  if (user === '' && group === '') group = 'system:authenticated';
  if (user === '*' || group === '*') {
    group = 'system:authenticated';
    user = '';
  }
  const namespace = str('namespace') || '*';
  const resource = str('resource') || '*';
  const nonResourcePath = str('namespace') === '' && str('resource') === '' ? '*' : '';
  return { user, group, readonly: line.readonly === true, apiGroup: '*', resource, namespace, nonResourcePath };
}

function subjectMatches(p: AbacPolicySpec, user: UserInfo): boolean {
  let matched = false;
  if (p.user) {
    if (p.user === '*') matched = true;
    else if (p.user !== user.username) return false;
    else matched = true;
  }
  if (p.group) {
    if (p.group === '*') matched = true;
    else if (!user.groups.includes(p.group)) return false;
    else matched = true;
  }
  return matched;
}

const isReadOnly = (verb: string): boolean => verb === 'get' || verb === 'list' || verb === 'watch';

function pathMatches(pattern: string, path: string): boolean {
  return pattern === '*' || pattern === path || (pattern.endsWith('*') && path.startsWith(pattern.replace(/\*+$/, '')));
}

function matches(p: AbacPolicySpec, a: AuthorizationAttributes): boolean {
  if (!subjectMatches(p, a.user)) return false;
  if (!isReadOnly(a.verb) && p.readonly) return false;
  if (a.resourceRequest) {
    return (p.namespace === '*' || p.namespace === (a.namespace ?? '')) && (p.resource === '*' || p.resource === (a.resource ?? '')) && (p.apiGroup === '*' || p.apiGroup === (a.group ?? ''));
  }
  return pathMatches(p.nonResourcePath, a.path ?? '');
}

export class AbacAuthorizer implements Authorizer {
  constructor(private readonly policies: readonly AbacPolicySpec[]) {}

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationDecision> {
    return this.policies.some((p) => matches(p, attrs)) ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: 'No policy matched.' };
  }

  async rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [];
    for (const p of this.policies) {
      if (!subjectMatches(p, user) || (p.namespace !== '*' && p.namespace !== namespace)) continue;
      const verbs = p.readonly ? ['get', 'list', 'watch'] : ['*'];
      if (p.resource) resourceRules.push({ verbs, apiGroups: [p.apiGroup], resources: [p.resource] });
      if (p.nonResourcePath) nonResourceRules.push({ verbs, nonResourceURLs: [p.nonResourcePath] });
    }
    return { resourceRules, nonResourceRules, incomplete: false };
  }
}
