import type { KubeObject } from '../machinery/object.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './admission.js';
import { newestDefaultClass } from './default-class.js';

/** networking/v1 AnnotationIsDefaultIngressClass and the deprecated class annotation. */
export const IS_DEFAULT_INGRESS_CLASS_ANNOTATION = 'ingressclass.kubernetes.io/is-default-class';
export const INGRESS_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

/**
 * DefaultIngressClass (plugin/pkg/admission/network/defaultingressclass):
 * an Ingress created with neither spec.ingressClassName nor the
 * kubernetes.io/ingress.class annotation gets the default IngressClass (the
 * newest of several marked default).
 */
export class DefaultIngressClass implements AdmissionPlugin {
  readonly name = 'DefaultIngressClass';

  constructor(
    private readonly ingressClasses: () => readonly KubeObject[],
    private readonly startLister: () => Promise<void> = async () => {},
  ) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE';
  }

  start(): Promise<void> {
    return this.startLister();
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.resource.group !== 'networking.k8s.io' || attrs.resource.name !== 'ingresses' || attrs.subresource) return;
    const ingress = attrs.object;
    if (!ingress) return;
    const spec = ingress.spec && typeof ingress.spec === 'object' && !Array.isArray(ingress.spec) ? (ingress.spec as Record<string, unknown>) : undefined;
    if (spec?.ingressClassName !== undefined && spec.ingressClassName !== null) return;
    if (Object.hasOwn(ingress.metadata?.annotations ?? {}, INGRESS_CLASS_ANNOTATION)) return;
    const def = newestDefaultClass(this.ingressClasses(), (c) => c.metadata?.annotations?.[IS_DEFAULT_INGRESS_CLASS_ANNOTATION] === 'true');
    if (!def) return;
    ingress.spec = { ...spec, ingressClassName: def.metadata?.name };
  }
}
