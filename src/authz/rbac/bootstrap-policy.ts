import type { KubeObject } from '../../machinery/object.js';
import { BOOTSTRAP_POLICY } from './bootstrap-policy-data.js';
import type { PolicyRule } from './rules.js';

/**
 * kube-apiserver's default RBAC objects (bootstrappolicy), built from the
 * table in bootstrap-policy-data.ts: each carries the label
 * `kubernetes.io/bootstrapping: rbac-defaults` and the annotation
 * `rbac.authorization.kubernetes.io/autoupdate: "true"`.
 */

export const RBAC_GROUP = 'rbac.authorization.k8s.io';
export const RBAC_API_VERSION = `${RBAC_GROUP}/v1`;
export const BOOTSTRAPPING_LABEL = 'kubernetes.io/bootstrapping';
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';

export interface BootstrapPolicy {
  clusterRoles: KubeObject[];
  clusterRoleBindings: KubeObject[];
  roles: KubeObject[];
  roleBindings: KubeObject[];
}

function metadata(name: string, namespace?: string, extraLabels: Record<string, string> = {}): KubeObject['metadata'] {
  return {
    name,
    ...(namespace ? { namespace } : {}),
    labels: { [BOOTSTRAPPING_LABEL]: 'rbac-defaults', ...extraLabels },
    annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
  };
}

function list(s: string): string[] {
  return s.split(',').map((x) => (x === 'core' ? '' : x));
}

function parseRule(line: string): PolicyRule {
  const parts = line.split('|').map((p) => p.trim());
  if (parts[0]!.startsWith('@')) return { nonResourceURLs: parts[0]!.slice(1).trim().split(','), verbs: parts[1]!.split(',') };
  const rule: PolicyRule = { apiGroups: list(parts[0]!), resources: parts[1]!.split(','), verbs: parts[2]!.split(',') };
  if (parts[3]) rule.resourceNames = parts[3].split(',');
  return rule;
}

function keyValue(s: string): [string, string] {
  const i = s.lastIndexOf('=');
  return [s.slice(0, i), s.slice(i + 1)];
}

function subject(s: string): Record<string, string> {
  const i = s.indexOf(':');
  const kind = s.slice(0, i);
  const rest = s.slice(i + 1);
  if (kind === 'ServiceAccount') {
    const [namespace, name] = rest.split('/');
    return { kind, name: name!, namespace: namespace! };
  }
  return { apiGroup: RBAC_GROUP, kind, name: rest };
}

function binding(kind: 'ClusterRoleBinding' | 'RoleBinding', name: string, namespace: string | undefined, roleKind: string, role: string, subjects: string[]): KubeObject {
  const obj: KubeObject = { apiVersion: RBAC_API_VERSION, kind, metadata: metadata(name, namespace), roleRef: { apiGroup: RBAC_GROUP, kind: roleKind, name: role } };
  if (subjects.length > 0) obj.subjects = subjects.map(subject);
  return obj;
}

function parse(text: string): BootstrapPolicy {
  const out: BootstrapPolicy = { clusterRoles: [], clusterRoleBindings: [], roles: [], roleBindings: [] };
  let current: KubeObject | undefined;
  let controllers = false;
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    if (raw.startsWith('  ')) {
      (current!.rules as PolicyRule[]).push(parseRule(raw.trim()));
      continue;
    }
    const [word, ...args] = raw.split(' ');
    switch (word) {
      case 'controllers':
        controllers = true;
        break;
      case 'clusterrole': {
        const labels: Record<string, string> = {};
        const selectors: Record<string, string>[] = [];
        for (const a of args.slice(1)) {
          if (a.startsWith('label=')) {
            const [k, v] = keyValue(a.slice(6));
            labels[k] = v;
          } else if (a.startsWith('aggregate=')) {
            const [k, v] = keyValue(a.slice(10));
            selectors.push({ [k]: v });
          }
        }
        current = { apiVersion: RBAC_API_VERSION, kind: 'ClusterRole', metadata: metadata(args[0]!, undefined, labels), rules: [] };
        if (selectors.length > 0) current.aggregationRule = { clusterRoleSelectors: selectors.map((matchLabels) => ({ matchLabels })) };
        out.clusterRoles.push(current);
        // controller_policy.go binds each controller role to the kube-system service account it is named after.
        if (controllers) out.clusterRoleBindings.push(binding('ClusterRoleBinding', args[0]!, undefined, 'ClusterRole', args[0]!, [`ServiceAccount:kube-system/${args[0]!.slice('system:controller:'.length)}`]));
        break;
      }
      case 'role':
        current = { apiVersion: RBAC_API_VERSION, kind: 'Role', metadata: metadata(args[1]!, args[0]!), rules: [] };
        out.roles.push(current);
        break;
      case 'clusterrolebinding':
        out.clusterRoleBindings.push(binding('ClusterRoleBinding', args[0]!, undefined, 'ClusterRole', args[1]!, args.slice(2)));
        break;
      case 'rolebinding':
        out.roleBindings.push(binding('RoleBinding', args[1]!, args[0]!, args[2]!, args[3]!, args.slice(4)));
        break;
      default:
        throw new Error(`bootstrap policy: cannot read line ${JSON.stringify(raw)}`);
    }
  }
  return out;
}

let parsed: BootstrapPolicy | undefined;

/** The default policy; callers must not change what they get (clone first). */
export function bootstrapPolicy(): BootstrapPolicy {
  parsed ??= parse(BOOTSTRAP_POLICY);
  return parsed;
}
