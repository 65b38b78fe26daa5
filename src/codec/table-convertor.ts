import type { KubeObject } from '../machinery/object.js';

/**
 * How a resource's objects render as meta.k8s.io/v1 Table rows (kube's
 * TableConvertor); each resource's descriptor provides one.
 */

export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

/** metav1.TableRowCondition: pods mark finished rows Completed. */
export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface TableConvertor {
  columns: ColumnDefinition[];
  /** The row's cells; kube's server-side printers always produce the wide (-o wide) cells too. */
  cells(obj: KubeObject, now: number): unknown[];
  /** Row conditions (metav1.TableRow.conditions), where the printer sets them. */
  conditions?(obj: KubeObject): TableRowCondition[] | undefined;
  /** The order a list is printed in, where the list printer sorts (FlowSchemas); otherwise list order. */
  compare?(a: KubeObject, b: KubeObject): number;
  /** Column definitions even when a watch omits them after the first event (kube-aggregator's table). */
  alwaysColumnDefinitions?: boolean;
}

