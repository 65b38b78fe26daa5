import { CUSTOM_GROUP_PRIORITY } from './catalog.js';
import { stabilityOf } from './versions.js';

/**
 * The versionPriority kube-apiserver gives the local APIService of each
 * built-in group-version (its apiVersionPriorities: cmd/kube-apiserver's list
 * merged over pkg/controlplane/apiserver's DefaultGenericAPIServicePriorities).
 * Group priorities are the catalog's (scripts/generate-catalog.ts).
 */
const VERSION_PRIORITY: Readonly<Record<string, number>> = {
  '/v1': 1,
  'apps/v1': 15,
  'events.k8s.io/v1': 15,
  'events.k8s.io/v1beta1': 5,
  'authentication.k8s.io/v1': 15,
  'authentication.k8s.io/v1beta1': 9,
  'authentication.k8s.io/v1alpha1': 1,
  'authorization.k8s.io/v1': 15,
  'autoscaling/v1': 15,
  'autoscaling/v2': 30,
  'autoscaling/v2beta1': 9,
  'autoscaling/v2beta2': 1,
  'batch/v1': 15,
  'batch/v1beta1': 9,
  'certificates.k8s.io/v1': 15,
  'certificates.k8s.io/v1beta1': 9,
  'certificates.k8s.io/v1alpha1': 1,
  'networking.k8s.io/v1': 15,
  'networking.k8s.io/v1beta1': 9,
  'networking.k8s.io/v1alpha1': 1,
  'policy/v1': 15,
  'policy/v1beta1': 9,
  'rbac.authorization.k8s.io/v1': 15,
  'storage.k8s.io/v1': 15,
  'storage.k8s.io/v1beta1': 9,
  'storage.k8s.io/v1alpha1': 1,
  'apiextensions.k8s.io/v1': 15,
  'admissionregistration.k8s.io/v1': 15,
  'admissionregistration.k8s.io/v1beta1': 12,
  'admissionregistration.k8s.io/v1alpha1': 9,
  'scheduling.k8s.io/v1': 15,
  'coordination.k8s.io/v1': 15,
  'coordination.k8s.io/v1beta1': 13,
  'coordination.k8s.io/v1alpha2': 12,
  'node.k8s.io/v1': 15,
  'node.k8s.io/v1beta1': 9,
  'node.k8s.io/v1alpha1': 1,
  'discovery.k8s.io/v1': 15,
  'discovery.k8s.io/v1beta1': 12,
  'flowcontrol.apiserver.k8s.io/v1': 21,
  'flowcontrol.apiserver.k8s.io/v1beta3': 18,
  'flowcontrol.apiserver.k8s.io/v1beta2': 15,
  'flowcontrol.apiserver.k8s.io/v1beta1': 12,
  'flowcontrol.apiserver.k8s.io/v1alpha1': 9,
  'internal.apiserver.k8s.io/v1alpha1': 9,
  'resource.k8s.io/v1beta2': 15,
  'resource.k8s.io/v1beta1': 9,
  'resource.k8s.io/v1alpha3': 1,
  'storagemigration.k8s.io/v1beta1': 9,
};

/**
 * A built-in group-version's versionPriority. Versions newer than the lists
 * Capstan learned from (e.g. resource.k8s.io/v1) get kube's convention for a
 * new entry, above the group's other versions for GA: 21 for GA, 9 beta, 1 alpha.
 */
export function builtinVersionPriority(group: string, version: string): number {
  const known = VERSION_PRIORITY[`${group}/${version}`];
  if (known !== undefined) return known;
  const stability = stabilityOf(version);
  return stability === 'stable' ? 21 : stability === 'beta' ? 9 : 1;
}

/** kube's crdregistration controller: CRD group-versions sort after built-ins, by kube-aware version among themselves. */
export const CUSTOM_RESOURCE_GROUP_PRIORITY = CUSTOM_GROUP_PRIORITY;
export const CUSTOM_RESOURCE_VERSION_PRIORITY = 100;
