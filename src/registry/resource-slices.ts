import type { FeatureGates } from '../machinery/feature-gates.js';
import { isRecord } from '../machinery/json.js';
import type { KubeObject } from '../machinery/object.js';

/**
 * What kube's ResourceSlice strategy does beyond the facts table
 * (pkg/registry/resource/resourceslice/strategy.go, dropDisabledFields): the
 * fields of a DRA feature whose gate is off are dropped on create, and on
 * update unless the stored slice already uses them. The slice is in the
 * storage version (v1), whatever version the request came through. Of the
 * gated device fields 1.36 has, these are the ones whose gate is off by
 * default (alpha); the others' gates are on.
 */

type JsonObject = Record<string, unknown>;

/** DeviceAttribute's list values (DRAListTypeAttributes). */
const LIST_ATTRIBUTE_VALUES = ['bools', 'ints', 'strings', 'versions'] as const;

function devicesOf(slice: KubeObject | undefined): JsonObject[] {
  const spec = slice?.spec;
  return isRecord(spec) && Array.isArray(spec.devices) ? spec.devices.filter(isRecord) : [];
}

function attributesOf(device: JsonObject): JsonObject[] {
  return isRecord(device.attributes) ? Object.values(device.attributes).filter(isRecord) : [];
}

/** A Go slice or pointer that is set: present and not null (an empty list counts). */
function isSet(v: unknown): boolean {
  return v !== undefined && v !== null;
}

function usesNodeAllocatableResources(slice: KubeObject | undefined): boolean {
  return devicesOf(slice).some((d) => isRecord(d.nodeAllocatableResourceMappings) && Object.keys(d.nodeAllocatableResourceMappings).length > 0);
}

function usesListTypeAttributes(slice: KubeObject | undefined): boolean {
  return devicesOf(slice).some((d) => attributesOf(d).some((a) => LIST_ATTRIBUTE_VALUES.some((k) => isSet(a[k]))));
}

/** `old` is the stored slice on updates, undefined on create. */
export function dropDisabledSliceFields(slice: KubeObject, old: KubeObject | undefined, gates: FeatureGates): void {
  if (!gates.enabled('DRANodeAllocatableResources') && !usesNodeAllocatableResources(old)) {
    for (const device of devicesOf(slice)) delete device.nodeAllocatableResourceMappings;
  }
  if (!gates.enabled('DRAListTypeAttributes') && !usesListTypeAttributes(old)) {
    for (const device of devicesOf(slice)) {
      for (const attribute of attributesOf(device)) for (const k of LIST_ATTRIBUTE_VALUES) delete attribute[k];
    }
  }
}
