import { cloneObject, type KubeObject } from '../machinery/object.js';
import type { ScaleView } from './descriptor.js';

/**
 * The scale subresource of a custom resource (apiextensions-apiserver
 * pkg/registry/customresource: scaleFromCustomResource and its update): the
 * Scale's replicas come from specReplicasPath and statusReplicasPath, its
 * selector from labelSelectorPath (a string, as HPAs read it); a write sets
 * the value at specReplicasPath.
 */

export interface ScalePaths {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** ".spec.replicas" → ["spec", "replicas"]. */
function segments(path: string): string[] {
  return path.split('.').slice(1);
}

function nested(obj: unknown, path: string[]): unknown {
  let cur = obj;
  for (const s of path) {
    if (typeof cur !== 'object' || cur === null || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[s];
  }
  return cur;
}

function replicasAt(obj: KubeObject, path: string): number {
  const v = nested(obj, segments(path));
  return typeof v === 'number' ? Math.trunc(v) : 0;
}

export function customScale(paths: ScalePaths): ScaleView {
  return {
    scaleOf(parent) {
      const meta = parent.metadata ?? {};
      const status: Record<string, unknown> = { replicas: replicasAt(parent, paths.statusReplicasPath) };
      if (paths.labelSelectorPath) {
        const selector = nested(parent, segments(paths.labelSelectorPath));
        if (typeof selector === 'string' && selector !== '') status.selector = selector;
      }
      const scaleMeta: Record<string, unknown> = { name: meta.name, namespace: meta.namespace, uid: meta.uid, resourceVersion: meta.resourceVersion, creationTimestamp: meta.creationTimestamp };
      return { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: scaleMeta, spec: { replicas: replicasAt(parent, paths.specReplicasPath) }, status };
    },
    withReplicas(parent, replicas) {
      const next = cloneObject(parent);
      const path = segments(paths.specReplicasPath);
      let cur = next as Record<string, unknown>;
      for (const s of path.slice(0, -1)) {
        const child = cur[s];
        if (typeof child !== 'object' || child === null || Array.isArray(child)) cur[s] = {};
        cur = cur[s] as Record<string, unknown>;
      }
      cur[path[path.length - 1]!] = replicas;
      return next;
    },
  };
}
