import { compareQuantities, formatQuantity, quantityFromJson, type Quantity } from '../../api/quantity.js';
import { compile, deviceSelectorEnvironment } from '../../cel/index.js';
import type { FieldError } from '../../machinery/errors.js';
import { isDns1123Label, isDns1123Subdomain } from '../../machinery/name-validation.js';
import {
  duplicate, forbidden, goJson, has, invalid, isObj, list, notSupported, obj, objs, required, str, tooLong, tooMany, FIELD_IMMUTABLE, type Obj,
} from './field.js';
import { validateLabelName, validateLabelValue, validateNodeSelector } from './selector.js';
import { validateMetaConditions } from './conditions.js';
import { validateAnnotations, validateLabels } from '../validate-meta.js';

/**
 * resource.k8s.io (DRA) validation as kube-apiserver runs it
 * (pkg/apis/resource/validation/validation.go: ValidateDeviceClass,
 * ValidateResourceClaim{,Update,StatusUpdate}, ValidateResourceClaimTemplate,
 * ValidateResourceSlice, ValidateDeviceTaintRule). Objects are in the storage
 * version's (v1) shape. Lists are measured before their items are looked at
 * (kube's validateSlice/validateSet short-circuit), so an oversized list costs
 * one error and no per-item work.
 */

// Limits of pkg/apis/resource/types.go.
const DEVICE_REQUESTS_MAX = 32;
const DEVICE_CONSTRAINTS_MAX = 32;
const DEVICE_CONFIG_MAX = 32;
const DEVICE_SELECTORS_MAX = 32;
const FIRST_AVAILABLE_MAX = 8;
const ALLOCATION_RESULTS_MAX = 32;
export const RESERVED_FOR_MAX = 256;
const CEL_EXPRESSION_MAX_LENGTH = 10 * 1024;
const CEL_EXPRESSION_MAX_COST = 1_000_000;
const OPAQUE_PARAMETERS_MAX_LENGTH = 10 * 1024;
const POOL_NAME_MAX = 253;
const DRIVER_NAME_MAX = 63;
const SLICE_MAX_DEVICES = 128;
const SLICE_MAX_DEVICES_ADVANCED = 64;
const MAX_ATTRIBUTES_AND_CAPACITIES = 32;
const DEVICE_MAX_DOMAIN_LENGTH = 63;
const DEVICE_MAX_ID_LENGTH = 32;
const ATTRIBUTE_MAX_VALUE_LENGTH = 64;
const DEVICE_TAINTS_MAX = 16;
const SLICE_MAX_COUNTER_SETS = 8;
const DEVICE_STATUS_MAX_CONDITIONS = 8;
const DEVICE_STATUS_DATA_MAX_LENGTH = 10 * 1024;
const COUNTERS_MAX = 32;
const DEVICE_COUNTER_CONSUMPTIONS_MAX = 2;
const BINDING_CONDITIONS_MAX = 4;
const INTERFACE_NAME_MAX = 256;
const HARDWARE_ADDRESS_MAX = 128;
const NETWORK_IPS_MAX = 16;
const TAINT_RULE_STATUS_MAX_CONDITIONS = 8;
const REQUEST_POLICY_MAX_VALID_VALUES = 10;

const ALLOCATION_MODES = ['All', 'ExactCount'];
const TOLERATION_OPERATORS = ['Equal', 'Exists'];
/** validDeviceTaintEffects as sets.List sorts them. */
const TAINT_EFFECTS = ['NoExecute', 'NoSchedule', 'None'];
const CONFIG_SOURCES = ['FromClaim', 'FromClass'];
const REQUEST_REF = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'";
const C_IDENTIFIER = "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')";
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$/;

type ItemRule<T> = (item: T, path: string) => FieldError[];

/** validateSlice: TooMany alone when over max (max < 0: unbounded), else each item. */
function eachBounded<T>(items: readonly T[], max: number, path: string, rule: ItemRule<T>): FieldError[] {
  if (max >= 0 && items.length > max) return [tooMany(path, items.length, max)];
  return items.flatMap((item, i) => rule(item, `${path}[${i}]`));
}

/** validateSet: validateSlice plus Duplicate for a repeated key. */
function uniqueBounded<T>(items: readonly T[], max: number, path: string, rule: ItemRule<T>, key: (item: T) => unknown): FieldError[] {
  if (max >= 0 && items.length > max) return [tooMany(path, items.length, max)];
  const errs = items.flatMap((item, i) => rule(item, `${path}[${i}]`));
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const k = key(item);
    const id = JSON.stringify(k);
    if (seen.has(id)) errs.push(duplicate(`${path}[${i}]`, k));
    else seen.add(id);
  });
  return errs;
}

const strings = (v: unknown): string[] => list(v).map(str);

function dnsLabel(value: string, path: string): FieldError[] {
  return isDns1123Label(value).map((m) => invalid(path, value, m));
}

function dnsSubdomain(value: string, path: string): FieldError[] {
  return isDns1123Subdomain(value).map((m) => invalid(path, value, m));
}

/** corevalidation.ValidateCSIDriverName (validateDriverName). */
function validateDriverName(name: string, path: string): FieldError[] {
  if (name === '') return [required(path)];
  const errs: FieldError[] = [];
  if (name.length > DRIVER_NAME_MAX) errs.push(tooLong(path, DRIVER_NAME_MAX));
  errs.push(...isDns1123Subdomain(name.toLowerCase()).map((m) => invalid(path, name, m)));
  return errs;
}

function validatePoolName(name: string, path: string): FieldError[] {
  if (name === '') return [required(path)];
  const errs: FieldError[] = [];
  if (name.length > POOL_NAME_MAX) errs.push(tooLong(path, POOL_NAME_MAX));
  for (const part of name.split('/')) errs.push(...dnsSubdomain(part, path));
  return errs;
}

function validateDeviceName(name: string, path: string): FieldError[] {
  return dnsLabel(name, path);
}

function validateDeviceClassName(name: string, path: string): FieldError[] {
  return name === '' ? [required(path)] : dnsSubdomain(name, path);
}

function validateCIdentifier(id: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (id.length > DEVICE_MAX_ID_LENGTH) errs.push(tooLong(path, DEVICE_MAX_ID_LENGTH));
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(id)) errs.push(invalid(path, id, C_IDENTIFIER));
  return errs;
}

/** validateQualifiedName: an attribute or capacity key, `[domain/]identifier`. */
function validateQualifiedName(name: string, path: string): FieldError[] {
  const parts = name.split('/');
  if (parts.length === 1) return validateCIdentifier(name, path);
  if (parts.length > 2) return [invalid(path, name, 'must not contain more than one slash')];
  const [domain, id] = parts as [string, string];
  const errs = domain === '' ? [invalid(path, '', 'the domain must not be empty')] : validateDriverName(domain, path);
  errs.push(...(id === '' ? [invalid(path, '', 'the name must not be empty')] : validateCIdentifier(id, path)));
  return errs;
}

function validateFullyQualifiedName(name: string, path: string): FieldError[] {
  const errs = validateQualifiedName(name, path);
  if (!name.includes('/')) errs.push(invalid(path, name, 'a fully qualified name must be a domain and a name separated by a slash'));
  return errs;
}

/** validateMap's key in a field path: keys longer than max are cut in the middle. */
function mapKeyPath(path: string, key: string, max: number): string {
  const limit = Math.max(max, 16);
  const shown = key.length <= limit ? key : `${key.slice(0, Math.floor((limit - 3 + 1) / 2))}...${key.slice(key.length - Math.floor((limit - 3) / 2))}`;
  return `${path}[${shown}]`;
}

// ---- CEL selectors and opaque configuration ----

/** validateCELExpression: skipped for stored expressions (valid when written). */
function validateCelExpression(expression: string, path: string, stored: boolean): FieldError[] {
  if (stored) return [];
  if (expression.length > CEL_EXPRESSION_MAX_LENGTH) return [tooLong(path, CEL_EXPRESSION_MAX_LENGTH)];
  const result = compile(expression, deviceSelectorEnvironment());
  if (!result.ok) {
    return [result.error.type === 'invalid' ? invalid(path, expression, result.error.detail) : { type: 'InternalError', field: path, detail: result.error.detail }];
  }
  const output = result.program.outputType;
  if (output !== 'bool' && output !== 'dyn') return [invalid(path, expression, `must evaluate to bool or the unknown type, not ${output}`)];
  if (result.program.cost.max > CEL_EXPRESSION_MAX_COST) return [forbidden(path, 'too complex, exceeds cost limit')];
  return [];
}

function validateSelectors(selectors: unknown, path: string, stored: boolean): FieldError[] {
  return eachBounded(objs(selectors), DEVICE_SELECTORS_MAX, path, (s, p) =>
    isObj(s.cel) ? validateCelExpression(str(s.cel.expression), `${p}.cel.expression`, stored) : [required(`${p}.cel`)]);
}

/** validateRawExtension: a JSON object within max bytes (only new values are measured). */
function validateRawObject(value: unknown, path: string, stored: boolean, max: number): FieldError[] {
  if (value === undefined || value === null) return [required(path)];
  const raw = JSON.stringify(value);
  if (!stored && Buffer.byteLength(raw) > max) return [tooLong(path, max)];
  if (!isObj(value)) return [invalid(path, '<value omitted>', 'must be a valid JSON object')];
  return [];
}

function validateDeviceConfiguration(config: Obj, path: string, stored: boolean): FieldError[] {
  if (!isObj(config.opaque)) return [required(`${path}.opaque`)];
  const opaque = config.opaque;
  return [
    ...validateDriverName(str(opaque.driver), `${path}.opaque.driver`),
    ...validateRawObject(opaque.parameters, `${path}.opaque.parameters`, stored, OPAQUE_PARAMETERS_MAX_LENGTH),
  ];
}

// ---- DeviceClass ----

function validateDeviceClassSpec(spec: Obj, old: Obj | undefined): FieldError[] {
  // Unchanged selectors or configs are "stored": valid when they were written.
  const storedSelectors = old !== undefined && canonical(spec.selectors ?? []) === canonical(old.selectors ?? []);
  const storedConfig = old !== undefined && canonical(spec.config ?? []) === canonical(old.config ?? []);
  const errs = validateSelectors(spec.selectors, 'spec.selectors', storedSelectors);
  errs.push(...eachBounded(objs(spec.config), DEVICE_CONFIG_MAX, 'spec.config', (c, p) => validateDeviceConfiguration(c, p, storedConfig)));
  if (typeof spec.extendedResourceName === 'string' && !isExtendedResourceName(spec.extendedResourceName)) {
    errs.push(invalid('spec.extendedResourceName', spec.extendedResourceName, 'must be a valid extended resource name'));
  }
  return errs;
}

/** v1helper.IsExtendedResourceName: a qualified name outside kubernetes.io whose "requests."-prefixed form is one too. */
function isExtendedResourceName(name: string): boolean {
  const native = !name.includes('/') || name.includes('kubernetes.io/');
  if (native || name.startsWith('requests.')) return false;
  return validateLabelName(`requests.${name}`, '').length === 0;
}

export function validateDeviceClass(dc: Obj): FieldError[] {
  return validateDeviceClassSpec(obj(dc.spec), undefined);
}

export function validateDeviceClassUpdate(dc: Obj, old: Obj): FieldError[] {
  return validateDeviceClassSpec(obj(dc.spec), obj(old.spec));
}

// ---- ResourceClaim spec ----

/** Request names, each with its subrequests' names (undefined without firstAvailable). */
type RequestNames = Map<string, Set<string> | undefined>;

function gatherRequestNames(devices: Obj): RequestNames {
  const names: RequestNames = new Map();
  for (const r of objs(devices.requests)) {
    const subs = objs(r.firstAvailable);
    names.set(str(r.name), subs.length === 0 ? undefined : new Set(subs.map((s) => str(s.name))));
  }
  return names;
}

function hasRequestRef(names: RequestNames, ref: string): boolean {
  const segments = ref.split('/');
  if (segments.length > 2 || !names.has(segments[0]!)) return false;
  return segments.length === 1 || names.get(segments[0]!)?.has(segments[1]!) === true;
}

function validateRequestRef(ref: string, path: string, names: RequestNames): FieldError[] {
  const segments = ref.split('/');
  if (segments.length > 2) return [invalid(path, ref, REQUEST_REF)];
  const errs = segments.flatMap((s) => dnsLabel(s, path));
  if (!hasRequestRef(names, ref)) errs.push(invalid(path, ref, REQUEST_REF));
  return errs;
}

function validateRequestRefs(refs: unknown, path: string, names: RequestNames): FieldError[] {
  return uniqueBounded(strings(refs), DEVICE_REQUESTS_MAX, path, (r, p) => validateRequestRef(r, p, names), (r) => r);
}

function validateAllocationMode(mode: string, count: unknown, path: string): FieldError[] {
  const n = typeof count === 'number' ? count : 0;
  switch (mode) {
    case 'All':
      return n !== 0 ? [invalid(`${path}.count`, n, "must not be specified when allocationMode is 'All'")] : [];
    case 'ExactCount':
      return n <= 0 ? [invalid(`${path}.count`, n, 'must be greater than zero')] : [];
    default:
      return [notSupported(`${path}.allocationMode`, mode, ALLOCATION_MODES)];
  }
}

function validateToleration(t: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const key = str(t.key);
  const value = str(t.value);
  if (key !== '') errs.push(...validateLabelName(key, `${path}.key`));
  switch (str(t.operator)) {
    case 'Exists':
      if (value !== '') errs.push(invalid(`${path}.value`, value, 'must be empty for operator `Exists`'));
      break;
    case 'Equal':
      errs.push(...validateLabelValue(value, `${path}.value`));
      break;
    case '':
      errs.push(required(`${path}.operator`));
      break;
    default:
      errs.push(notSupported(`${path}.operator`, t.operator, TOLERATION_OPERATORS));
  }
  const effect = str(t.effect);
  if (effect !== '' && !TAINT_EFFECTS.includes(effect)) errs.push(notSupported(`${path}.effect`, effect, TAINT_EFFECTS));
  return errs;
}

/** The fields an exact request and a subrequest share. */
function validateRequestBody(r: Obj, path: string, stored: boolean): FieldError[] {
  return [
    ...validateDeviceClassName(str(r.deviceClassName), `${path}.deviceClassName`),
    ...validateSelectors(r.selectors, `${path}.selectors`, stored),
    ...validateAllocationMode(str(r.allocationMode), r.count, path),
    ...objs(r.tolerations).flatMap((t, i) => validateToleration(t, `${path}.tolerations[${i}]`)),
  ];
}

function validateDeviceRequest(r: Obj, path: string, stored: boolean): FieldError[] {
  const errs = dnsLabel(str(r.name), `${path}.name`);
  const firstAvailable = objs(r.firstAvailable);
  const exactly = isObj(r.exactly);
  if (firstAvailable.length === 0 && !exactly) errs.push(required(path, 'exactly one of `exactly` or `firstAvailable` is required'));
  else if (firstAvailable.length > 0 && exactly) errs.push(invalid(path, null, 'exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set'));
  else if (exactly) errs.push(...validateRequestBody(obj(r.exactly), `${path}.exactly`, stored));
  else {
    errs.push(...uniqueBounded(firstAvailable, FIRST_AVAILABLE_MAX, `${path}.firstAvailable`, (s, p) => [
      ...dnsLabel(str(s.name), `${p}.name`),
      ...validateRequestBody(s, p, stored),
    ], (s) => str(s.name)));
  }
  return errs;
}

function validateConstraint(c: Obj, path: string, names: RequestNames, consumableCapacity: boolean): FieldError[] {
  const errs = validateRequestRefs(c.requests, `${path}.requests`, names);
  if (typeof c.matchAttribute === 'string') errs.push(...validateFullyQualifiedName(c.matchAttribute, `${path}.matchAttribute`));
  else if (typeof c.distinctAttribute === 'string') errs.push(...validateFullyQualifiedName(c.distinctAttribute, `${path}.distinctAttribute`));
  else if (consumableCapacity) errs.push(required(path, 'exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields are set'));
  else errs.push(required(`${path}.matchAttribute`));
  return errs;
}

/** validateResourceClaimSpec at `path` (spec, or spec.spec in a template). */
export function validateClaimSpec(spec: Obj, path: string, stored = false): FieldError[] {
  const devices = obj(spec.devices);
  const at = `${path}.devices`;
  const names = gatherRequestNames(devices);
  // DRAConsumableCapacity is beta and on by default in 1.36: kube's message for a constraint without an attribute is the gate-on one.
  const consumableCapacity = true;
  return [
    ...uniqueBounded(objs(devices.requests), DEVICE_REQUESTS_MAX, `${at}.requests`, (r, p) => validateDeviceRequest(r, p, stored), (r) => str(r.name)),
    ...eachBounded(objs(devices.constraints), DEVICE_CONSTRAINTS_MAX, `${at}.constraints`, (c, p) => validateConstraint(c, p, names, consumableCapacity)),
    ...eachBounded(objs(devices.config), DEVICE_CONFIG_MAX, `${at}.config`, (c, p) => [
      ...validateRequestRefs(c.requests, `${p}.requests`, names),
      ...validateDeviceConfiguration(c, p, stored),
    ]),
  ];
}

export function validateResourceClaim(claim: Obj): FieldError[] {
  return validateClaimSpec(obj(claim.spec), 'spec');
}

/** ValidateResourceClaimUpdate: the spec is immutable, and only that is checked. */
export function validateResourceClaimUpdate(claim: Obj, old: Obj): FieldError[] {
  // kube prints json.Marshal of the internal struct (untagged, every field); not written yet, as batch.ts's pod template.
  return immutable(claim.spec, old.spec, 'spec', goJson('resource.ResourceClaimSpec{...}'));
}

/** validateResourceClaimTemplateSpec: ValidateTemplateObjectMeta's annotations and labels, then the claim spec. */
export function validateResourceClaimTemplate(template: Obj): FieldError[] {
  const spec = obj(template.spec);
  const meta = obj(spec.metadata);
  return [
    ...validateAnnotations(meta.annotations, 'spec.metadata.annotations'),
    ...validateLabels(meta.labels, 'spec.metadata.labels'),
    ...validateClaimSpec(obj(spec.spec), 'spec.spec'),
  ];
}

export function validateResourceClaimTemplateUpdate(template: Obj, old: Obj): FieldError[] {
  return immutable(template.spec, old.spec, 'spec', goJson('resource.ResourceClaimTemplateSpec{...}'));
}

/** ValidateImmutableField; `shown` stands in for kube's %#v of a Go struct (as batch.ts does for a pod template). */
function immutable(value: unknown, old: unknown, path: string, shown: unknown = value): FieldError[] {
  return canonical(value) === canonical(old) ? [] : [invalid(path, shown, FIELD_IMMUTABLE)];
}

/** JSON with sorted keys: semantic equality of decoded objects. */
function canonical(v: unknown): string {
  return JSON.stringify(v ?? null, (_k, x: unknown) =>
    isObj(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : x);
}

/** validateDeviceBindingParameters: a device's or allocation result's bindingConditions and bindingFailureConditions. */
function validateBindingParameters(item: Obj, path: string): FieldError[] {
  const conditions = strings(item.bindingConditions);
  const failures = strings(item.bindingFailureConditions);
  const errs = [
    ...eachBounded(conditions, BINDING_CONDITIONS_MAX, `${path}.bindingConditions`, validateLabelName),
    ...eachBounded(failures, BINDING_CONDITIONS_MAX, `${path}.bindingFailureConditions`, validateLabelName),
  ];
  const seen = new Set<string>();
  conditions.forEach((c, i) => {
    if (seen.has(c)) errs.push(duplicate(`${path}.bindingConditions[${i}]`, c));
    else seen.add(c);
  });
  const seenFailures = new Set<string>();
  failures.forEach((c, i) => {
    if (seenFailures.has(c)) errs.push(duplicate(`${path}.bindingFailureConditions[${i}]`, c));
    else seenFailures.add(c);
    if (seen.has(c)) errs.push(invalid(`${path}.bindingFailureConditions[${i}]`, c, 'bindingFailureConditions must not overlap with bindingConditions'));
  });
  if (conditions.length === 0 && failures.length > 0) {
    errs.push(invalid(`${path}.bindingConditions`, list(item.bindingConditions), 'bindingConditions are required to use bindingFailureConditions'));
  }
  if (failures.length === 0 && conditions.length > 0) {
    errs.push(invalid(`${path}.bindingFailureConditions`, list(item.bindingFailureConditions), 'bindingFailureConditions are required to use bindingConditions'));
  }
  return errs;
}

// ---- ResourceClaim status ----

function deviceId(d: Obj): string {
  return `${str(d.driver)}/${str(d.pool)}/${str(d.device)}${typeof d.shareID === 'string' ? `/${d.shareID}` : ''}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function validateShareId(id: string, path: string): FieldError[] {
  if (UUID.test(id)) return [];
  if (UUID.test(id.toLowerCase())) {
    return [invalid(path, id, 'uid must be in RFC 4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase hexadecimal characters')];
  }
  return [invalid(path, id, `error validating uid: invalid UUID length: ${id.length}`)];
}

function validateAllocationResult(allocation: Obj, path: string, names: RequestNames): FieldError[] {
  const devices = obj(allocation.devices);
  const at = `${path}.devices`;
  return [
    ...eachBounded(objs(devices.results), ALLOCATION_RESULTS_MAX, `${at}.results`, (r, p) => [
      ...validateRequestRef(str(r.request), `${p}.request`, names),
      ...validateDriverName(str(r.driver), `${p}.driver`),
      ...validatePoolName(str(r.pool), `${p}.pool`),
      ...validateDeviceName(str(r.device), `${p}.device`),
      ...validateBindingParameters(r, p),
      ...objs(r.tolerations).flatMap((t, i) => validateToleration(t, `${p}.tolerations[${i}]`)),
      ...(typeof r.shareID === 'string' ? validateShareId(r.shareID, `${p}.shareID`) : []),
    ]),
    ...eachBounded(objs(devices.config), 2 * DEVICE_CONFIG_MAX, `${at}.config`, (c, p) => {
      const source = str(c.source);
      return [
        ...(source === '' ? [required(`${p}.source`)] : CONFIG_SOURCES.includes(source) ? [] : [notSupported(`${p}.source`, source, CONFIG_SOURCES)]),
        ...validateRequestRefs(c.requests, `${p}.requests`, names),
        ...validateDeviceConfiguration(c, p, false),
      ];
    }),
    ...(isObj(allocation.nodeSelector) ? validateNodeSelector(allocation.nodeSelector, `${path}.nodeSelector`) : []),
  ];
}

function validateDeviceStatus(d: Obj, path: string, allocated: Set<string>): FieldError[] {
  const errs = [
    ...validateDriverName(str(d.driver), `${path}.driver`),
    ...validatePoolName(str(d.pool), `${path}.pool`),
    ...validateDeviceName(str(d.device), `${path}.device`),
    ...(typeof d.shareID === 'string' ? validateShareId(d.shareID, `${path}.shareID`) : []),
  ];
  if (!allocated.has(deviceId(d))) errs.push(invalid(path, deviceId(d), 'must be an allocated device in the claim'));
  const conditions = list(d.conditions);
  if (conditions.length > DEVICE_STATUS_MAX_CONDITIONS) errs.push(tooMany(`${path}.conditions`, conditions.length, DEVICE_STATUS_MAX_CONDITIONS));
  errs.push(...validateMetaConditions(conditions, `${path}.conditions`));
  if (has(d.data)) errs.push(...validateRawObject(d.data, `${path}.data`, false, DEVICE_STATUS_DATA_MAX_LENGTH));
  if (isObj(d.networkData)) errs.push(...validateNetworkData(d.networkData, `${path}.networkData`));
  return errs;
}

/** validateNetworkDeviceData, but for the IPs' CIDR form (IsValidInterfaceAddress). */
function validateNetworkData(data: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(str(data.interfaceName)) > INTERFACE_NAME_MAX) errs.push(tooLong(`${path}.interfaceName`, INTERFACE_NAME_MAX));
  if (Buffer.byteLength(str(data.hardwareAddress)) > HARDWARE_ADDRESS_MAX) errs.push(tooLong(`${path}.hardwareAddress`, HARDWARE_ADDRESS_MAX));
  errs.push(...uniqueBounded(strings(data.ips), NETWORK_IPS_MAX, `${path}.ips`, () => [], (ip) => ip));
  return errs;
}

/** ValidateResourceClaimStatusUpdate. */
export function validateResourceClaimStatusUpdate(claim: Obj, old: Obj): FieldError[] {
  const status = obj(claim.status);
  const oldStatus = obj(old.status);
  const names = gatherRequestNames(obj(obj(claim.spec).devices));
  const reservedFor = objs(status.reservedFor);
  const errs = uniqueBounded(reservedFor, RESERVED_FOR_MAX, 'status.reservedFor', (ref, p) => [
    ...(str(ref.resource) === '' ? [required(`${p}.resource`)] : []),
    ...(str(ref.name) === '' ? [required(`${p}.name`)] : []),
    ...(str(ref.uid) === '' ? [required(`${p}.uid`)] : []),
  ], (ref) => str(ref.uid));
  const allocation = isObj(status.allocation) ? status.allocation : undefined;
  const allocated = new Set(objs(obj(allocation?.devices).results).map(deviceId));
  errs.push(...uniqueBounded(objs(status.devices), -1, 'status.devices', (d, p) => validateDeviceStatus(d, p, allocated), deviceId));
  if (reservedFor.length > 0) {
    if (!allocation) errs.push(forbidden('status.reservedFor', 'may not be specified when `allocated` is not set'));
    else if (has(obj(claim.metadata).deletionTimestamp)) {
      const before = new Set(objs(oldStatus.reservedFor).map(canonical));
      if (reservedFor.some((r) => !before.has(canonical(r)))) {
        errs.push(forbidden('status.reservedFor', 'new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set'));
      }
    }
  }
  if (allocation && isObj(oldStatus.allocation)) errs.push(...immutable(allocation, oldStatus.allocation, 'status.allocation', goJson('&resource.AllocationResult{...}')));
  else if (allocation) errs.push(...validateAllocationResult(allocation, 'status.allocation', names));
  return errs;
}

// ---- ResourceSlice ----

function validateNodeName(name: string, path: string): FieldError[] {
  return dnsSubdomain(name, path);
}

function validateDeviceAttribute(a: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let set = 0;
  if (has(a.bool)) set++;
  if (has(a.int)) set++;
  if (has(a.string)) {
    set++;
    if (str(a.string).length > ATTRIBUTE_MAX_VALUE_LENGTH) errs.push(tooLong(`${path}.string`, ATTRIBUTE_MAX_VALUE_LENGTH));
  }
  if (has(a.version)) {
    set++;
    const v = str(a.version);
    if (!SEMVER.test(v)) errs.push(invalid(`${path}.version`, v, 'must be a string compatible with semver.org spec 2.0.0'));
    if (v.length > ATTRIBUTE_MAX_VALUE_LENGTH) errs.push(tooLong(`${path}.version`, ATTRIBUTE_MAX_VALUE_LENGTH));
  }
  for (const kind of ['bools', 'ints', 'strings', 'versions']) {
    if (!has(a[kind])) continue;
    set++;
    if (list(a[kind]).length === 0) errs.push(invalid(`${path}.${kind}`, a[kind], 'must not be empty if specified'));
  }
  if (set !== 1) errs.push(invalid(path, set === 0 ? '' : a, 'exactly one value must be specified'));
  return errs;
}

function validateTaint(t: Obj, oldEffect: string | undefined, path: string): FieldError[] {
  // ValidateLabelName reports an empty key too.
  const errs = validateLabelName(str(t.key), `${path}.key`);
  if (str(t.value) !== '') errs.push(...validateLabelValue(str(t.value), `${path}.value`));
  const effect = str(t.effect);
  if (oldEffect === undefined || oldEffect !== effect) {
    if (effect === '') errs.push(required(`${path}.effect`));
    else if (!TAINT_EFFECTS.includes(effect)) errs.push(notSupported(`${path}.effect`, effect, TAINT_EFFECTS));
  }
  return errs;
}

function validateMapKeys(m: unknown, path: string, rule: (value: Obj, path: string) => FieldError[]): FieldError[] {
  const maxKey = DEVICE_MAX_DOMAIN_LENGTH + 1 + DEVICE_MAX_ID_LENGTH;
  return Object.entries(obj(m)).flatMap(([k, v]) => [...validateQualifiedName(k, path), ...rule(obj(v), mapKeyPath(path, k, maxKey))]);
}

// Consumable capacity (DRAConsumableCapacity, beta and on in 1.36): a multi-allocatable device's request policies.

const ZERO: Quantity = { mantissa: 0n, exponent: 0, format: 'DecimalSI' };
const quantity = (v: unknown): Quantity => quantityFromJson(v) ?? ZERO;
const shown = (q: Quantity): string => formatQuantity(q);

/** Quantity.Value(): the value rounded up to an integer. */
function ceilValue(q: Quantity): bigint {
  if (q.exponent >= 0) return q.mantissa * 10n ** BigInt(q.exponent);
  const d = 10n ** BigInt(-q.exponent);
  const t = q.mantissa / d;
  return q.mantissa > 0n && q.mantissa % d !== 0n ? t + 1n : t;
}

/** validateRequestPolicy: validValues or validRange, each with a default within the device's capacity. */
function validateRequestPolicy(capacityValue: unknown, policy: Obj, path: string): FieldError[] {
  const capacity = quantity(capacityValue);
  const values = list(policy.validValues).map(quantity);
  if (values.length > 0 && has(policy.validRange)) {
    return [forbidden(path, 'exactly one policy can be specified, cannot specify "validValues" and "validRange" at the same time')];
  }
  if (values.length > 0) {
    if (!has(policy.default)) return [required(`${path}.default`, 'required when validValues is defined')];
    return validateValidValues(quantity(policy.default), capacity, values, `${path}.validValues`);
  }
  if (isObj(policy.validRange)) {
    if (!has(policy.default)) return [required(`${path}.default`, 'required when validRange is defined')];
    return validateValidRange(quantity(policy.default), capacity, policy.validRange, `${path}.validRange`);
  }
  return [];
}

function validateValidValues(def: Quantity, capacity: Quantity, values: Quantity[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (let i = 0; i + 1 < values.length; i++) {
    if (compareQuantities(values[i]!, values[i + 1]!) > 0) errs.push(invalid(`${path}[${i + 1}]`, shown(values[i + 1]!), 'values must be sorted in ascending order'));
  }
  let foundDefault = false;
  errs.push(...uniqueBounded(values, REQUEST_POLICY_MAX_VALID_VALUES, path, (q, p) => {
    if (compareQuantities(q, def) === 0) foundDefault = true;
    return compareQuantities(q, capacity) > 0 ? [invalid(p, shown(q), `option is larger than capacity value: ${shown(capacity)}`)] : [];
  }, (q) => ceilValue(q).toString()));
  if (!foundDefault) errs.push(invalid(path, shown(def), 'default value is not valid according to the requestPolicy'));
  return errs;
}

function validateValidRange(def: Quantity, capacity: Quantity, range: Obj, path: string): FieldError[] {
  if (!has(range.min)) return [required(`${path}.min`, 'required when validRange is defined')];
  const min = quantity(range.min);
  const errs: FieldError[] = [];
  if (compareQuantities(min, capacity) > 0) errs.push(invalid(`${path}.min`, shown(min), `min is larger than capacity value: ${shown(capacity)}`));
  if (compareQuantities(def, min) < 0) errs.push(invalid(`${path}.default`, shown(def), `default is less than min: ${shown(min)}`));
  const max = has(range.max) ? quantity(range.max) : undefined;
  if (max) {
    if (compareQuantities(min, max) > 0) errs.push(invalid(`${path}.max`, shown(min), `min is larger than max: ${shown(max)}`));
    if (compareQuantities(max, capacity) > 0) errs.push(invalid(`${path}.max`, shown(max), `max is larger than capacity value: ${shown(capacity)}`));
    if (compareQuantities(def, max) > 0) errs.push(invalid(`${path}.default`, shown(def), `default is more than max: ${shown(max)}`));
  }
  if (!has(range.step)) return errs;
  const step = quantity(range.step);
  const stepValue = ceilValue(step);
  if (compareQuantities(step, ZERO) <= 0 || stepValue === 0n) {
    errs.push(invalid(`${path}.step`, shown(step), 'must be greater than zero'));
    return errs;
  }
  const oneStep = ceilValue(min) + stepValue;
  if (oneStep > ceilValue(capacity)) errs.push(invalid(`${path}.step`, shown(step), `one step ${oneStep} is larger than capacity value: ${shown(capacity)}`));
  for (const value of max ? [def, max] : [def]) {
    if ((ceilValue(value) - ceilValue(min)) % stepValue !== 0n) {
      errs.push(invalid(`${path}.step`, shown(value), `value is not a multiple of a given step (${shown(step)}) from (${shown(min)})`));
    }
  }
  return errs;
}

function validateDevice(d: Obj, old: Obj | undefined, path: string, perDeviceNodeSelection: boolean): FieldError[] {
  const errs = validateDeviceName(str(d.name), `${path}.name`);
  const total = Object.keys(obj(d.attributes)).length + Object.keys(obj(d.capacity)).length;
  if (total > MAX_ATTRIBUTES_AND_CAPACITIES) {
    errs.push(invalid(path, total, `the total number of attributes and capacities must not exceed ${MAX_ATTRIBUTES_AND_CAPACITIES}`));
  }
  errs.push(...validateMapKeys(d.attributes, `${path}.attributes`, validateDeviceAttribute));
  const multiple = d.allowMultipleAllocations === true;
  if (!old || canonical(old.capacity) !== canonical(d.capacity)) {
    errs.push(...validateMapKeys(d.capacity, `${path}.capacity`, (c, p) => {
      if (!has(c.requestPolicy)) return [];
      if (!multiple) return [forbidden(`${p}.requestPolicy`, 'allowMultipleAllocations must be true')];
      return validateRequestPolicy(c.value, obj(c.requestPolicy), `${p}.requestPolicy`);
    }));
  }
  if (!old || canonical(old.taints) !== canonical(d.taints)) {
    errs.push(...eachBounded(objs(d.taints), DEVICE_TAINTS_MAX, `${path}.taints`, (t, p) => validateTaint(t, undefined, p)));
  }
  errs.push(...uniqueBounded(objs(d.consumesCounters), DEVICE_COUNTER_CONSUMPTIONS_MAX, `${path}.consumesCounters`,
    (c, p) => validateCounters(str(c.counterSet), c.counters, p, 'counterSet'), (c) => str(c.counterSet)));
  const placement = has(d.nodeName) || has(d.nodeSelector) || has(d.allNodes);
  if (perDeviceNodeSelection) {
    const set: string[] = [];
    if (typeof d.nodeName === 'string') {
      if (d.nodeName !== '') {
        set.push('`nodeName`');
        errs.push(...validateNodeName(d.nodeName, `${path}.nodeName`));
      } else errs.push(invalid(`${path}.nodeName`, '', 'must not be empty'));
    }
    if (isObj(d.nodeSelector)) {
      set.push('`nodeSelector`');
      errs.push(...validateNodeSelector(d.nodeSelector, `${path}.nodeSelector`));
    }
    if (typeof d.allNodes === 'boolean') {
      if (d.allNodes) set.push('`allNodes`');
      else errs.push(invalid(`${path}.allNodes`, false, 'must be either unset or set to true'));
    }
    const detail = 'exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec';
    if (set.length === 0) errs.push(required(path, detail));
    else if (set.length > 1) errs.push(invalid(path, `{${set.join(', ')}}`, detail));
  } else if (placement) {
    errs.push(invalid(path, null, '`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec'));
  }
  errs.push(...validateBindingParameters(d, path));
  return errs;
}

/** A counter set (name) or a device's consumption of one (counterSet): the name, then at most 32 counters named by DNS labels. */
function validateCounters(name: string, counters: unknown, path: string, nameField: string): FieldError[] {
  const errs = name === '' ? [required(`${path}.${nameField}`)] : dnsLabel(name, `${path}.${nameField}`);
  const keys = Object.keys(obj(counters));
  if (keys.length === 0) errs.push(required(`${path}.counters`));
  else if (keys.length > COUNTERS_MAX) errs.push(tooMany(`${path}.counters`, keys.length, COUNTERS_MAX));
  else for (const k of keys) errs.push(...dnsLabel(k, `${path}.counters`));
  return errs;
}

function validateSliceSpec(spec: Obj, old: Obj | undefined): FieldError[] {
  const errs = validateDriverName(str(spec.driver), 'spec.driver');
  const pool = obj(spec.pool);
  errs.push(...validatePoolName(str(pool.name), 'spec.pool.name'));
  const count = typeof pool.resourceSliceCount === 'number' ? pool.resourceSliceCount : 0;
  if (count <= 0) errs.push(invalid('spec.pool.resourceSliceCount', count, 'must be greater than zero'));
  const generation = typeof pool.generation === 'number' ? pool.generation : 0;
  if (generation < 0) errs.push(invalid('spec.pool.generation', generation, 'must be greater than or equal to zero'));
  if (old) {
    errs.push(...immutable(pool.name, obj(old.pool).name, 'spec.pool.name'));
    errs.push(...immutable(spec.driver, old.driver, 'spec.driver'));
    errs.push(...immutable(spec.nodeName, old.nodeName, 'spec.nodeName'));
  }
  const set: string[] = [];
  if (typeof spec.nodeName === 'string') {
    if (spec.nodeName !== '') {
      set.push('`nodeName`');
      errs.push(...validateNodeName(spec.nodeName, 'spec.nodeName'));
    } else errs.push(invalid('spec.nodeName', '', 'must be either unset or set to a non-empty string'));
  }
  if (isObj(spec.nodeSelector)) {
    set.push('`nodeSelector`');
    errs.push(...validateNodeSelector(spec.nodeSelector, 'spec.nodeSelector'));
    const terms = list(spec.nodeSelector.nodeSelectorTerms);
    if (terms.length !== 1) errs.push(invalid('spec.nodeSelector.nodeSelectorTerms', terms, 'must have exactly one node selector term'));
  }
  for (const flag of ['allNodes', 'perDeviceNodeSelection']) {
    if (typeof spec[flag] !== 'boolean') continue;
    if (spec[flag]) set.push(`\`${flag}\``);
    else errs.push(invalid(`spec.${flag}`, false, 'must be either unset or set to true'));
  }
  const oneOf = 'exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required';
  if (set.length === 0) errs.push(required('spec', oneOf));
  else if (set.length > 1) errs.push(invalid('spec', `{${set.join(', ')}}`, `${oneOf}, but multiple fields are set`));
  if (has(spec.sharedCounters) && has(spec.devices)) errs.push(invalid('spec', '', 'only one of `sharedCounters` or `devices` is allowed'));
  const devices = objs(spec.devices);
  const advanced = devices.some((d) => list(d.taints).length > 0 || list(d.consumesCounters).length > 0 ||
    Object.values(obj(d.attributes)).some((a) => ['bools', 'ints', 'strings', 'versions'].some((k) => has(obj(a)[k]))));
  const oldDevices = new Map(objs(old?.devices).map((d) => [str(d.name), d]));
  errs.push(...uniqueBounded(devices, advanced ? SLICE_MAX_DEVICES_ADVANCED : SLICE_MAX_DEVICES, 'spec.devices',
    (d, p) => validateDevice(d, oldDevices.get(str(d.name)), p, spec.perDeviceNodeSelection === true), (d) => str(d.name)));
  errs.push(...uniqueBounded(objs(spec.sharedCounters), SLICE_MAX_COUNTER_SETS, 'spec.sharedCounters', (c, p) => [
    ...validateCounters(str(c.name), c.counters, p, 'name'),
  ], (c) => str(c.name)));
  return errs;
}

export function validateResourceSlice(slice: Obj): FieldError[] {
  return validateSliceSpec(obj(slice.spec), undefined);
}

export function validateResourceSliceUpdate(slice: Obj, old: Obj): FieldError[] {
  return validateSliceSpec(obj(slice.spec), obj(old.spec));
}

// ---- DeviceTaintRule ----

function validateTaintRuleSpec(spec: Obj, old: Obj | undefined): FieldError[] {
  const errs: FieldError[] = [];
  if (isObj(spec.deviceSelector)) {
    const s = spec.deviceSelector;
    if (typeof s.driver === 'string') errs.push(...validateDriverName(s.driver, 'spec.deviceSelector.driver'));
    if (typeof s.pool === 'string') errs.push(...validatePoolName(s.pool, 'spec.deviceSelector.pool'));
    if (typeof s.device === 'string') errs.push(...validateDeviceName(s.device, 'spec.deviceSelector.device'));
  }
  errs.push(...validateTaint(obj(spec.taint), old ? str(obj(old.taint).effect) : undefined, 'spec.taint'));
  return errs;
}

export function validateDeviceTaintRule(rule: Obj): FieldError[] {
  return validateTaintRuleSpec(obj(rule.spec), undefined);
}

export function validateDeviceTaintRuleUpdate(rule: Obj, old: Obj): FieldError[] {
  return validateTaintRuleSpec(obj(rule.spec), obj(old.spec));
}

/** ValidateDeviceTaintRuleStatusUpdate: the conditions, then their number. */
export function validateDeviceTaintRuleStatusUpdate(rule: Obj): FieldError[] {
  const conditions = list(obj(rule.status).conditions);
  const errs = validateMetaConditions(conditions, 'status.conditions');
  if (conditions.length > TAINT_RULE_STATUS_MAX_CONDITIONS) errs.push(tooMany('status.conditions', conditions.length, TAINT_RULE_STATUS_MAX_CONDITIONS));
  return errs;
}


// ---- ResourcePoolStatusRequest (v1alpha3) ----

const POOL_STATUS_REQUEST_LIMIT_MAX = 1000;

/** validateResourcePoolStatusRequestSpec (validation_resourcepoolstatusrequest.go). */
export function validateResourcePoolStatusRequest(request: Obj): FieldError[] {
  const spec = obj(request.spec);
  const driver = str(spec.driver);
  const errs = driver === '' ? [required('spec.driver', 'driver name is required')] : validateDriverName(driver, 'spec.driver');
  if (str(spec.poolName) !== '') errs.push(...validatePoolName(str(spec.poolName), 'spec.poolName'));
  if (typeof spec.limit === 'number') {
    if (spec.limit < 1) errs.push(invalid('spec.limit', spec.limit, 'must be at least 1'));
    if (spec.limit > POOL_STATUS_REQUEST_LIMIT_MAX) errs.push(invalid('spec.limit', spec.limit, `must not exceed ${POOL_STATUS_REQUEST_LIMIT_MAX}`));
  }
  return errs;
}

/** ValidateResourcePoolStatusRequestUpdate: the spec is immutable once created. */
export function validateResourcePoolStatusRequestUpdate(request: Obj, old: Obj): FieldError[] {
  return immutable(request.spec, old.spec, 'spec', goJson('resource.ResourcePoolStatusRequestSpec{...}'));
}
