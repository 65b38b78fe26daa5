import type { KubeObject } from '../../machinery/object.js';
import { objectCountName, type QuotaEvaluator } from './evaluator.js';
import { count, intersection, ZERO, type ResourceList } from './resources.js';

/** pkg/quota/v1/evaluator/core/services.go: services, load balancers and node ports. */
const SERVICE_RESOURCES = [objectCountName('', 'services'), 'services', 'services.loadbalancers', 'services.nodeports'];

interface ServiceSpec {
  type?: string;
  ports?: Array<{ nodePort?: number }>;
  allocateLoadBalancerNodePorts?: boolean;
}

function serviceUsage(svc: KubeObject): ResourceList {
  const spec = (svc.spec ?? {}) as ServiceSpec;
  const ports = Array.isArray(spec.ports) ? spec.ports : [];
  const usage: ResourceList = new Map([
    [objectCountName('', 'services'), count(1)],
    ['services', count(1)],
    ['services.loadbalancers', ZERO],
    ['services.nodeports', ZERO],
  ]);
  if (spec.type === 'NodePort') usage.set('services.nodeports', count(ports.length));
  if (spec.type === 'LoadBalancer') {
    // Node ports not allocated yet: the intent counts, only explicit ones when allocation is off.
    const nodePorts = spec.allocateLoadBalancerNodePorts === false ? ports.filter((p) => p && p.nodePort).length : ports.length;
    usage.set('services.nodeports', count(nodePorts));
    usage.set('services.loadbalancers', count(1));
  }
  return usage;
}

export const SERVICE_EVALUATOR: QuotaEvaluator = {
  group: '',
  resource: 'services',
  // A service's type can change on update.
  handles: (attrs) => attrs.operation === 'CREATE' || attrs.operation === 'UPDATE',
  matchingResources: (input) => intersection(input, SERVICE_RESOURCES),
  matchesScope: () => false,
  constraints: () => undefined,
  usage: serviceUsage,
};

/** GetQuotaServiceType: the type when it uses quota beyond the count (NodePort, LoadBalancer), else ''. */
export function quotaServiceType(svc: KubeObject): string {
  const type = (svc.spec as ServiceSpec | undefined)?.type;
  return type === 'NodePort' || type === 'LoadBalancer' ? type : '';
}
