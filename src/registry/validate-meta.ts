import type { FieldError } from '../machinery/errors.js';
import type { ObjectMeta } from '../machinery/object.js';
import { TOTAL_ANNOTATION_SIZE_LIMIT, isDns1123Label, isQualifiedName, isValidLabelValue, NameRule, validateNameByRule } from '../machinery/name-validation.js';

/**
 * ObjectMeta validation with kube-apiserver's rules and messages
 * (api/validation/objectmeta.go).
 */

export function validateLabels(labels: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (labels === undefined || labels === null) return errs;
  if (typeof labels !== 'object' || Array.isArray(labels)) {
    return [{ type: 'FieldValueTypeInvalid', field, value: labels, detail: 'must be a map of string to string' }];
  }
  for (const [k, v] of Object.entries(labels as Record<string, unknown>)) {
    for (const m of isQualifiedName(k)) errs.push({ type: 'FieldValueInvalid', field, value: k, detail: m });
    if (typeof v !== 'string') {
      errs.push({ type: 'FieldValueTypeInvalid', field: `${field}[${k}]`, value: v, detail: 'must be a string' });
      continue;
    }
    for (const m of isValidLabelValue(v)) errs.push({ type: 'FieldValueInvalid', field, value: v, detail: m });
  }
  return errs;
}

export function validateAnnotations(annotations: unknown, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (annotations === undefined || annotations === null) return errs;
  if (typeof annotations !== 'object' || Array.isArray(annotations)) {
    return [{ type: 'FieldValueTypeInvalid', field, value: annotations, detail: 'must be a map of string to string' }];
  }
  let total = 0;
  for (const [k, v] of Object.entries(annotations as Record<string, unknown>)) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push({ type: 'FieldValueInvalid', field, value: k, detail: m });
    if (typeof v !== 'string') {
      errs.push({ type: 'FieldValueTypeInvalid', field: `${field}[${k}]`, value: v, detail: 'must be a string' });
      continue;
    }
    total += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) {
    errs.push({ type: 'FieldValueTooLong', field, detail: `may not be more than ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes` });
  }
  return errs;
}

const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

export function validateFinalizers(finalizers: unknown, field: string, kubeNames = true): FieldError[] {
  if (finalizers === undefined || finalizers === null) return [];
  if (!Array.isArray(finalizers)) return [{ type: 'FieldValueTypeInvalid', field, value: finalizers, detail: 'must be a list of strings' }];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  finalizers.forEach((f, i) => {
    if (typeof f !== 'string') {
      errs.push({ type: 'FieldValueTypeInvalid', field: `${field}[${i}]`, value: f, detail: 'must be a string' });
      return;
    }
    for (const m of isQualifiedName(f)) errs.push({ type: 'FieldValueInvalid', field, value: f, detail: m });
    names.add(f);
  });
  if (names.has('orphan') && names.has('foregroundDeletion')) {
    errs.push({ type: 'FieldValueInvalid', field, value: finalizers, detail: 'finalizer orphan and foregroundDeletion cannot be both set' });
  }
  // core/validation's validateKubeFinalizerName runs after the generic checks,
  // per item: unqualified names must be one of the standard finalizers.
  // apiextensions types (CRDs, custom resources) use apimachinery's ObjectMeta validation, which has no such rule.
  finalizers.forEach((f, i) => {
    if (kubeNames && typeof f === 'string' && !f.includes('/') && !STANDARD_FINALIZERS.has(f)) {
      errs.push({ type: 'FieldValueInvalid', field: `${field}[${i}]`, value: f, detail: 'name is neither a standard finalizer name nor is it fully qualified' });
    }
  });
  return errs;
}

/** The group-versions and kinds no object may name as its owner (apimachinery's BannedOwners). */
const BANNED_OWNERS = new Set(['/v1, Kind=Event']);

/**
 * ValidateOwnerReferences: apiVersion (its version part), kind, name and uid
 * set, no banned owner kind, at most one controller. As kube, errors name
 * `metadata.ownerReferences` itself, never an index.
 */
export function validateOwnerReferences(refs: unknown, field: string): FieldError[] {
  if (!Array.isArray(refs)) return [];
  const errs: FieldError[] = [];
  let firstController = '';
  for (const raw of refs) {
    const ref = (raw && typeof raw === 'object' ? raw : {}) as { apiVersion?: unknown; kind?: unknown; name?: unknown; uid?: unknown; controller?: unknown };
    const str = (v: unknown): string => (typeof v === 'string' ? v : '');
    const apiVersion = str(ref.apiVersion);
    // schema.ParseGroupVersion: "v1", "group/version"; more slashes parse to nothing.
    const slashes = apiVersion.split('/').length - 1;
    const [group, version] = slashes === 0 ? ['', apiVersion] : slashes === 1 ? (apiVersion.split('/') as [string, string]) : ['', ''];
    const kind = str(ref.kind);
    if (version === '') errs.push({ type: 'FieldValueInvalid', field: `${field}.apiVersion`, value: apiVersion, detail: 'version must not be empty' });
    if (kind === '') errs.push({ type: 'FieldValueInvalid', field: `${field}.kind`, value: kind, detail: 'kind must not be empty' });
    if (str(ref.name) === '') errs.push({ type: 'FieldValueInvalid', field: `${field}.name`, value: str(ref.name), detail: 'name must not be empty' });
    if (str(ref.uid) === '') errs.push({ type: 'FieldValueInvalid', field: `${field}.uid`, value: str(ref.uid), detail: 'uid must not be empty' });
    const gvk = `${group}/${version}, Kind=${kind}`;
    if (BANNED_OWNERS.has(gvk)) errs.push({ type: 'FieldValueInvalid', field, value: raw, detail: `${gvk} is disallowed from being an owner` });
    if (ref.controller === true) {
      const current = `${kind}/${str(ref.name)}`;
      if (firstController === '') firstController = current;
      else errs.push({ type: 'FieldValueInvalid', field, value: refs, detail: `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}` });
    }
  }
  return errs;
}

/** ValidateObjectMeta: names, namespace presence, labels, annotations, owner references, finalizers. */
export function validateObjectMeta(meta: ObjectMeta, opts: { namespaced: boolean; nameRule: NameRule; genericFinalizerNames?: boolean }): FieldError[] {
  const errs: FieldError[] = [];
  if (meta.generateName) {
    for (const m of validateNameByRule(opts.nameRule, meta.generateName, true)) {
      errs.push({ type: 'FieldValueInvalid', field: 'metadata.generateName', value: meta.generateName, detail: m });
    }
  }
  if (!meta.name) {
    errs.push({ type: 'FieldValueRequired', field: 'metadata.name', detail: 'name or generateName is required' });
  } else {
    for (const m of validateNameByRule(opts.nameRule, meta.name)) {
      errs.push({ type: 'FieldValueInvalid', field: 'metadata.name', value: meta.name, detail: m });
    }
  }
  if (opts.namespaced) {
    if (!meta.namespace) errs.push({ type: 'FieldValueRequired', field: 'metadata.namespace' });
    else for (const m of isDns1123Label(meta.namespace)) errs.push({ type: 'FieldValueInvalid', field: 'metadata.namespace', value: meta.namespace, detail: m });
  } else if (meta.namespace) {
    errs.push({ type: 'FieldValueForbidden', field: 'metadata.namespace', detail: 'not allowed on this type' });
  }
  if (meta.generation !== undefined && (typeof meta.generation !== 'number' || meta.generation < 0)) {
    errs.push({ type: 'FieldValueInvalid', field: 'metadata.generation', value: meta.generation, detail: 'must be greater than or equal to 0' });
  }
  errs.push(...validateLabels(meta.labels, 'metadata.labels'));
  errs.push(...validateAnnotations(meta.annotations, 'metadata.annotations'));
  errs.push(...validateOwnerReferences(meta.ownerReferences, 'metadata.ownerReferences'));
  errs.push(...validateFinalizers(meta.finalizers, 'metadata.finalizers', opts.genericFinalizerNames !== true));
  return errs;
}

/** ValidateObjectMetaUpdate: fields that may not change once set. */
export function validateObjectMetaUpdate(next: ObjectMeta, prev: ObjectMeta): FieldError[] {
  const errs: FieldError[] = [];
  // ValidateNoNewFinalizers: a Terminating object only loses finalizers.
  if (prev.deletionTimestamp) {
    const old = new Set(prev.finalizers ?? []);
    const added = [...new Set((next.finalizers ?? []).filter((f) => !old.has(f)))].sort();
    if (added.length > 0) {
      errs.push({
        type: 'FieldValueForbidden',
        field: 'metadata.finalizers',
        detail: `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
      });
    }
  }
  const immutable = (field: string, a: unknown, b: unknown): void => {
    if (a !== b) errs.push({ type: 'FieldValueInvalid', field, value: a ?? '', detail: 'field is immutable' });
  };
  immutable('metadata.name', next.name, prev.name);
  immutable('metadata.namespace', next.namespace ?? '', prev.namespace ?? '');
  immutable('metadata.uid', next.uid, prev.uid);
  immutable('metadata.creationTimestamp', next.creationTimestamp, prev.creationTimestamp);
  if (prev.deletionTimestamp) immutable('metadata.deletionTimestamp', next.deletionTimestamp, prev.deletionTimestamp);
  if (prev.deletionGracePeriodSeconds !== undefined) {
    immutable('metadata.deletionGracePeriodSeconds', next.deletionGracePeriodSeconds, prev.deletionGracePeriodSeconds);
  }
  return errs;
}
