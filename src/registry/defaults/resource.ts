import { nowTimestamp, type KubeObject } from '../../machinery/object.js';
import { defaultNumber, defaultPtr, defaultString, ensureObject, isEmptyString, isNil, isObject, objectAt, objectsAt, type JsonObject } from './util.js';

/**
 * resource.k8s.io (dynamic resource allocation) defaulting, per served
 * version, as kube-apiserver 1.36 applies it when it decodes a request:
 *   pkg/apis/resource/{v1,v1beta1,v1beta2,v1alpha3}/defaults.go (SetDefaults_*)
 *   the `+default` tags of staging/src/k8s.io/api/resource/<version>/types.go
 *     (DeviceToleration.operator "Equal"; v1alpha3 ResourcePoolStatusRequestSpec.limit 100)
 *   and the zz_generated.defaults.go walks that reach them.
 *
 * v1beta1 is defaulted in its own shape (allocationMode and count beside
 * deviceClassName, devices under `basic`) before conversions/resource.ts moves
 * it to v1, as kube's decoder defaults before converting. DeviceClass has no
 * defaults in any version.
 */

const EXACT_COUNT = 'ExactCount';

/** SetDefaults_ExactDeviceRequest and SetDefaults_DeviceSubRequest (and v1beta1's DeviceRequest once it has a class). */
function defaultAllocationMode(request: JsonObject): void {
  defaultString(request, 'allocationMode', EXACT_COUNT);
  if (request.allocationMode === EXACT_COUNT) defaultNumber(request, 'count', 1);
}

/** DeviceToleration.operator: `+default="Equal"`. */
function defaultTolerations(holder: JsonObject): void {
  for (const toleration of objectsAt(holder, 'tolerations')) defaultString(toleration, 'operator', 'Equal');
}

function defaultSubRequests(request: JsonObject): void {
  for (const sub of objectsAt(request, 'firstAvailable')) {
    defaultAllocationMode(sub);
    defaultTolerations(sub);
  }
}

/** v1 and v1beta2 requests: the exact request sits under `exactly`. */
function defaultRequest(request: JsonObject): void {
  const exactly = objectAt(request, 'exactly');
  if (exactly) {
    defaultAllocationMode(exactly);
    defaultTolerations(exactly);
  }
  defaultSubRequests(request);
}

/**
 * v1beta1 requests hold the exact request's fields themselves. A request
 * without deviceClassName is one of firstAvailable subrequests, whose mode and
 * count must stay unset (v1beta1 SetDefaults_DeviceRequest).
 */
function defaultRequestV1beta1(request: JsonObject): void {
  if (!isEmptyString(request.deviceClassName)) defaultAllocationMode(request);
  defaultTolerations(request);
  defaultSubRequests(request);
}

type RequestDefaulter = (request: JsonObject) => void;

function defaultClaimSpec(spec: JsonObject | undefined, defaultOne: RequestDefaulter): void {
  const devices = spec && objectAt(spec, 'devices');
  if (devices) for (const request of objectsAt(devices, 'requests')) defaultOne(request);
}

/** The allocation results' tolerations (status.allocation is a pointer). */
function defaultClaimStatus(status: JsonObject | undefined): void {
  const devices = objectAt(objectAt(status ?? {}, 'allocation') ?? {}, 'devices');
  if (devices) for (const result of objectsAt(devices, 'results')) defaultTolerations(result);
}

function claimDefaulter(defaultOne: RequestDefaulter): (claim: KubeObject) => void {
  return (claim) => {
    defaultClaimSpec(objectAt(claim, 'spec'), defaultOne);
    defaultClaimStatus(objectAt(claim, 'status'));
  };
}

function claimTemplateDefaulter(defaultOne: RequestDefaulter): (template: KubeObject) => void {
  return (template) => defaultClaimSpec(objectAt(objectAt(template, 'spec') ?? {}, 'spec'), defaultOne);
}

/**
 * SetDefaults_DeviceTaint: a taint without timeAdded was added now. kube
 * truncates to seconds, which is also all the wire format keeps.
 */
function defaultTaint(taint: JsonObject): void {
  if (isNil(taint.timeAdded)) taint.timeAdded = nowTimestamp();
}

/**
 * SetDefaults_Device (v1beta1: the BasicDevice): each node allocatable
 * resource mapping multiplies by 1 unless it says otherwise. A null map value
 * decodes to Go's zero mapping, which gets the default too.
 */
function defaultDeviceFields(device: JsonObject): void {
  const mappings = objectAt(device, 'nodeAllocatableResourceMappings');
  if (mappings) {
    for (const [name, mapping] of Object.entries(mappings)) {
      if (isObject(mapping)) defaultPtr(mapping, 'allocationMultiplier', '1');
      else if (mapping === null) mappings[name] = { allocationMultiplier: '1' };
    }
  }
  for (const taint of objectsAt(device, 'taints')) defaultTaint(taint);
}

function sliceDefaulter(deviceFieldsOf: (device: JsonObject) => JsonObject | undefined): (slice: KubeObject) => void {
  return (slice) => {
    const spec = objectAt(slice, 'spec');
    if (!spec) return;
    for (const device of objectsAt(spec, 'devices')) {
      const fields = deviceFieldsOf(device);
      if (fields) defaultDeviceFields(fields);
    }
  };
}

/** DeviceTaintRuleSpec.taint is a struct, so Go defaults it even when the request has none. */
export function defaultDeviceTaintRule(rule: KubeObject): void {
  defaultTaint(ensureObject(ensureObject(rule, 'spec'), 'taint'));
}

/** ResourcePoolStatusRequestSpec.limit: `+default=100` (ResourcePoolStatusRequestLimitDefault). */
export function defaultResourcePoolStatusRequest(request: KubeObject): void {
  defaultPtr(ensureObject(request, 'spec'), 'limit', 100);
}

/** v1 and v1beta2 (the same schema). */
export const defaultResourceClaim = claimDefaulter(defaultRequest);
export const defaultResourceClaimTemplate = claimTemplateDefaulter(defaultRequest);
export const defaultResourceSlice = sliceDefaulter((device) => device);

export const defaultResourceClaimV1beta1 = claimDefaulter(defaultRequestV1beta1);
export const defaultResourceClaimTemplateV1beta1 = claimTemplateDefaulter(defaultRequestV1beta1);
export const defaultResourceSliceV1beta1 = sliceDefaulter((device) => objectAt(device, 'basic'));
