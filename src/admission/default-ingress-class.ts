import type { KubeObject } from '../machinery/object.js';
import { DefaultClassPlugin, specOf } from './default-class.js';

/** networking/v1 AnnotationIsDefaultIngressClass and the deprecated class annotation. */
export const IS_DEFAULT_INGRESS_CLASS_ANNOTATION = 'ingressclass.kubernetes.io/is-default-class';
export const INGRESS_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

/**
 * DefaultIngressClass (plugin/pkg/admission/network/defaultingressclass):
 * an Ingress created with neither spec.ingressClassName nor the
 * kubernetes.io/ingress.class annotation gets the default IngressClass (the
 * newest of several marked default).
 */
export function defaultIngressClass(ingressClasses: () => readonly KubeObject[], startLister?: () => Promise<void>): DefaultClassPlugin {
  return new DefaultClassPlugin(
    'DefaultIngressClass',
    {
      group: 'networking.k8s.io',
      resource: 'ingresses',
      hasClass: (ingress) => {
        const name = specOf(ingress).ingressClassName;
        return (name !== undefined && name !== null) || Object.hasOwn(ingress.metadata?.annotations ?? {}, INGRESS_CLASS_ANNOTATION);
      },
      isDefault: (c) => c.metadata?.annotations?.[IS_DEFAULT_INGRESS_CLASS_ANNOTATION] === 'true',
      specField: 'ingressClassName',
    },
    ingressClasses,
    startLister,
  );
}
