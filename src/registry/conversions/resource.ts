/**
 * resource.k8s.io/v1beta1 ResourceClaim, ResourceClaimTemplate and
 * ResourceSlice <-> their storage version resource.k8s.io/v1, as
 * kube-apiserver 1.36 converts them (through the internal type, shaped like
 * v1):
 *   pkg/apis/resource/v1beta1/conversion.go             the hand-written parts below
 *   pkg/apis/resource/v1beta1/zz_generated.conversion.go everything else, field for field
 *   pkg/apis/resource/v1beta1/conversion_test.go        the cases test/unit/conversions.test.ts repeats
 *
 *   v1beta1                                   v1
 *   DeviceRequest.{deviceClassName, selectors,  DeviceRequest.exactly.{...} (ExactDeviceRequest),
 *     allocationMode, count, adminAccess,         created when any of them is set, even if invalid
 *     tolerations, capacity}                      (validation says so, not the conversion)
 *   Device.basic.{attributes, capacity, ...}    Device.{attributes, capacity, ...}; v1 -> v1beta1
 *                                               always writes `basic`, empty or not
 *   ResourceSliceSpec.nodeName "" / allNodes    ResourceSliceSpec.nodeName / allNodes are pointers:
 *     false (plain fields)                        "" and false become unset
 *
 * DeviceSubRequest (firstAvailable), the claim status (allocation results,
 * devices) and DeviceClass are the same in both versions. Nothing travels in
 * annotations: the two versions hold the same data.
 *
 * Unknown keys never reach here (field validation drops or rejects them),
 * and the codec writes either version in Go's field order and omitempty
 * rules, so these functions only move fields.
 */
import { cloneObject, type KubeObject } from '../../machinery/object.js';
import { isRecord } from '../../machinery/json.js';

type JsonObject = Record<string, unknown>;

/** The v1beta1 DeviceRequest fields that v1 holds in `exactly`, in ExactDeviceRequest's order. */
const EXACT_REQUEST_FIELDS = ['deviceClassName', 'selectors', 'allocationMode', 'count', 'adminAccess', 'tolerations', 'capacity'] as const;

/** Is the Go field set after decoding: a non-empty string, a non-zero number, a non-nil slice, pointer or struct pointer. */
function isSetInGo(field: (typeof EXACT_REQUEST_FIELDS)[number], v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (field === 'deviceClassName' || field === 'allocationMode') return v !== '';
  if (field === 'count') return v !== 0;
  // selectors and tolerations: `[]` is a non-nil empty slice; adminAccess: *bool; capacity: *CapacityRequirements.
  return true;
}

function objectsOf(v: unknown): JsonObject[] {
  return Array.isArray(v) ? v.filter(isRecord) : [];
}

/** The request list of a claim spec (ResourceClaimSpec.devices.requests), if any. */
function requestsOf(claimSpec: unknown): JsonObject[] {
  if (!isRecord(claimSpec) || !isRecord(claimSpec.devices)) return [];
  return objectsOf(claimSpec.devices.requests);
}

/** kube's hasAnyMainRequestFieldsSet, then the fields moved under `exactly`. */
function requestToV1(request: JsonObject): void {
  const exactly: JsonObject = {};
  let set = false;
  for (const field of EXACT_REQUEST_FIELDS) {
    const v = request[field];
    delete request[field];
    if (v === undefined || v === null) continue;
    if (isSetInGo(field, v)) set = true;
    exactly[field] = v;
  }
  if (set) request.exactly = exactly;
}

function requestFromV1(request: JsonObject): void {
  const exactly = request.exactly;
  delete request.exactly;
  if (!isRecord(exactly)) return;
  for (const field of EXACT_REQUEST_FIELDS) {
    const v = exactly[field];
    if (v !== undefined && v !== null) request[field] = v;
  }
}

/** v1beta1 Device {name, basic} -> v1 Device with basic's fields on it. */
function deviceToV1(device: JsonObject): JsonObject {
  const basic = device.basic;
  return { name: device.name, ...(isRecord(basic) ? withoutKey(basic, 'name') : {}) };
}

/** v1 Device -> v1beta1 {name, basic}: kube always allocates `basic`. */
function deviceFromV1(device: JsonObject): JsonObject {
  return { name: device.name, basic: withoutKey(device, 'name') };
}

function withoutKey(o: JsonObject, key: string): JsonObject {
  const { [key]: _dropped, ...rest } = o;
  return rest;
}

function mapDevices(spec: JsonObject, fn: (device: JsonObject) => JsonObject): void {
  if (!Array.isArray(spec.devices)) return;
  spec.devices = spec.devices.map((d: unknown) => (isRecord(d) ? fn(d) : d));
}

/**
 * The plain v1beta1 nodeName / allNodes against v1's pointers: a zero value
 * is "unset" in v1beta1, so it is no field at all in v1 (and v1's explicit ""
 * or false reads back as the unset zero value in v1beta1).
 */
function dropZeroNodeSelection(spec: JsonObject): void {
  if (spec.nodeName === '') delete spec.nodeName;
  if (spec.allNodes === false) delete spec.allNodes;
}

// ------------------------------------------------------------------ kinds

/**
 * One kind's pair: toStorage copies its argument; fromStorage changes the
 * copy convert.ts hands it (a list read converts every item, so no second copy).
 */
export interface ResourceConversion {
  toStorage(obj: KubeObject): KubeObject;
  fromStorage(copy: KubeObject): KubeObject;
}

function claimSpecOf(obj: KubeObject): unknown {
  return obj.spec;
}

function templateClaimSpecOf(obj: KubeObject): unknown {
  return isRecord(obj.spec) ? obj.spec.spec : undefined;
}

function claimConversion(specOf: (obj: KubeObject) => unknown): ResourceConversion {
  return {
    toStorage(obj) {
      const out = cloneObject(obj);
      for (const request of requestsOf(specOf(out))) requestToV1(request);
      return out;
    },
    fromStorage(copy) {
      for (const request of requestsOf(specOf(copy))) requestFromV1(request);
      return copy;
    },
  };
}

export const RESOURCE_CLAIM_V1BETA1 = claimConversion(claimSpecOf);
export const RESOURCE_CLAIM_TEMPLATE_V1BETA1 = claimConversion(templateClaimSpecOf);

export const RESOURCE_SLICE_V1BETA1: ResourceConversion = {
  toStorage(obj) {
    const out = cloneObject(obj);
    if (isRecord(out.spec)) {
      dropZeroNodeSelection(out.spec);
      mapDevices(out.spec, deviceToV1);
    }
    return out;
  },
  fromStorage(copy) {
    if (isRecord(copy.spec)) {
      dropZeroNodeSelection(copy.spec);
      mapDevices(copy.spec, deviceFromV1);
    }
    return copy;
  },
};
