import { covers, policyRulesOf } from '../authz/rbac/rules.js';
import { AUTOUPDATE_ANNOTATION, bootstrapPolicy, RBAC_GROUP } from '../authz/rbac/bootstrap-policy.js';
import type { ApiClient, CollectionRef } from '../machinery/client.js';
import { isApiError } from '../machinery/errors.js';
import { cloneObject, jsonEqual, type KubeObject } from '../machinery/object.js';
import type { Controller } from './controller.js';
import { readModifyWrite } from './writes.js';

/**
 * kube-apiserver's post-start hook rbac/bootstrap-roles
 * (pkg/registry/rbac/rest/storage_rbac.go with pkg/registry/rbac/reconciliation):
 * every default ClusterRole, Role and binding is created when missing; an
 * existing one gets the labels, annotations, aggregation selectors, rules
 * and subjects it lacks (nothing is removed), unless annotated
 * `rbac.authorization.kubernetes.io/autoupdate: "false"`. A binding whose
 * roleRef differs is deleted and created again (roleRef is immutable).
 */

const ref = (resource: string, namespace?: string): CollectionRef => ({ group: RBAC_GROUP, version: 'v1', resource, ...(namespace ? { namespace } : {}) });

function isProtected(obj: KubeObject): boolean {
  return obj.metadata?.annotations?.[AUTOUPDATE_ANNOTATION] === 'false';
}

/** Labels and annotations of `expected` that `current` lacks, added to `next`. */
function mergeMeta(next: KubeObject, expected: KubeObject): void {
  const meta = next.metadata!;
  for (const field of ['labels', 'annotations'] as const) {
    const want = expected.metadata?.[field] ?? {};
    const have = { ...(meta[field] ?? {}) };
    for (const [k, v] of Object.entries(want)) if (!(k in have)) have[k] = v;
    meta[field] = have;
  }
}

export function reconcileRole(current: KubeObject | undefined, expected: KubeObject): KubeObject | undefined {
  if (!current) return cloneObject(expected);
  if (isProtected(current)) return undefined;
  const next = cloneObject(current);
  mergeMeta(next, expected);
  const { missing } = covers(policyRulesOf(current.rules), policyRulesOf(expected.rules));
  if (missing.length > 0) next.rules = [...(Array.isArray(current.rules) ? current.rules : []), ...missing];
  const wantAggregation = expected.aggregationRule as { clusterRoleSelectors?: unknown[] } | undefined;
  if (wantAggregation) {
    const have = (next.aggregationRule as { clusterRoleSelectors?: unknown[] } | undefined)?.clusterRoleSelectors ?? [];
    const add = (wantAggregation.clusterRoleSelectors ?? []).filter((s) => !have.some((h) => jsonEqual(h, s)));
    if (add.length > 0) next.aggregationRule = { clusterRoleSelectors: [...have, ...add] };
  }
  return jsonEqual(next, current) ? undefined : next;
}

function subjectKey(s: unknown): string {
  const r = (s ?? {}) as Record<string, unknown>;
  return JSON.stringify([r.kind, r.name, r.kind === 'ServiceAccount' ? r.namespace : '']);
}

export function reconcileBinding(current: KubeObject | undefined, expected: KubeObject): KubeObject | undefined {
  if (!current) return cloneObject(expected);
  if (isProtected(current)) return undefined;
  const next = cloneObject(current);
  mergeMeta(next, expected);
  const have = Array.isArray(current.subjects) ? current.subjects : [];
  const haveKeys = new Set(have.map(subjectKey));
  const add = (Array.isArray(expected.subjects) ? expected.subjects : []).filter((s) => !haveKeys.has(subjectKey(s)));
  if (add.length > 0) next.subjects = [...have, ...add];
  return jsonEqual(next, current) ? undefined : next;
}

export class RbacBootstrap implements Controller {
  readonly name = 'rbac-bootstrap';
  done = false;

  constructor(private readonly client: ApiClient) {}

  async start(): Promise<void> {
    const policy = bootstrapPolicy();
    await Promise.all([
      ...policy.clusterRoles.map((r) => this.role(ref('clusterroles'), r)),
      ...policy.roles.map((r) => this.role(ref('roles', r.metadata!.namespace), r)),
      ...policy.clusterRoleBindings.map((b) => this.binding(ref('clusterrolebindings'), b)),
      ...policy.roleBindings.map((b) => this.binding(ref('rolebindings', b.metadata!.namespace), b)),
    ]);
    this.done = true;
  }

  stop(): void {}

  private async role(collection: CollectionRef, expected: KubeObject): Promise<void> {
    await readModifyWrite(this.client, { ...collection, name: expected.metadata!.name! }, (current) => reconcileRole(current, expected));
  }

  private async binding(collection: CollectionRef, expected: KubeObject): Promise<void> {
    const objRef = { ...collection, name: expected.metadata!.name! };
    const written = await readModifyWrite(this.client, objRef, (current) => {
      if (current && !isProtected(current) && !jsonEqual(current.roleRef, expected.roleRef)) return undefined;
      return reconcileBinding(current, expected);
    });
    if (written) return;
    // A binding to another role: recreated, as kube's ReconcileRecreate does.
    let current: KubeObject;
    try {
      current = await this.client.get(objRef);
    } catch (err) {
      if (isApiError(err, 'NotFound')) return;
      throw err;
    }
    if (isProtected(current) || jsonEqual(current.roleRef, expected.roleRef)) return;
    await this.client.delete(objRef, { preconditions: { uid: current.metadata!.uid! } });
    const next = cloneObject(current);
    delete next.metadata!.resourceVersion;
    delete next.metadata!.uid;
    delete next.metadata!.creationTimestamp;
    delete next.metadata!.managedFields;
    next.roleRef = expected.roleRef;
    const recreated = reconcileBinding(next, expected) ?? next;
    await this.client.create(collection, recreated);
  }
}
