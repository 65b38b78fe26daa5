import { managerOrUserAgent, serverSideApply, trackUpdate, type ApplySchema, type FieldPaths } from '../apply/index.js';
import type { KubeObject } from '../machinery/object.js';
import type { ResourceScope } from './scope.js';

/**
 * The field manager of a write (kube's fieldmanager in the handler chain):
 * every create, update and patch records an Update entry for its manager in
 * metadata.managedFields; server-side apply merges and records an Apply entry.
 * Objects here are in the served version, as kube tracks them.
 */

/** The apply schema of the endpoint's kind, built once per descriptor. */
function schemaOf(scope: ResourceScope): ApplySchema {
  return scope.descriptor.schema.applySchema(scope.info.definition);
}

/** Fields a write to this endpoint never owns (kube's strategies' GetResetFields). */
function resetFields(scope: ResourceScope): FieldPaths | undefined {
  const own = scope.descriptor.strategy.resetFields;
  // kube's status strategies' GetResetFields: spec, and the metadata a status write keeps.
  if (scope.writeMode === 'status') return own?.status ?? [['spec'], ...(scope.descriptor.statusStrategy.keep ?? []).map((f) => ['metadata', f])];
  if (scope.writeMode === 'approval') return [['spec'], ['status', 'certificate']];
  return own?.main ?? (scope.descriptor.strategy.hasStatusSubresource ? [['status']] : undefined);
}

function common(scope: ResourceScope): { apiVersion: string; schema: ApplySchema; subresource?: string; resetFields?: FieldPaths } {
  const reset = resetFields(scope);
  return {
    apiVersion: scope.typeInfo.apiVersion,
    schema: schemaOf(scope),
    ...(scope.subresource ? { subresource: scope.subresource } : {}),
    ...(reset ? { resetFields: reset } : {}),
  };
}

/** The manager of a non-apply write: fieldManager, else the User-Agent's prefix. */
export function updateManager(scope: ResourceScope, fieldManager: string | undefined): string {
  return managerOrUserAgent(fieldManager, scope.ctx.header('user-agent'));
}

/** `updated` with managedFields recording this create/update/patch (live undefined for a create). */
export function recordUpdate(scope: ResourceScope, live: KubeObject | undefined, updated: KubeObject, manager: string): KubeObject {
  return trackUpdate({ ...common(scope), live, updated, manager }).object;
}

/** Server-side apply of `applied` onto `live` (undefined: create-on-apply); 409 on conflicts unless forced. */
export function applyConfiguration(scope: ResourceScope, live: KubeObject | undefined, applied: KubeObject, manager: string, force: boolean): KubeObject {
  return serverSideApply({ ...common(scope), live, applied, manager, force, kind: scope.info.kind }).object;
}
