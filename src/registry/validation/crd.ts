import type { FieldError } from '../../machinery/errors.js';
import { isDns1035Label, isDns1123Subdomain } from '../../machinery/name-validation.js';
import { jsonEqual } from '../../machinery/object.js';
import { conditionTrue, type CrdColumn, type CrdNames, type CrdSpec, type CrdSubresources, type CrdVersion } from '../../apiextensions/crd.js';
import { apiApprovalState, isProtectedGroup, API_APPROVED_ANNOTATION } from '../../apiextensions/versions.js';
import { duplicate, forbidden, goStruct, invalid, notSupported, objs, required, str, tooMany, type GoJson, type Obj } from './field.js';
import { internalSchemaJson } from '../../apiextensions/schema/internal-json.js';
import { isValidPortNum } from './pod-spec.js';
import type { JsonObject } from '../../machinery/json-value.js';
import { checkValidationRules, ratchetedSchemaValidationOptions, validateCustomResourceSchema, type CustomResourceSchemaValidationOptions } from '../../apiextensions/schema/index.js';

/**
 * apiextensions.k8s.io/v1 CustomResourceDefinition validation with kube's
 * messages (apiextensions-apiserver pkg/apis/apiextensions/validation), all
 * but the content of the versions' openAPIV3Schema. kube validates its
 * internal form, into which v1 is converted: per-version schemas,
 * subresources and printer columns that are identical in every version move
 * to the top level (spec.validation, spec.subresources,
 * spec.additionalPrinterColumns), so that is where their errors point.
 */

const PRINTER_COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const PRINTER_COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const CONVERSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];
const MAX_SELECTABLE_FIELDS = 8;

/** The internal form's view of the per-version fields: collapsed to the top level when identical. */
interface Collapsed {
  schema: boolean;
  subresources: boolean;
  columns: boolean;
}

function collapsed(versions: CrdVersion[]): Collapsed {
  const same = (get: (v: CrdVersion) => unknown): boolean => versions.length > 0 && versions.every((v) => jsonEqual(get(v) ?? null, get(versions[0]!) ?? null));
  return {
    schema: same((v) => v.schema),
    subresources: same((v) => v.subresources),
    columns: same((v) => (v.additionalPrinterColumns?.length ? v.additionalPrinterColumns : null)),
  };
}

function specOf(obj: Obj): CrdSpec {
  const s = obj.spec;
  return typeof s === 'object' && s !== null && !Array.isArray(s) ? (s as CrdSpec) : {};
}

function versionsOf(spec: CrdSpec): CrdVersion[] {
  return objs(spec.versions) as CrdVersion[];
}

function joined(errs: string[]): string {
  return errs.join(',');
}

/**
 * json.Marshal of the internal []CustomResourceDefinitionVersion (the bad
 * value of the versions-wide errors): untagged, so Go field names; a schema,
 * subresources or columns identical in every version moved to the top level
 * and is nil here.
 */
function versionsRepr(versions: CrdVersion[], c: Collapsed): GoJson[] {
  return versions.map((v) =>
    goStruct([
      ['Name', str(v.name)],
      ['Served', v.served === true],
      ['Storage', v.storage === true],
      ['Deprecated', v.deprecated === true],
      ['DeprecationWarning', typeof v.deprecationWarning === 'string' ? v.deprecationWarning : null],
      ['Schema', !c.schema && v.schema !== undefined ? goStruct([['OpenAPIV3Schema', v.schema.openAPIV3Schema === undefined ? null : internalSchemaJson(v.schema.openAPIV3Schema)]]) : null],
      ['Subresources', !c.subresources && v.subresources !== undefined ? subresourcesRepr(v.subresources) : null],
      ['AdditionalPrinterColumns', !c.columns && v.additionalPrinterColumns?.length ? v.additionalPrinterColumns.map(columnRepr) : null],
      ['SelectableFields', v.selectableFields?.length ? v.selectableFields.map((f) => goStruct([['JSONPath', str(f.jsonPath)]])) : null],
    ]),
  );
}

function subresourcesRepr(s: CrdSubresources): GoJson {
  const scale = s.scale;
  return goStruct([
    ['Status', s.status === undefined || s.status === null ? null : goStruct([])],
    [
      'Scale',
      scale === undefined || scale === null
        ? null
        : goStruct([
            ['SpecReplicasPath', str(scale.specReplicasPath)],
            ['StatusReplicasPath', str(scale.statusReplicasPath)],
            ['LabelSelectorPath', typeof scale.labelSelectorPath === 'string' ? scale.labelSelectorPath : null],
          ]),
    ],
  ]);
}

function columnRepr(col: CrdColumn): GoJson {
  return goStruct([
    ['Name', str(col.name)],
    ['Type', str(col.type)],
    ['Format', str(col.format)],
    ['Description', str(col.description)],
    ['Priority', typeof col.priority === 'number' ? col.priority : 0],
    ['JSONPath', str(col.jsonPath)],
  ]);
}

export function validateNames(names: CrdNames | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const n = names ?? {};
  const label = (field: string, value: string | undefined, lower = false, prefix = ''): void => {
    if (!value) return;
    const e = isDns1035Label(lower ? value.toLowerCase() : value);
    if (e.length > 0) errs.push(invalid(`${path}.${field}`, value, prefix + joined(e)));
  };
  label('plural', n.plural);
  label('singular', n.singular);
  label('kind', n.kind, true, 'may have mixed case, but should otherwise match: ');
  label('listKind', n.listKind, true, 'may have mixed case, but should otherwise match: ');
  (n.shortNames ?? []).forEach((s, i) => {
    const e = isDns1035Label(String(s));
    if (e.length > 0) errs.push(invalid(`${path}.shortNames[${i}]`, s, joined(e)));
  });
  if (n.kind && n.kind === n.listKind) errs.push(invalid(`${path}.listKind`, n.listKind, 'kind and listKind may not be the same'));
  (n.categories ?? []).forEach((s, i) => {
    const e = isDns1035Label(String(s));
    if (e.length > 0) errs.push(invalid(`${path}.categories[${i}]`, s, joined(e)));
  });
  return errs;
}

/** validateSimpleJSONPath: a path in the dot notation, starting with a dot. */
function validateSimpleJsonPath(s: string, path: string): FieldError[] {
  if (s.length === 0) return [invalid(path, s, 'must not be empty')];
  if (s[0] !== '.') return [invalid(path, s, 'must be a simple json path starting with .')];
  return [];
}

export function validateColumn(col: CrdColumn, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!col.name) errs.push(required(`${path}.name`));
  const types = `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`;
  if (!col.type) errs.push(required(`${path}.type`, types));
  else if (!PRINTER_COLUMN_TYPES.includes(col.type)) errs.push(invalid(`${path}.type`, col.type, types));
  if (col.format && !PRINTER_COLUMN_FORMATS.includes(col.format)) errs.push(invalid(`${path}.format`, col.format, `must be one of ${PRINTER_COLUMN_FORMATS.join(',')}`));
  if (!col.jsonPath) errs.push(required(`${path}.JSONPath`));
  else errs.push(...validateSimpleJsonPath(col.jsonPath, `${path}.JSONPath`));
  return errs;
}

export function validateSubresources(sub: CrdSubresources | undefined, path: string): FieldError[] {
  const scale = sub?.scale;
  if (!scale || typeof scale !== 'object') return [];
  const errs: FieldError[] = [];
  const replicas = (field: 'specReplicasPath' | 'statusReplicasPath', under: string): void => {
    const p = `${path}.scale.${field}`;
    const value = scale[field];
    if (!value) {
      errs.push(required(p));
      return;
    }
    const e = validateSimpleJsonPath(value, p);
    if (e.length > 0) errs.push(...e);
    else if (!value.startsWith(`.${under}.`)) errs.push(invalid(p, value, `should be a json path under .${under}`));
  };
  replicas('specReplicasPath', 'spec');
  replicas('statusReplicasPath', 'status');
  const selector = scale.labelSelectorPath;
  if (selector) {
    const p = `${path}.scale.labelSelectorPath`;
    const e = validateSimpleJsonPath(selector, p);
    if (e.length > 0) errs.push(...e);
    else if (!selector.startsWith('.spec.') && !selector.startsWith('.status.')) errs.push(invalid(p, selector, 'should be a json path under either .spec or .status'));
  }
  return errs;
}

function validateDeprecationWarning(v: CrdVersion, path: string): FieldError[] {
  const w = v.deprecationWarning;
  const out: string[] = [];
  if (!v.deprecated && w !== undefined && w !== null) out.push('can only be set for deprecated versions');
  else if (typeof w === 'string') {
    if (Buffer.byteLength(w) > 256) out.push('must be <= 256 characters long');
    if (w.length === 0) out.push('must not be an empty string');
    let byteIndex = 0;
    // unicode.IsPrint (letters, marks, numbers, punctuation, symbols, ASCII space): control characters are
    // not printable either, so kube reports them as non-printable before its control-character check.
    for (const ch of w) {
      if (!/[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u.test(ch)) {
        out.push(`must only contain printable UTF-8 characters; non-printable character found at index ${byteIndex}`);
        break;
      }
      byteIndex += Buffer.byteLength(ch);
    }
  }
  return out.map((d) => invalid(`${path}.deprecationWarning`, w ?? null, d));
}

/** The schema node a selectable field's path names, walking properties (no array notation). */
function schemaAt(schema: unknown, segments: string[]): Obj | undefined {
  let node = schema as Obj | undefined;
  for (const s of segments) {
    const props = node?.properties as Obj | undefined;
    const next = props?.[s];
    if (!next || typeof next !== 'object') return undefined;
    node = next as Obj;
  }
  return node;
}

function validateSelectableFields(fields: Array<{ jsonPath?: string }>, schema: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    const p = `${path}[${i}].jsonPath`;
    const jp = f?.jsonPath ?? '';
    if (!jp) {
      errs.push(required(p));
      return;
    }
    if (!jp.startsWith('.') || jp.includes('[')) {
      errs.push(invalid(p, jp, `is an invalid path: must be a simple path in the dot notation`));
      return;
    }
    const segments = jp.slice(1).split('.');
    const node = schemaAt(schema, segments);
    if (!node) {
      errs.push(invalid(p, jp, `is an invalid path: does not refer to a field in the schema`));
      return;
    }
    if (segments[0] === 'metadata') errs.push(invalid(p, jp, 'must not point to fields in metadata'));
    if (!['string', 'boolean', 'integer'].includes(String(node.type))) {
      errs.push(invalid(p, jp, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
    }
    const key = segments.join('.');
    if (seen.has(key)) errs.push(duplicate(p, jp));
    else seen.add(key);
  });
  if (seen.size > MAX_SELECTABLE_FIELDS) errs.push(tooMany(path, seen.size, MAX_SELECTABLE_FIELDS));
  return errs;
}

function validateWebhookUrl(url: string, path: string): FieldError[] {
  const form = '; desired format: https://host[/path]';
  let u: URL;
  try {
    u = new URL(url);
  } catch (err) {
    return [required(path, `url must be a valid URL: ${(err as Error).message}${form}`)];
  }
  const errs: FieldError[] = [];
  const scheme = u.protocol.replace(/:$/, '');
  if (scheme !== 'https') errs.push(invalid(path, scheme, `'https' is the only allowed URL scheme${form}`));
  if (!u.host) errs.push(invalid(path, u.host, `host must be specified${form}`));
  if (u.username || u.password) errs.push(invalid(path, u.password ? `${u.username}:${u.password}` : u.username, 'user information is not permitted in the URL'));
  if (u.hash.length > 1) errs.push(invalid(path, u.hash.slice(1), 'fragments are not permitted in the URL'));
  if (u.search.length > 1) errs.push(invalid(path, u.search.slice(1), 'query parameters are not permitted in the URL'));
  return errs;
}

function validateWebhookService(svc: { namespace?: string; name?: string; path?: string; port?: number }, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!svc.name) errs.push(required(`${path}.name`, 'service name is required'));
  if (!svc.namespace) errs.push(required(`${path}.namespace`, 'service namespace is required'));
  const port = svc.port ?? 443;
  const portErrs = isValidPortNum(port);
  if (portErrs.length > 0) errs.push(invalid(`${path}.port`, port, `port is not valid: ${portErrs.join(', ')}`));
  const urlPath = svc.path;
  if (urlPath === undefined || urlPath === '/' || urlPath === '') return errs;
  if (urlPath === '//') errs.push(invalid(`${path}.path`, urlPath, 'segment[0] may not be empty'));
  if (!urlPath.startsWith('/')) errs.push(invalid(`${path}.path`, urlPath, "must start with a '/'"));
  let check = urlPath.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (step.length === 0) {
      errs.push(invalid(`${path}.path`, urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const f of isDns1123Subdomain(step)) errs.push(invalid(`${path}.path`, urlPath, `segment[${i}]: ${f}`));
  });
  return errs;
}

function validateConversion(spec: CrdSpec, requireRecognized: boolean): FieldError[] {
  const conversion = spec.conversion;
  if (!conversion || typeof conversion !== 'object') return [];
  const errs: FieldError[] = [];
  const p = 'spec.conversion';
  const strategy = conversion.strategy ?? '';
  if (strategy === '') errs.push(required(`${p}.strategy`));
  else if (strategy !== 'None' && strategy !== 'Webhook') errs.push(notSupported(`${p}.strategy`, strategy, ['None', 'Webhook']));
  const clientConfig = conversion.webhook?.clientConfig;
  const reviewVersions = conversion.webhook?.conversionReviewVersions;
  if (strategy === 'Webhook') {
    if (!clientConfig) errs.push(required(`${p}.webhookClientConfig`, 'required when strategy is set to Webhook'));
    else if ((clientConfig.url === undefined) === (clientConfig.service === undefined)) {
      errs.push(required(`${p}.webhookClientConfig`, 'exactly one of url or service is required'));
    } else if (clientConfig.url !== undefined) errs.push(...validateWebhookUrl(clientConfig.url, `${p}.webhookClientConfig.url`));
    else errs.push(...validateWebhookService(clientConfig.service ?? {}, `${p}.webhookClientConfig.service`));
    const rp = `${p}.conversionReviewVersions`;
    const versions = Array.isArray(reviewVersions) ? reviewVersions : [];
    if (versions.length === 0) errs.push(required(rp));
    else {
      const seen = new Set<string>();
      let recognized = false;
      versions.forEach((v, i) => {
        if (seen.has(v)) {
          errs.push(invalid(`${rp}[${i}]`, v, 'duplicate version'));
          return;
        }
        seen.add(v);
        for (const e of isDns1035Label(v)) errs.push(invalid(`${rp}[${i}]`, v, e));
        if (CONVERSION_REVIEW_VERSIONS.includes(v)) recognized = true;
      });
      if (requireRecognized && !recognized) errs.push(invalid(rp, versions, `must include at least one of ${CONVERSION_REVIEW_VERSIONS.join(', ')}`));
    }
  } else {
    if (clientConfig) errs.push(forbidden(`${p}.webhookClientConfig`, 'should not be set when strategy is not set to Webhook'));
    if (Array.isArray(reviewVersions) && reviewVersions.length > 0) errs.push(forbidden(`${p}.conversionReviewVersions`, 'should not be set when strategy is not set to Webhook'));
  }
  return errs;
}

interface SpecOptions {
  requireOpenApiSchema: boolean;
  requireRecognizedConversionReviewVersion: boolean;
  /** The schema rules in force (on update, those the old CRD's schemas already broke are relaxed). */
  schema: CustomResourceSchemaValidationOptions;
  /** On update, the versions whose schema did not change: their rules' per-expression cost limit is not enforced again. */
  unchangedSchemas?: ReadonlySet<string>;
}

/** kube's findVersionsWithUnchangedSchemas. */
function unchangedSchemaVersions(spec: CrdSpec, oldSpec: CrdSpec): Set<string> {
  const old = new Map(versionsOf(oldSpec).map((v) => [str(v.name), v.schema]));
  return new Set(versionsOf(spec).filter((v) => old.has(str(v.name)) && jsonEqual(v.schema ?? null, old.get(str(v.name)) ?? null)).map((v) => str(v.name)));
}

function hasStatus(sub: CrdSubresources | undefined): boolean {
  return sub?.status !== undefined && sub.status !== null;
}

/** A version's openAPIV3Schema when it is an object (anything else is the decoder's business). */
function openApiSchemaOf(v: CrdVersion | undefined): JsonObject | undefined {
  const s = v?.schema?.openAPIV3Schema;
  return typeof s === 'object' && s !== null && !Array.isArray(s) ? (s as JsonObject) : undefined;
}

/** Every openAPIV3Schema of a CRD (what the update options ratchet from). */
function openApiSchemas(spec: CrdSpec): JsonObject[] {
  return versionsOf(spec).flatMap((v): JsonObject[] => { const s = openApiSchemaOf(v); return s ? [s] : []; });
}

function hasDefaults(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(hasDefaults);
  if (typeof schema !== 'object' || schema === null) return false;
  const s = schema as Obj;
  if ('default' in s) return true;
  return Object.entries(s).some(([k, v]) => k !== 'default' && k !== 'enum' && k !== 'example' && typeof v === 'object' && hasDefaults(v));
}

/**
 * A schema's errors: its content, then (kube's CELErrors, after the schema
 * errors) its x-kubernetes-validations compiled, type-checked and
 * cost-estimated. kube skips CEL below a node with schema errors; this skips
 * it for a schema with any.
 */
function schemaErrors(schema: JsonObject, path: string, opts: CustomResourceSchemaValidationOptions, unchanged: boolean): FieldError[] {
  const errs = validateCustomResourceSchema(schema, path, opts);
  return errs.length > 0 ? errs : checkValidationRules(schema, path, { suppressPerExpressionCost: unchanged });
}

function validateSpec(spec: CrdSpec, opts: SpecOptions): FieldError[] {
  const errs: FieldError[] = [];
  const group = spec.group ?? '';
  if (group === '') errs.push(required('spec.group'));
  else {
    const e = isDns1123Subdomain(group);
    if (e.length > 0) errs.push(invalid('spec.group', group, joined(e)));
    else if (group.split('.').length < 2) errs.push(invalid('spec.group', group, 'should be a domain with at least one dot'));
  }
  const scope = spec.scope ?? '';
  if (scope === '') errs.push(required('spec.scope'));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') errs.push(notSupported('spec.scope', scope, ['Cluster', 'Namespaced']));

  const versions = versionsOf(spec);
  const c = collapsed(versions);
  const topSchema = c.schema ? versions[0]?.schema : undefined;
  const preserveUnknown = spec.preserveUnknownFields === true;
  const schemaOf = (v: CrdVersion): unknown => (c.schema ? topSchema : v.schema)?.openAPIV3Schema;
  if (!topSchema?.openAPIV3Schema) {
    versions.forEach((v, i) => {
      const p = `spec.versions[${i}].schema.openAPIV3Schema`;
      if (opts.requireOpenApiSchema) {
        if (!v.schema?.openAPIV3Schema) errs.push(required(p, 'schemas are required'));
      } else if (!preserveUnknown && v.served && !v.schema?.openAPIV3Schema) errs.push(required(p, 'because otherwise all fields are pruned'));
    });
  }
  if (preserveUnknown && versions.some((v) => hasDefaults(v.schema?.openAPIV3Schema))) {
    errs.push(invalid('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'));
  }

  let storage = 0;
  const names = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    const p = `spec.versions[${i}]`;
    if (v.storage) storage++;
    const name = str(v.name);
    if (names.has(name)) unique = false;
    else names.add(name);
    const e = isDns1035Label(name);
    if (e.length > 0) errs.push(invalid(`${p}.name`, name, joined(e)));
    errs.push(...validateDeprecationWarning(v, p));
    const own = c.schema ? undefined : openApiSchemaOf(v);
    if (own) errs.push(...schemaErrors(own, `${p}.schema.openAPIV3Schema`, { ...opts.schema, statusSubresource: hasStatus(v.subresources) }, opts.unchangedSchemas?.has(name) === true));
    if (!c.subresources) errs.push(...validateSubresources(v.subresources, `${p}.subresources`));
    if (!c.columns) (v.additionalPrinterColumns ?? []).forEach((col, j) => errs.push(...validateColumn(col, `${p}.additionalPrinterColumns[${j}]`)));
    if (Array.isArray(v.selectableFields) && v.selectableFields.length > 0) {
      const schema = schemaOf(v);
      if (!schema) errs.push(invalid(`${p}.selectableFields`, '', 'selectableFields may only be set when version.schema.openAPIV3Schema is not included'));
      else errs.push(...validateSelectableFields(v.selectableFields, schema, `${p}.selectableFields`));
    }
  });
  if (!unique) errs.push(invalid('spec.versions', versionsRepr(versions, c), 'must contain unique version names'));
  if (storage !== 1) errs.push(invalid('spec.versions', versionsRepr(versions, c), 'must have exactly one version marked as storage version'));

  const n = spec.names ?? {};
  if (!n.plural) errs.push(required('spec.names.plural'));
  if (!n.singular) errs.push(required('spec.names.singular'));
  if (!n.kind) errs.push(required('spec.names.kind'));
  if (!n.listKind) errs.push(required('spec.names.listKind'));
  errs.push(...validateNames(n, 'spec.names'));
  const collapsedSchema = c.schema ? openApiSchemaOf(versions[0]) : undefined;
  if (collapsedSchema) {
    // the internal form's spec.version is the first version's name
    const unchanged = opts.unchangedSchemas?.has(str(versions[0]?.name)) === true;
    errs.push(...schemaErrors(collapsedSchema, 'spec.validation.openAPIV3Schema', { ...opts.schema, statusSubresource: versions.some((v) => hasStatus(v.subresources)) }, unchanged));
  }
  if (c.subresources) errs.push(...validateSubresources(versions[0]?.subresources, 'spec.subresources'));
  if (c.columns) (versions[0]?.additionalPrinterColumns ?? []).forEach((col, j) => errs.push(...validateColumn(col, `spec.additionalPrinterColumns[${j}]`)));

  const strategy = spec.conversion?.strategy;
  if (strategy !== undefined && strategy !== 'None' && preserveUnknown) {
    errs.push(invalid('spec.conversion.strategy', strategy, 'must be None if spec.preserveUnknownFields is true'));
  }
  errs.push(...validateConversion(spec, opts.requireRecognizedConversionReviewVersion));
  return errs;
}

function validateStoredVersions(obj: Obj, spec: CrdSpec): FieldError[] {
  const status = (obj.status ?? {}) as { storedVersions?: unknown };
  const stored = Array.isArray(status.storedVersions) ? status.storedVersions.map(String) : [];
  const p = 'status.storedVersions';
  if (stored.length === 0) return [invalid(p, Array.isArray(status.storedVersions) ? [] : null, 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const index = new Map<string, number>();
  stored.forEach((v, i) => index.set(v, i));
  for (const v of versionsOf(spec)) {
    const name = str(v.name);
    if (v.storage && !index.has(name)) errs.push(invalid(p, stored, `must have the storage version ${name}`));
    index.delete(name);
  }
  for (const [v, i] of index) {
    errs.push(
      invalid(
        `${p}[${i}]`,
        v,
        `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`,
      ),
    );
  }
  return errs;
}

function annotationsOf(obj: Obj): Record<string, string> | undefined {
  return (obj.metadata as { annotations?: Record<string, string> } | undefined)?.annotations;
}

function validateApiApproval(obj: Obj, old: Obj | undefined): FieldError[] {
  const spec = specOf(obj);
  if (!isProtectedGroup(spec.group ?? '')) return [];
  const next = apiApprovalState(annotationsOf(obj));
  if (old && apiApprovalState(annotationsOf(old)).state === next.state) return [];
  const p = `metadata.annotations[${API_APPROVED_ANNOTATION}]`;
  if (next.state === 'Missing') return [required(p, next.reason)];
  if (next.state === 'Invalid') return [invalid(p, annotationsOf(obj)?.[API_APPROVED_ANNOTATION] ?? '', next.reason)];
  return [];
}

function validatePreserveUnknownFields(obj: Obj, old: Obj | undefined): FieldError[] {
  if (old && specOf(old).preserveUnknownFields === true) return [];
  if (specOf(obj).preserveUnknownFields !== true) return [];
  return [invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead')];
}

function nameErrors(obj: Obj): FieldError[] {
  const spec = specOf(obj);
  const name = str((obj.metadata as { name?: string } | undefined)?.name);
  const want = `${spec.names?.plural ?? ''}.${spec.group ?? ''}`;
  return name === want ? [] : [invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group')];
}

function statusNames(obj: Obj): FieldError[] {
  const status = (obj.status ?? {}) as { acceptedNames?: CrdNames };
  return validateNames(status.acceptedNames, 'status.acceptedNames');
}

/** ValidateCustomResourceDefinition (create). */
export function validateCustomResourceDefinition(obj: Obj): FieldError[] {
  const spec = specOf(obj);
  return [
    ...nameErrors(obj),
    ...validateSpec(spec, { requireOpenApiSchema: true, requireRecognizedConversionReviewVersion: true, schema: {} }),
    ...statusNames(obj),
    ...validateStoredVersions(obj, spec),
    ...validateApiApproval(obj, undefined),
    ...validatePreserveUnknownFields(obj, undefined),
  ];
}

function immutable(path: string, value: unknown, old: unknown): FieldError[] {
  return jsonEqual(value ?? null, old ?? null) ? [] : [invalid(path, value ?? '', 'field is immutable')];
}

/** ValidateCustomResourceDefinitionUpdate: the spec rules, relaxed where the stored CRD already breaks them, and what may not change. */
export function validateCustomResourceDefinitionUpdate(obj: Obj, old: Obj): FieldError[] {
  const spec = specOf(obj);
  const oldSpec = specOf(old);
  const oldVersions = versionsOf(oldSpec);
  const oldReview = oldSpec.conversion?.webhook?.conversionReviewVersions ?? [];
  const errs = validateSpec(spec, {
    requireOpenApiSchema: oldVersions.every((v) => v.schema?.openAPIV3Schema !== undefined),
    requireRecognizedConversionReviewVersion: oldReview.length === 0 || oldReview.some((v) => CONVERSION_REVIEW_VERSIONS.includes(v)),
    schema: ratchetedSchemaValidationOptions(openApiSchemas(oldSpec)),
    unchangedSchemas: unchangedSchemaVersions(spec, oldSpec),
  });
  if (conditionTrue(old, 'Established')) {
    errs.push(...immutable('spec.scope', spec.scope, oldSpec.scope));
    errs.push(...immutable('spec.names.kind', spec.names?.kind, oldSpec.names?.kind));
  }
  errs.push(...immutable('spec.group', spec.group, oldSpec.group));
  errs.push(...immutable('spec.names.plural', spec.names?.plural, oldSpec.names?.plural));
  return [...errs, ...statusNames(obj), ...validateStoredVersions(obj, spec), ...validateApiApproval(obj, old), ...validatePreserveUnknownFields(obj, old)];
}

/** ValidateUpdateCustomResourceDefinitionStatus: a /status write is checked for its accepted names only (metadata generically). */
export function validateCustomResourceDefinitionStatusUpdate(obj: Obj): FieldError[] {
  return statusNames(obj);
}
