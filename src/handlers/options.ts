import { badRequest, invalid, type FieldError } from '../machinery/errors.js';

/**
 * Query-parameter options of the write and read verbs (CreateOptions,
 * UpdateOptions, PatchOptions, DeleteOptions, ListOptions) with kube's
 * validation: bad values are 422 Invalid against `<Kind>Options.meta.k8s.io`
 * (or 400 where kube-apiserver answers BadRequest).
 */

export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions' | 'ListOptions';

function optionsInvalid(kind: OptionsKind, errs: FieldError[]): never {
  throw invalid({ group: 'meta.k8s.io', kind }, '', errs);
}

/** `dryRun` is a list; the only member kube accepts is `All`. */
export function parseDryRun(query: URLSearchParams, kind: OptionsKind, fromBody?: unknown): boolean {
  const values = [...query.getAll('dryRun')];
  if (Array.isArray(fromBody)) for (const v of fromBody) values.push(String(v));
  if (values.length === 0) return false;
  for (const v of values) {
    if (v !== 'All') {
      optionsInvalid(kind, [{ type: 'FieldValueNotSupported', field: 'dryRun', value: values, supported: ['All'] }]);
    }
  }
  return true;
}

const FIELD_VALIDATION = ['Ignore', 'Warn', 'Strict'] as const;
export type FieldValidation = (typeof FIELD_VALIDATION)[number];

export function parseFieldValidation(query: URLSearchParams): FieldValidation {
  const v = query.get('fieldValidation');
  if (v === null || v === '') return 'Warn';
  if ((FIELD_VALIDATION as readonly string[]).includes(v)) return v as FieldValidation;
  throw badRequest(`fieldValidation: Unsupported value: "${v}": supported values: "Ignore", "Strict", "Warn"`);
}

/** fieldManager: at most 128 printable characters. */
export function parseFieldManager(query: URLSearchParams, kind: OptionsKind): string | undefined {
  const v = query.get('fieldManager');
  if (v === null || v === '') return undefined;
  if (v.length > 128) {
    optionsInvalid(kind, [{ type: 'FieldValueTooLong', field: 'fieldManager', value: v, detail: 'may not be more than 128 bytes' }]);
  }
  for (const ch of v) {
    const c = ch.codePointAt(0)!;
    if (c < 0x20 || c === 0x7f) {
      optionsInvalid(kind, [{ type: 'FieldValueInvalid', field: 'fieldManager', value: v, detail: 'must only contain printable characters' }]);
    }
  }
  return v;
}

export function parseNonNegativeInt(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw badRequest(`invalid value for ${name}: ${JSON.stringify(v)}: must be an integer`);
  return Number(v);
}

/**
 * Node's timers hold at most 2^31-1 ms (about 24.8 days); a longer one fires
 * at once, which would end a watch the moment it starts.
 */
export const MAX_WATCH_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/**
 * timeoutSeconds of a watch: 0 means none given (the server's randomized
 * --min-request-timeout applies, as in kube's watch handler); longer than a
 * timer can wait is capped there (in kube a Go duration waits that long).
 */
function parseWatchTimeout(query: URLSearchParams): number | undefined {
  const seconds = parseNonNegativeInt(query, 'timeoutSeconds');
  if (seconds === 0) return undefined;
  return seconds === undefined ? undefined : Math.min(seconds, MAX_WATCH_TIMEOUT_SECONDS);
}

export type ResourceVersionMatch = '' | 'Exact' | 'NotOlderThan';

export interface ListParams {
  resourceVersion: string | undefined;
  resourceVersionMatch: ResourceVersionMatch;
  limit: number;
  continueToken: string | undefined;
  labelSelector: string | undefined;
  fieldSelector: string | undefined;
  timeoutSeconds: number | undefined;
  allowWatchBookmarks: boolean;
  sendInitialEvents: boolean | undefined;
}

/**
 * A `*bool` option in the query (Convert_Slice_string_To_Pointer_bool): unset
 * when absent; false for "0" or "false" (any case); true for anything else,
 * the empty value included.
 */
export function queryPointerBool(query: URLSearchParams, name: string): boolean | undefined {
  const v = query.get(name);
  if (v === null) return undefined;
  return !(v === '0' || v.toLowerCase() === 'false');
}

function boolParam(query: URLSearchParams, name: string): boolean | undefined {
  const v = query.get(name);
  if (v === null) return undefined;
  const l = v.toLowerCase();
  if (l === '' || l === 'true' || l === '1' || l === 't') return l !== '';
  if (l === 'false' || l === '0' || l === 'f') return false;
  throw badRequest(`invalid value for ${name}: ${JSON.stringify(v)}: must be a boolean`);
}

/** `watchList`: kube's WatchList gate (off, a watch may not ask for sendInitialEvents). */
export function parseListParams(query: URLSearchParams, isWatch: boolean, watchList = true): ListParams {
  const rvm = query.get('resourceVersionMatch') ?? '';
  const params: ListParams = {
    resourceVersion: query.get('resourceVersion') ?? undefined,
    resourceVersionMatch: rvm as ResourceVersionMatch,
    limit: parseNonNegativeInt(query, 'limit') ?? 0,
    continueToken: query.get('continue') || undefined,
    labelSelector: query.get('labelSelector') ?? undefined,
    fieldSelector: query.get('fieldSelector') ?? undefined,
    timeoutSeconds: parseWatchTimeout(query),
    allowWatchBookmarks: boolParam(query, 'allowWatchBookmarks') ?? false,
    sendInitialEvents: boolParam(query, 'sendInitialEvents'),
  };
  if (params.resourceVersion === '') params.resourceVersion = undefined;
  // ValidateListOptions / validateWatchOptions (apimachinery's
  // internalversion/validation), in their order: with several errors the
  // aggregated message lists them in that order.
  const errs: FieldError[] = [];
  const matchField = 'resourceVersionMatch';
  if (isWatch) {
    if (params.sendInitialEvents !== undefined && rvm !== 'NotOlderThan') {
      errs.push({ type: 'FieldValueForbidden', field: matchField, detail: 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan' });
    }
    if (params.sendInitialEvents !== undefined && !watchList) {
      errs.push({ type: 'FieldValueForbidden', field: 'sendInitialEvents', detail: 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled' });
    }
    if (rvm) {
      if (params.sendInitialEvents === undefined) {
        errs.push({ type: 'FieldValueForbidden', field: matchField, detail: 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided' });
      }
      if (rvm !== 'NotOlderThan') errs.push({ type: 'FieldValueNotSupported', field: matchField, value: rvm, supported: ['NotOlderThan'] });
      if (params.continueToken) errs.push({ type: 'FieldValueForbidden', field: matchField, detail: 'resourceVersionMatch is forbidden when continue is provided' });
    }
  } else {
    if (rvm) {
      if (params.resourceVersion === undefined) {
        errs.push({ type: 'FieldValueForbidden', field: matchField, detail: 'resourceVersionMatch is forbidden unless resourceVersion is provided' });
      }
      if (params.continueToken) errs.push({ type: 'FieldValueForbidden', field: matchField, detail: 'resourceVersionMatch is forbidden when continue is provided' });
      if (rvm !== 'Exact' && rvm !== 'NotOlderThan') {
        errs.push({ type: 'FieldValueNotSupported', field: matchField, value: rvm, supported: ['Exact', 'NotOlderThan', ''] });
      }
      if (rvm === 'Exact' && params.resourceVersion === '0') {
        errs.push({ type: 'FieldValueForbidden', field: matchField, detail: 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"' });
      }
    }
    if (params.sendInitialEvents !== undefined) errs.push({ type: 'FieldValueForbidden', field: 'sendInitialEvents', detail: 'sendInitialEvents is forbidden for list' });
  }
  if (params.limit < 0) errs.push({ type: 'FieldValueInvalid', field: 'limit', value: params.limit, detail: 'must be greater than or equal to 0' });
  if (errs.length > 0) optionsInvalid('ListOptions', errs);
  // The storage layer's check (a watch ignores continue).
  if (!isWatch && params.continueToken && params.resourceVersion && params.resourceVersion !== '0') {
    throw badRequest('specifying resource version is not allowed when using continue');
  }
  return params;
}
