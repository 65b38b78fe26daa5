import type { WriteAttributes } from '../write-attributes.js';
import type { UserInfo } from '../../machinery/context.js';
import { forbidden, notFound } from '../../machinery/errors.js';
import { cloneObject, jsonEqual, type KubeObject } from '../../machinery/object.js';
import type { Authorizer } from '../authorizer.js';
import { goAggregate } from './authorizer.js';
import type { RbacPolicyIndex, RoleRef } from './policy-index.js';
import { compactRules, compactString, covers, goQuotedList, policyRulesOf, type PolicyRule } from './rules.js';

/**
 * RBAC's escalation prevention (kube's pkg/registry/rbac/*\/policybased
 * storage): a Role or ClusterRole may be written only by whoever holds every
 * permission in it (at the request's namespace) or may `escalate` it; a
 * binding only by whoever holds every permission of the role it refers to
 * or may `bind` that role. system:masters is exempt. Changes that touch only
 * what the garbage collector writes pass. Setting or keeping an
 * aggregationRule needs everything (`*` on `*.*` and every URL).
 *
 * The server installs it as a validating admission plugin (kube runs it in
 * the storage wrapper, before admission): it needs the authorizer chain and
 * the rule resolver, which sit above the registry.
 */

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const PRIVILEGED_GROUP = 'system:masters';
const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/** kube's IsOnlyMutatingGCFields (also ignoring what the server itself stamps on every write). */
export function onlyGcFields(obj: KubeObject, old: KubeObject | undefined): boolean {
  if (!old) return false;
  const strip = (o: KubeObject): KubeObject => {
    const c = cloneObject(o);
    const m = c.metadata ?? {};
    for (const f of ['ownerReferences', 'finalizers', 'selfLink', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'resourceVersion', 'managedFields', 'generation'] as const) delete m[f];
    return c;
  };
  return jsonEqual(strip(obj), strip(old));
}

function hasAggregationRule(role: KubeObject | undefined): boolean {
  const selectors = (role?.aggregationRule as { clusterRoleSelectors?: unknown } | undefined)?.clusterRoleSelectors;
  return Array.isArray(selectors) && selectors.length > 0;
}

export class RbacEscalationCheck {
  readonly name = 'RBACEscalation';

  constructor(
    private readonly authorizer: Authorizer,
    private readonly index: RbacPolicyIndex,
  ) {}

  handles(operation: string): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async validate(attrs: WriteAttributes): Promise<void> {
    if (attrs.resource.group !== RBAC_GROUP || attrs.subresource !== '' || !attrs.object) return;
    const user = attrs.user;
    if (!user || user.groups.includes(PRIVILEGED_GROUP)) return;
    const obj = attrs.object;
    const old = attrs.operation === 'UPDATE' ? attrs.oldObject : undefined;
    const resource = attrs.resource.name;
    if (old && onlyGcFields(obj, old)) return;
    switch (resource) {
      case 'roles':
      case 'clusterroles': {
        if (await this.allowed(user, 'escalate', resource, attrs.operation === 'CREATE' ? '' : attrs.name, attrs.namespace)) return;
        this.confirmNoEscalation(user, attrs.namespace, policyRulesOf(obj.rules), resource, attrs.name);
        if (resource === 'clusterroles' && (hasAggregationRule(obj) || hasAggregationRule(old))) {
          if (!this.holds(user, attrs.namespace, FULL_AUTHORITY)) {
            throw forbidden({ group: RBAC_GROUP, resource }, attrs.name, 'must have cluster-admin privileges to use the aggregationRule');
          }
        }
        return;
      }
      case 'rolebindings':
      case 'clusterrolebindings': {
        const raw = (obj.roleRef ?? {}) as Record<string, unknown>;
        const ref: RoleRef = { apiGroup: String(raw.apiGroup ?? ''), kind: String(raw.kind ?? ''), name: String(raw.name ?? '') };
        const bindingNamespace = resource === 'rolebindings' ? attrs.namespace : '';
        if (ref.kind === 'Role' || ref.kind === 'ClusterRole') {
          if (await this.allowed(user, 'bind', ref.kind === 'Role' ? 'roles' : 'clusterroles', ref.name, bindingNamespace, ref.apiGroup)) return;
        }
        const rules = this.index.roleReferenceRules(ref, bindingNamespace);
        // The registry's rule resolver answers a missing role as the registry does.
        if ('error' in rules) throw notFound({ group: RBAC_GROUP, resource: ref.kind === 'Role' ? 'roles' : 'clusterroles' }, ref.name);
        this.confirmNoEscalation(user, attrs.namespace, rules, resource, attrs.name);
        return;
      }
    }
  }

  private async allowed(user: UserInfo, verb: string, resource: string, name: string, namespace: string, group = RBAC_GROUP): Promise<boolean> {
    const d = await this.authorizer.authorize({ user, verb, resourceRequest: true, group, version: 'v1', resource, name, namespace, subresource: '' });
    return d.decision === 'Allow';
  }

  private holds(user: UserInfo, namespace: string, rules: readonly PolicyRule[]): boolean {
    return covers(this.index.resolve(user, namespace).rules.map((r) => r.rule), rules).covered;
  }

  /** kube's ConfirmNoEscalation, as the 403 its storage answers. */
  private confirmNoEscalation(user: UserInfo, namespace: string, rules: readonly PolicyRule[], resource: string, name: string): void {
    const owner = this.index.resolve(user, namespace);
    const { covered, missing } = covers(
      owner.rules.map((r) => r.rule),
      rules,
    );
    if (covered) return;
    const descriptions = [...new Set(compactRules(missing).map(compactString))].sort();
    let msg = `user "${user.username}" (groups=${goQuotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
    if (owner.errors.length > 0) msg += `; resolution errors: [${goAggregate(owner.errors)}]`;
    throw forbidden({ group: RBAC_GROUP, resource }, name, msg);
  }
}
