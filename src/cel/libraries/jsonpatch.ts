import type { Environment } from '@marcbachmann/cel-js';

/** The constant `jsonpatch.escapeKey(...)` is a method of. */
export class JSONPatchNamespace {}

/** RFC 6901 escaping of one JSON Pointer segment: "~" as "~0", then "/" as "~1". */
export function escapeKey(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * kube's library.JSONPatch (from 1.32): `jsonpatch.escapeKey`. Not part of
 * the base environment: kube adds it to MutatingAdmissionPolicy's JSONPatch
 * expressions only, so their environment registers it itself.
 */
export function registerJSONPatch(env: Environment): void {
  env.registerType('kubernetes.JSONPatchNamespace', JSONPatchNamespace);
  env.registerConstant('jsonpatch', 'kubernetes.JSONPatchNamespace', new JSONPatchNamespace());
  env.registerFunction('kubernetes.JSONPatchNamespace.escapeKey(string): string', (_: unknown, k: string) => escapeKey(k));
}
