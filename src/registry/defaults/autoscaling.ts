import type { KubeObject } from '../../machinery/object.js';
import { defaultPtr, ensureObject, isEmptyCollection, isNil, objectAt, type JsonObject } from './util.js';

/** autoscaling/v1 and autoscaling/v2 HorizontalPodAutoscaler defaulting. */

export function defaultHPAv1(hpa: KubeObject): void {
  defaultPtr(ensureObject(hpa, 'spec'), 'minReplicas', 1);
}

export function defaultHPAv2(hpa: KubeObject): void {
  const spec = ensureObject(hpa, 'spec');
  defaultPtr(spec, 'minReplicas', 1);
  if (isEmptyCollection(spec.metrics)) {
    // The v1 behaviour: scale on 80% average CPU utilization.
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
  }
  const behavior = objectAt(spec, 'behavior');
  if (behavior) {
    // Each direction is filled from the defaults field by field; scale-down
    // keeps a nil stabilization window (the controller flag decides it).
    behavior.scaleUp = mergeRules(objectAt(behavior, 'scaleUp'), {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
    });
    behavior.scaleDown = mergeRules(objectAt(behavior, 'scaleDown'), {
      selectPolicy: 'Max',
      policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
    });
  }
}

function mergeRules(given: JsonObject | undefined, defaults: JsonObject): JsonObject {
  if (!given) return defaults;
  const out = { ...defaults };
  for (const key of ['selectPolicy', 'stabilizationWindowSeconds', 'policies', 'tolerance']) {
    if (!isNil(given[key])) out[key] = given[key];
  }
  return out;
}
