/**
 * Field validation (fieldValidation=Ignore|Warn|Strict) and unknown-field
 * pruning for built-in types. See check.ts for how a handler uses it.
 */
export {
  type CheckFieldsInput,
  type CheckFieldsResult,
  type EndpointKind,
  type FieldValidation,
  type PatchKind,
  type PatchedObjectInput,
  bodyKind,
  checkApplyPatch,
  checkFields,
  checkPatchedObject,
  goDecodeError,
  patchBodyStrictErrors,
  patchInvalid,
  strictDecodingError,
  strictWarnings,
} from './check.js';
export { pruneUnknownFields } from './prune.js';
export { fieldTypeFor, type FieldType } from './schema.js';
export { decodeYamlWithDuplicates, yamlDuplicateKeys } from './yaml-dups.js';
