/**
 * Custom resource schemas (kube's apiextensions-apiserver
 * pkg/apiserver/schema and pkg/apiserver/validation): validation of a CRD
 * version's openAPIV3Schema, and per served version the structural model
 * with the operations on custom resource objects — pruning and field
 * validation, defaulting, value validation, list-type uniqueness, embedded
 * resources.
 */
export { CustomResourceSchema, type CoercedObject, type CustomResourceSchemaOptions } from './custom-resource.js';
export { checkCustomResourceFields, checkCustomResourcePatched, type CustomBodyInput, type CustomPatchedInput } from './fields.js';
export { applyDefaults, pruneNonNullableNulls } from './defaulting.js';
export { validateListSetsAndMaps } from './listtype.js';
export { type EmbeddedMetaValidator, validateEmbeddedResources } from './objectmeta.js';
export { pruneUnknown, type PruneResult } from './prune.js';
export { parseStructural, type Structural } from './structural.js';
export { validateValue, validateValueUpdate } from './value-validation.js';
export { ratchetedSchemaValidationOptions, validateCustomResourceSchema, type CustomResourceSchemaValidationOptions } from './validate-schema.js';
export { checkValidationRules, ValidationRules } from './validation-rules.js';
