/**
 * Server-side printing (`as=Table`): the columns and cells kube-apiserver's
 * printers produce per resource, and the default Name / Created At table for
 * the rest. The printers live in ./tables/; this module is their entry point.
 */
export { age, humanDuration } from './tables/format.js';
export { DEFAULT_TABLE, tableConvertorFor } from './tables/index.js';
