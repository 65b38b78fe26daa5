/**
 * Field validation (fieldValidation=Ignore|Warn|Strict) and unknown-field
 * pruning for built-in types. See check.ts for how a handler uses it. The
 * scanner and Go types are shared with custom resources' unstructured
 * decoding (apiextensions/schema), which keeps duplicate-field and ObjectMeta
 * checks the same as for built-ins.
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
export { ANY, fieldTypeFor, mapOf, type FieldType } from './schema.js';
export { scanJson, type ScanResult } from './json-scan.js';
export { decodeYamlWithDuplicates, yamlDuplicateKeys, yamlUnmarshalErrors } from './yaml-dups.js';
