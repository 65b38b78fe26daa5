/**
 * Server-side apply and managedFields tracking (kube's structured-merge-diff
 * plus apiserver's field manager) for plain JSON objects.
 *
 * Entry points:
 * - serverSideApply: PATCH application/apply-patch+yaml (create when live is undefined).
 * - trackUpdate: managedFields after create / update / non-apply patch.
 * - schemaForDefinition / schemaForCustomResource / deducedSchema: the typed view.
 * - managerOrUserAgent: the manager name of requests without fieldManager.
 *
 * Known difference from kube: every manager's fields are interpreted in the
 * served version (kube converts the object to each manager's apiVersion).
 */
export { serverSideApply, trackUpdate } from './fieldmanager.js';
export type { ApplyParams, ApplyResult, UpdateParams, UpdateResult, FieldPaths } from './fieldmanager.js';
export { schemaForDefinition, schemaForCustomResource, deducedSchema } from './schema.js';
export type { ApplySchema } from './schema.js';
export type { ManagedFieldsEntry } from './managed.js';
export { managerOrUserAgent, prefixFromUserAgent, FIELD_MANAGER_MAX_LENGTH } from './user-agent.js';
export { LAST_APPLIED_ANNOTATION } from './last-applied.js';
export { FieldSet } from './fieldset.js';
export { setToFieldsV1, fieldsV1ToSet } from './fieldsv1.js';
export { merge as mergeApplied, formatValidationErrors } from './typed.js';
