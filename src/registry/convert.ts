import type { ResourceInfo } from '../api/types.js';
import { apiVersionOf, cloneObject, type KubeObject } from '../machinery/object.js';

/**
 * Conversion between a served version and the storage version of a resource.
 * Versions that share a schema convert by rewriting apiVersion/kind; types
 * whose versions differ register a pair of functions here.
 */

type ConvertFn = (obj: KubeObject) => KubeObject;

interface Conversion {
  /** Must not change its argument (the request's object). */
  toStorage: ConvertFn;
  /** Given a copy of the stored object, which it may change and return. */
  fromStorage: ConvertFn;
}

/** Keyed by `<served group>/<served version>/<kind>` → conversion to/from storage. */
const CONVERSIONS = new Map<string, Conversion>();

export function registerConversion(served: { group: string; version: string; kind: string }, conv: Conversion): void {
  CONVERSIONS.set(`${served.group}/${served.version}/${served.kind}`, conv);
}

function conversionFor(info: ResourceInfo): Conversion | undefined {
  if (info.storage.group === info.group && info.storage.version === info.version && info.storage.kind === info.kind) return undefined;
  return CONVERSIONS.get(`${info.group}/${info.version}/${info.kind}`);
}

/** The object as stored: apiVersion/kind of the storage version. */
export function toStorageVersion(obj: KubeObject, info: ResourceInfo): KubeObject {
  const conv = conversionFor(info);
  const out = conv ? conv.toStorage(obj) : { ...obj };
  out.apiVersion = apiVersionOf(info.storage.group, info.storage.version);
  out.kind = info.storage.kind;
  return out;
}

/** The stored object as the requested version; never mutates its input. */
export function toServedVersion(obj: KubeObject, info: ResourceInfo): KubeObject {
  const conv = conversionFor(info);
  const out = conv ? conv.fromStorage(cloneObject(obj)) : { ...obj };
  return { apiVersion: apiVersionOf(info.group, info.version), kind: info.kind, ...withoutTypeMeta(out) };
}

function withoutTypeMeta(obj: KubeObject): KubeObject {
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}
