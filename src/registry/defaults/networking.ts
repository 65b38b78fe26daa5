import type { KubeObject } from '../../machinery/object.js';
import { defaultPtr, ensureObject, isEmptyCollection, objectAt, objectsAt } from './util.js';

/** networking.k8s.io/v1 and discovery.k8s.io/v1 defaulting. */

export function defaultNetworkPolicy(np: KubeObject): void {
  const spec = ensureObject(np, 'spec');
  for (const rule of [...objectsAt(spec, 'ingress'), ...objectsAt(spec, 'egress')]) {
    for (const port of objectsAt(rule, 'ports')) defaultPtr(port, 'protocol', 'TCP');
  }
  // A policy without policyTypes is at least an Ingress policy, and an Egress
  // one too when it has egress rules.
  if (isEmptyCollection(spec.policyTypes)) {
    spec.policyTypes = isEmptyCollection(spec.egress) ? ['Ingress'] : ['Ingress', 'Egress'];
  }
}

export function defaultIngressClass(ic: KubeObject): void {
  const params = objectAt(ensureObject(ic, 'spec'), 'parameters');
  if (params) defaultPtr(params, 'scope', 'Cluster');
}

export function defaultEndpointSlice(slice: KubeObject): void {
  for (const port of objectsAt(slice, 'ports')) {
    defaultPtr(port, 'name', '');
    defaultPtr(port, 'protocol', 'TCP');
  }
}
