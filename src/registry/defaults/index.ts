import type { KubeObject } from '../../machinery/object.js';
import { defaultDaemonSet, defaultDeployment, defaultReplicaSet, defaultStatefulSet } from './apps.js';
import { defaultHPAv1, defaultHPAv2 } from './autoscaling.js';
import { defaultCronJob, defaultJob } from './batch.js';
import {
  defaultEndpoints,
  defaultLimitRange,
  defaultNamespace,
  defaultNode,
  defaultPersistentVolume,
  defaultPersistentVolumeClaim,
  defaultPodTemplateObject,
  defaultReplicationController,
  defaultSecret,
  defaultService,
} from './core.js';
import {
  defaultAPIService,
  defaultCustomResourceDefinition,
  defaultFlowSchema,
  defaultMutatingAdmissionPolicyBindingV1alpha1,
  defaultPriorityClass,
  defaultPriorityLevelConfiguration,
  defaultValidatingAdmissionPolicy,
  defaultValidatingAdmissionPolicyBinding,
  defaultWebhookConfiguration,
} from './misc.js';
import { defaultEndpointSlice, defaultIngressClass, defaultNetworkPolicy } from './networking.js';
import { defaultPod } from './pod.js';
import { defaultRoleBinding } from './rbac.js';
import {
  defaultDeviceTaintRule,
  defaultResourceClaim,
  defaultResourceClaimTemplate,
  defaultResourceClaimTemplateV1beta1,
  defaultResourceClaimV1beta1,
  defaultResourcePoolStatusRequest,
  defaultResourceSlice,
  defaultResourceSliceV1beta1,
} from './resource.js';
import { defaultCSIDriver, defaultStorageClass } from './storage.js';

/**
 * Scheme defaulting as kube-apiserver 1.36 applies it to the served
 * versions below, each in its own shape: what a decoded request body (and
 * every object read back) looks like before the registry's strategy sees it.
 * Registry steps that are not scheme defaulting are separate functions
 * (preparePodForCreate, prepareJobForCreate, the Service IP helpers).
 */

type Defaulter = (obj: KubeObject) => void;

/** Keyed by `group/version/kind`; group "" is core. */
const DEFAULTERS: Record<string, Defaulter> = {
  '/v1/Pod': defaultPod,
  '/v1/PodTemplate': defaultPodTemplateObject,
  '/v1/ReplicationController': defaultReplicationController,
  '/v1/Service': defaultService,
  '/v1/Secret': defaultSecret,
  '/v1/Namespace': defaultNamespace,
  '/v1/PersistentVolume': defaultPersistentVolume,
  '/v1/PersistentVolumeClaim': defaultPersistentVolumeClaim,
  '/v1/Endpoints': defaultEndpoints,
  '/v1/Node': defaultNode,
  '/v1/LimitRange': defaultLimitRange,
  'apps/v1/Deployment': defaultDeployment,
  'apps/v1/ReplicaSet': defaultReplicaSet,
  'apps/v1/StatefulSet': defaultStatefulSet,
  'apps/v1/DaemonSet': defaultDaemonSet,
  'batch/v1/Job': defaultJob,
  'batch/v1/CronJob': defaultCronJob,
  'autoscaling/v1/HorizontalPodAutoscaler': defaultHPAv1,
  'autoscaling/v2/HorizontalPodAutoscaler': defaultHPAv2,
  'networking.k8s.io/v1/NetworkPolicy': defaultNetworkPolicy,
  'networking.k8s.io/v1/IngressClass': defaultIngressClass,
  'discovery.k8s.io/v1/EndpointSlice': defaultEndpointSlice,
  'rbac.authorization.k8s.io/v1/RoleBinding': defaultRoleBinding,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': defaultRoleBinding,
  'storage.k8s.io/v1/StorageClass': defaultStorageClass,
  'storage.k8s.io/v1/CSIDriver': defaultCSIDriver,
  'scheduling.k8s.io/v1/PriorityClass': defaultPriorityClass,
  'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration': (o) => defaultWebhookConfiguration(o, false),
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration': (o) => defaultWebhookConfiguration(o, true),
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy': defaultValidatingAdmissionPolicy,
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding': defaultValidatingAdmissionPolicyBinding,
  // kube's SetDefaults_MutatingAdmissionPolicySpec and its binding default exactly as the validating ones do.
  'admissionregistration.k8s.io/v1/MutatingAdmissionPolicy': defaultValidatingAdmissionPolicy,
  'admissionregistration.k8s.io/v1/MutatingAdmissionPolicyBinding': defaultValidatingAdmissionPolicyBinding,
  'admissionregistration.k8s.io/v1beta1/MutatingAdmissionPolicy': defaultValidatingAdmissionPolicy,
  'admissionregistration.k8s.io/v1beta1/MutatingAdmissionPolicyBinding': defaultValidatingAdmissionPolicyBinding,
  // v1alpha1 (off by default): the same, and a paramRef's parameterNotFoundAction (pkg/apis/admissionregistration/v1alpha1).
  'admissionregistration.k8s.io/v1alpha1/MutatingAdmissionPolicy': defaultValidatingAdmissionPolicy,
  'admissionregistration.k8s.io/v1alpha1/MutatingAdmissionPolicyBinding': defaultMutatingAdmissionPolicyBindingV1alpha1,
  'flowcontrol.apiserver.k8s.io/v1/FlowSchema': defaultFlowSchema,
  'flowcontrol.apiserver.k8s.io/v1/PriorityLevelConfiguration': defaultPriorityLevelConfiguration,
  'apiextensions.k8s.io/v1/CustomResourceDefinition': defaultCustomResourceDefinition,
  'apiregistration.k8s.io/v1/APIService': defaultAPIService,
  // resource.k8s.io: v1 by default, the others with --runtime-config; each version defaults in its own shape.
  'resource.k8s.io/v1/ResourceClaim': defaultResourceClaim,
  'resource.k8s.io/v1/ResourceClaimTemplate': defaultResourceClaimTemplate,
  'resource.k8s.io/v1/ResourceSlice': defaultResourceSlice,
  'resource.k8s.io/v1beta2/ResourceClaim': defaultResourceClaim,
  'resource.k8s.io/v1beta2/ResourceClaimTemplate': defaultResourceClaimTemplate,
  'resource.k8s.io/v1beta2/ResourceSlice': defaultResourceSlice,
  'resource.k8s.io/v1beta2/DeviceTaintRule': defaultDeviceTaintRule,
  'resource.k8s.io/v1beta1/ResourceClaim': defaultResourceClaimV1beta1,
  'resource.k8s.io/v1beta1/ResourceClaimTemplate': defaultResourceClaimTemplateV1beta1,
  'resource.k8s.io/v1beta1/ResourceSlice': defaultResourceSliceV1beta1,
  'resource.k8s.io/v1alpha3/DeviceTaintRule': defaultDeviceTaintRule,
  'resource.k8s.io/v1alpha3/ResourcePoolStatusRequest': defaultResourcePoolStatusRequest,
};

/**
 * Applies kube's defaults for group/version/kind to obj in place. obj must be
 * a copy the caller owns. Kinds without defaults are left untouched.
 */
export function applyDefaults(group: string, version: string, kind: string, obj: KubeObject): void {
  DEFAULTERS[`${group}/${version}/${kind}`]?.(obj);
}

/** Whether applyDefaults changes anything for this kind. */
export function hasDefaults(group: string, version: string, kind: string): boolean {
  return `${group}/${version}/${kind}` in DEFAULTERS;
}

export { computePodQOS, preparePodForCreate, type PodQOSClass } from './pod.js';
export { prepareJobForCreate } from './batch.js';
export { familiesToAllocate, initServiceIPFamilies, normalizeClusterIPs, setAllocatedClusterIPs, type IPFamily } from './service-ips.js';
export { canonicalizeQuantities } from './quantities.js';
