import type { TableConvertor } from '../codec/table-convertor.js';
import { evaluateJsonPath, parseJsonPath, printJsonPathValue, type PathNode } from '../apiextensions/jsonpath.js';
import type { KubeObject } from '../machinery/object.js';
import { col, doc, nameCol, printer } from './tables/columns.js';
import { humanDuration, nameOf, timeOf } from './tables/format.js';

/**
 * The Table of a custom resource version (apiextensions-apiserver
 * pkg/registry/customresource/tableconvertor): Name, then the version's
 * additionalPrinterColumns, each cell the first value its JSONPath selects,
 * typed as the column says; without columns, kube's default Age column.
 */

export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** kube's serveDefaultColumnsIfEmpty: a version without columns shows its age. */
export function defaultColumns(): PrinterColumn[] {
  return [{ name: 'Age', type: 'date', description: doc(OBJECT_META, 'creationTimestamp'), jsonPath: '.metadata.creationTimestamp' }];
}

/** cellForJSONValue: the JSON value as the column's type, or null. */
function typedCell(type: string, value: unknown, now: number): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      const t = timeOf(value);
      return t === undefined ? '<invalid>' : humanDuration(now - t);
    }
    default:
      return null;
  }
}

export function customTable(columns: readonly PrinterColumn[]): TableConvertor {
  const cols = columns.length > 0 ? columns : defaultColumns();
  // A path client-go cannot parse leaves its cells empty.
  const paths: Array<PathNode[] | undefined> = cols.map((c) => {
    try {
      return parseJsonPath(c.jsonPath);
    } catch {
      return undefined;
    }
  });
  return printer(
    () => [nameCol(), ...cols.map((c) => col(c.name, c.type, c.description ?? '', c.priority ?? 0, c.format ?? ''))],
    (obj: KubeObject, now: number) => [
      nameOf(obj),
      ...cols.map((c, i) => {
        const path = paths[i];
        if (!path) return null;
        const found = evaluateJsonPath(path, obj);
        if (found.length === 0) return null;
        const value = found[0];
        if (c.type === 'string') return value === undefined || value === null ? null : printJsonPathValue(value);
        return typedCell(c.type, value, now);
      }),
    ],
  );
}
