/**
 * The structural view of a custom resource version's openAPIV3Schema, as
 * kube's apiextensions-apiserver builds it once per CRD version
 * (pkg/apiserver/schema/structural.go): the shape of an object (types,
 * properties, items, additionalProperties, defaults, nullable and the
 * x-kubernetes-* extensions) without the value validations, which stay in
 * the raw schema the value validator reads.
 *
 * The parser is lenient: it reads what is there and ignores malformed parts;
 * validateCustomResourceSchema reports them when the CRD is written.
 */

import { type JsonObject, type JsonValue, getOwn, isJsonObject } from '../../machinery/json-value.js';

export interface Structural {
  readonly type: string;
  readonly format: string;
  readonly nullable: boolean;
  /** The default value, when the schema has one (null counts as none, as in kube's JSON.Object == nil). */
  readonly default?: JsonValue;
  readonly properties: ReadonlyMap<string, Structural>;
  readonly items?: Structural;
  /** A schema, `true` (any value, kept) or undefined (no additionalProperties). */
  readonly additionalProperties?: Structural | true;
  readonly preserveUnknownFields: boolean;
  readonly embeddedResource: boolean;
  readonly intOrString: boolean;
  readonly listType?: string;
  readonly listMapKeys: readonly string[];
  readonly mapType?: string;
  /** The raw node: value validation (enum, pattern, allOf, ...) reads it. */
  readonly raw: JsonObject;
}

const EMPTY: ReadonlyMap<string, Structural> = new Map();

function str(v: JsonValue | undefined): string {
  return typeof v === 'string' ? v : '';
}

/** Parses one schema node (and everything under it). */
export function parseStructural(raw: JsonObject): Structural {
  const props = getOwn(raw, 'properties');
  let properties: Map<string, Structural> | undefined;
  if (isJsonObject(props)) {
    for (const [k, v] of Object.entries(props)) {
      if (!isJsonObject(v)) continue;
      (properties ??= new Map()).set(k, parseStructural(v));
    }
  }
  const itemsRaw = getOwn(raw, 'items');
  const apRaw = getOwn(raw, 'additionalProperties');
  const def = getOwn(raw, 'default');
  const keys = getOwn(raw, 'x-kubernetes-list-map-keys');
  const listType = getOwn(raw, 'x-kubernetes-list-type');
  const mapType = getOwn(raw, 'x-kubernetes-map-type');
  return {
    type: str(getOwn(raw, 'type')),
    format: str(getOwn(raw, 'format')),
    nullable: getOwn(raw, 'nullable') === true,
    ...(def !== undefined && def !== null ? { default: def } : {}),
    properties: properties ?? EMPTY,
    ...(isJsonObject(itemsRaw) ? { items: parseStructural(itemsRaw) } : {}),
    ...(isJsonObject(apRaw) ? { additionalProperties: parseStructural(apRaw) } : apRaw === true ? { additionalProperties: true as const } : {}),
    preserveUnknownFields: getOwn(raw, 'x-kubernetes-preserve-unknown-fields') === true,
    embeddedResource: getOwn(raw, 'x-kubernetes-embedded-resource') === true,
    intOrString: getOwn(raw, 'x-kubernetes-int-or-string') === true,
    ...(typeof listType === 'string' ? { listType } : {}),
    listMapKeys: Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : [],
    ...(typeof mapType === 'string' ? { mapType } : {}),
    raw,
  };
}

/** The schema of a map's values: additionalProperties as a schema, or undefined (none, or `true`). */
export function additionalSchema(s: Structural): Structural | undefined {
  return s.additionalProperties === true ? undefined : s.additionalProperties;
}

/** The same schema marked as an embedded resource (kube treats the resource root as one). */
export function asResourceRoot(s: Structural | undefined): Structural {
  const base = s ?? parseStructural({});
  return base.embeddedResource ? base : { ...base, embeddedResource: true };
}
