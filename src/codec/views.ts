import { badRequest } from '../machinery/errors.js';
import type { KubeObject } from '../machinery/object.js';
import type { TableConvertor } from './table-convertor.js';

/**
 * Alternative representations of objects and lists (meta.k8s.io Table and
 * PartialObjectMetadata), as kube-apiserver's transformResponseObject builds them.
 */

export type IncludeObject = 'None' | 'Object' | 'Metadata';

export function parseIncludeObject(value: string | null): IncludeObject {
  if (value === null || value === '') return 'Metadata';
  if (value === 'None' || value === 'Object' || value === 'Metadata') return value;
  throw badRequest(`includeObject: Unsupported value: "${value}": supported values: "Metadata", "None", "Object"`);
}

export interface ListMeta {
  [field: string]: unknown;
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export function partialObjectMetadata(obj: KubeObject, version: string): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata ?? {} };
}

export function partialObjectMetadataList(items: KubeObject[], meta: ListMeta, version: string): KubeObject {
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion: `meta.k8s.io/${version}`,
    metadata: meta,
    items: items.map((i) => partialObjectMetadata(i, version)),
  };
}

export function table(
  objects: KubeObject[],
  convertor: TableConvertor,
  opts: { version: string; includeObject: IncludeObject; listMeta?: ListMeta; omitHeaders?: boolean },
): KubeObject {
  const now = Date.now();
  const ordered = convertor.compare ? [...objects].sort((a, b) => convertor.compare!(a, b)) : objects;
  const rows = ordered.map((o) => {
    const row: Record<string, unknown> = { cells: convertor.cells(o, now) };
    const conditions = convertor.conditions?.(o);
    if (conditions && conditions.length > 0) row.conditions = conditions;
    if (opts.includeObject === 'Object') row.object = o;
    else if (opts.includeObject === 'Metadata') row.object = partialObjectMetadata(o, opts.version);
    return row;
  });
  const out: KubeObject = {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${opts.version}`,
    metadata: opts.listMeta ?? {},
  };
  if (!opts.omitHeaders || convertor.alwaysColumnDefinitions) out.columnDefinitions = convertor.columns;
  out.rows = rows;
  return out;
}
