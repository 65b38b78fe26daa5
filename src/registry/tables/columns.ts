import { definition } from '../../api/definitions.js';
import type { KubeObject } from '../../machinery/object.js';
import type { ColumnDefinition, TableConvertor } from '../../codec/table-convertor.js';

/**
 * Column definitions as kube's printers declare them, with descriptions taken
 * from the same Go doc comments kube uses (SwaggerDoc()), read from the 1.36
 * OpenAPI definitions the catalog was generated from.
 */

/**
 * SwaggerDoc()[field] of an API type, named by its OpenAPI definition (e.g.
 * `io.k8s.api.core.v1.PodSpec`). "" when there is no such field, as a Go map
 * lookup of a missing key gives.
 */
export function doc(defName: string, field: string): string {
  const props = definition(defName)?.properties;
  if (typeof props !== 'object' || props === null || Array.isArray(props)) return '';
  const p = props[field];
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return '';
  return typeof p.description === 'string' ? p.description : '';
}

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

export function col(name: string, type: string, description: string, priority = 0, format = ''): ColumnDefinition {
  return { name, type, format, description, priority };
}

/** {Name: "Name", Type: "string", Format: "name", Description: ObjectMeta name}. */
export function nameCol(priority = 0): ColumnDefinition {
  return col('Name', 'string', doc(META, 'name'), priority, 'name');
}

/** {Name: "Age", Type: "string", Description: ObjectMeta creationTimestamp}. */
export function ageCol(): ColumnDefinition {
  return col('Age', 'string', doc(META, 'creationTimestamp'));
}

export const CONTAINERS_DESCRIPTION = 'Names of each container in the template.';
export const IMAGES_DESCRIPTION = 'Images referenced by each container in the template.';

/** The Containers and Images columns of the workload printers (wide unless said otherwise). */
export function containerCols(priority = 1): ColumnDefinition[] {
  return [col('Containers', 'string', CONTAINERS_DESCRIPTION, priority), col('Images', 'string', IMAGES_DESCRIPTION, priority)];
}

export type CellsFn = (obj: KubeObject, now: number) => unknown[];

/**
 * A convertor whose columns are built on first use, so that reading the
 * definitions file waits until a table is actually asked for.
 */
export function printer(columns: () => ColumnDefinition[], cells: CellsFn, extra: Pick<TableConvertor, 'conditions' | 'compare' | 'alwaysColumnDefinitions'> = {}): TableConvertor {
  let built: ColumnDefinition[] | undefined;
  return {
    get columns(): ColumnDefinition[] {
      built ??= columns();
      return built;
    },
    cells,
    ...extra,
  };
}
