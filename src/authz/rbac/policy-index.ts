import type { UserInfo } from '../../machinery/context.js';
import type { KubeObject } from '../../machinery/object.js';
import { policyRulesOf, type PolicyRule } from './rules.js';

/**
 * The RBAC objects an authorizer evaluates (kube's DefaultRuleResolver over
 * its informers' listers), kept from the watch caches' events: roles by
 * name, bindings indexed by the subjects they name, so evaluating a user
 * looks only at the bindings that can apply to them, and the rules resolved
 * for a (user, namespace) cached until the next RBAC change.
 */

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

export interface Subject {
  kind: string;
  name: string;
  namespace: string;
}

interface Binding {
  name: string;
  /** '' for ClusterRoleBindings. */
  namespace: string;
  roleRef: RoleRef;
  subjects: Subject[];
  /** Where it came in, so evaluation visits bindings in a stable order. */
  seq: number;
}

/** A rule and where it comes from (kube's source describer, e.g. `ClusterRoleBinding "x" of ClusterRole "y" to User "z"`). */
export interface SourcedRule {
  source: string;
  rule: PolicyRule;
}

export interface ResolvedRules {
  rules: SourcedRule[];
  /** Role references that did not resolve (kube's rule resolution errors). */
  errors: string[];
}

export const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';
const CACHE_LIMIT = 10_000;

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function bindingOf(obj: KubeObject, seq: number): Binding {
  const ref = (obj.roleRef ?? {}) as Record<string, unknown>;
  const subjects = Array.isArray(obj.subjects) ? (obj.subjects as unknown[]) : [];
  return {
    name: str(obj.metadata?.name),
    namespace: str(obj.metadata?.namespace),
    roleRef: { apiGroup: str(ref.apiGroup), kind: str(ref.kind), name: str(ref.name) },
    subjects: subjects.map((s) => {
      const r = (s ?? {}) as Record<string, unknown>;
      return { kind: str(r.kind), name: str(r.name), namespace: str(r.namespace) };
    }),
    seq,
  };
}

/** The index key of a binding's subject; undefined when it can never apply (a service account with no namespace in a cluster binding). */
function subjectKey(s: Subject, bindingNamespace: string): string | undefined {
  switch (s.kind) {
    case 'User':
      return `User:${s.name}`;
    case 'Group':
      return `Group:${s.name}`;
    case 'ServiceAccount': {
      const ns = s.namespace || bindingNamespace;
      return ns ? `ServiceAccount:${ns}/${s.name}` : undefined;
    }
    default:
      return undefined;
  }
}

/** The keys a user's bindings can be found under. */
function keysOfUser(user: UserInfo): string[] {
  const keys = [`User:${user.username}`, ...user.groups.map((g) => `Group:${g}`)];
  if (user.username.startsWith(SERVICE_ACCOUNT_PREFIX)) {
    const [ns, name, ...rest] = user.username.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
    if (ns && name && rest.length === 0) keys.push(`ServiceAccount:${ns}/${name}`);
  }
  return keys;
}

function appliesTo(user: UserInfo, s: Subject, namespace: string): boolean {
  switch (s.kind) {
    case 'User':
      return user.username === s.name;
    case 'Group':
      return user.groups.includes(s.name);
    case 'ServiceAccount': {
      const ns = s.namespace || namespace;
      return ns !== '' && user.username === `${SERVICE_ACCOUNT_PREFIX}${ns}:${s.name}`;
    }
    default:
      return false;
  }
}

/** kube's describeSubject (a service account is shown name/namespace). */
function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} "${s.name}/${s.namespace || bindingNamespace}"`;
  return `${s.kind} "${s.name}"`;
}

class SubjectIndex {
  private readonly byKey = new Map<string, Set<string>>();

  add(key: string, binding: Binding): void {
    for (const s of binding.subjects) {
      const k = subjectKey(s, binding.namespace);
      if (k === undefined) continue;
      const scoped = `${binding.namespace}|${k}`;
      let set = this.byKey.get(scoped);
      if (!set) this.byKey.set(scoped, (set = new Set()));
      set.add(key);
    }
  }

  remove(key: string, binding: Binding): void {
    for (const s of binding.subjects) {
      const k = subjectKey(s, binding.namespace);
      if (k === undefined) continue;
      const scoped = `${binding.namespace}|${k}`;
      const set = this.byKey.get(scoped);
      set?.delete(key);
      if (set?.size === 0) this.byKey.delete(scoped);
    }
  }

  lookup(namespace: string, userKeys: readonly string[]): Set<string> {
    const out = new Set<string>();
    for (const k of userKeys) for (const key of this.byKey.get(`${namespace}|${k}`) ?? []) out.add(key);
    return out;
  }
}

export class RbacPolicyIndex {
  private readonly roles = new Map<string, PolicyRule[]>();
  private readonly clusterRoles = new Map<string, PolicyRule[]>();
  private readonly roleBindings = new Map<string, Binding>();
  private readonly clusterRoleBindings = new Map<string, Binding>();
  private readonly bindingSubjects = new SubjectIndex();
  private readonly resolved = new Map<string, ResolvedRules>();
  private seq = 0;
  /** Moves with every change; a resolved entry is valid for the generation it was made in. */
  generation = 0;

  onRole(type: ChangeType, obj: KubeObject): void {
    const key = `${str(obj.metadata?.namespace)}/${str(obj.metadata?.name)}`;
    if (type === 'DELETED') this.roles.delete(key);
    else this.roles.set(key, policyRulesOf(obj.rules));
    this.changed();
  }

  onClusterRole(type: ChangeType, obj: KubeObject): void {
    const name = str(obj.metadata?.name);
    if (type === 'DELETED') this.clusterRoles.delete(name);
    else this.clusterRoles.set(name, policyRulesOf(obj.rules));
    this.changed();
  }

  onRoleBinding(type: ChangeType, obj: KubeObject): void {
    this.onBinding(this.roleBindings, `${str(obj.metadata?.namespace)}/${str(obj.metadata?.name)}`, type, obj);
  }

  onClusterRoleBinding(type: ChangeType, obj: KubeObject): void {
    this.onBinding(this.clusterRoleBindings, str(obj.metadata?.name), type, obj);
  }

  private onBinding(map: Map<string, Binding>, key: string, type: ChangeType, obj: KubeObject): void {
    const old = map.get(key);
    if (old) this.bindingSubjects.remove(key, old);
    if (type === 'DELETED') map.delete(key);
    else {
      const binding = bindingOf(obj, old?.seq ?? this.seq++);
      map.set(key, binding);
      this.bindingSubjects.add(key, binding);
    }
    this.changed();
  }

  private changed(): void {
    this.generation++;
    this.resolved.clear();
  }

  /**
   * The rules of a binding's roleRef (kube's GetRoleReferenceRules), or the
   * error kube's listers give when the role is missing.
   */
  roleReferenceRules(ref: RoleRef, bindingNamespace: string): PolicyRule[] | { error: string } {
    switch (ref.kind) {
      case 'Role': {
        const rules = this.roles.get(`${bindingNamespace}/${ref.name}`);
        return rules ?? { error: `role.rbac.authorization.k8s.io "${ref.name}" not found` };
      }
      case 'ClusterRole': {
        const rules = this.clusterRoles.get(ref.name);
        return rules ?? { error: `clusterrole.rbac.authorization.k8s.io "${ref.name}" not found` };
      }
      default:
        return { error: `unsupported role reference kind: "${ref.kind}"` };
    }
  }

  /**
   * Every rule that applies to the user in the namespace (cluster bindings
   * first, then the namespace's role bindings), with its source; cached per
   * user and namespace until the next change.
   */
  resolve(user: UserInfo, namespace: string): ResolvedRules {
    const cacheKey = `${namespace}\u0000${user.username}\u0000${user.groups.join('\u0001')}`;
    const cached = this.resolved.get(cacheKey);
    if (cached) return cached;
    const out: ResolvedRules = { rules: [], errors: [] };
    const keys = keysOfUser(user);
    this.collect(out, user, this.clusterRoleBindings, this.bindingSubjects.lookup('', keys), '', 'ClusterRoleBinding');
    if (namespace) this.collect(out, user, this.roleBindings, this.bindingSubjects.lookup(namespace, keys), namespace, 'RoleBinding');
    if (this.resolved.size >= CACHE_LIMIT) this.resolved.clear();
    this.resolved.set(cacheKey, out);
    return out;
  }

  private collect(out: ResolvedRules, user: UserInfo, map: Map<string, Binding>, keys: Set<string>, namespace: string, kind: string): void {
    const bindings = [...keys].map((k) => map.get(k)).filter((b): b is Binding => b !== undefined);
    bindings.sort((a, b) => a.seq - b.seq);
    for (const b of bindings) {
      const subject = b.subjects.find((s) => appliesTo(user, s, namespace));
      if (!subject) continue;
      const rules = this.roleReferenceRules(b.roleRef, namespace);
      if ('error' in rules) {
        out.errors.push(rules.error);
        continue;
      }
      const name = kind === 'RoleBinding' ? `${b.name}/${b.namespace}` : b.name;
      const source = `${kind} "${name}" of ${b.roleRef.kind} "${b.roleRef.name}" to ${describeSubject(subject, b.namespace)}`;
      for (const rule of rules) out.rules.push({ source, rule });
    }
  }
}
