import type { FieldError } from '../../machinery/errors.js';
import type { KubeObject } from '../../machinery/object.js';
import * as admissionregistration from './admissionregistration.js';
import {
  validateMutatingAdmissionPolicy, validateMutatingAdmissionPolicyBinding, validateValidatingAdmissionPolicy, validateValidatingAdmissionPolicyBinding,
} from './admission-policies.js';
import * as apps from './apps.js';
import * as batch from './batch.js';
import { validateCertificateSigningRequestCreate, validateCertificateSigningRequestUpdate } from './certificates.js';
import * as core from './core.js';
import { validateCustomResourceDefinition, validateCustomResourceDefinitionUpdate } from './crd.js';
import { validateEventCreate, validateEventUpdate } from './events.js';
import type { Obj } from './field.js';
import type { ValidationContext } from '../strategy.js';
import * as others from './others.js';
import * as resource from './resource.js';

/**
 * Type-specific validation of the common built-in types, as kube-apiserver
 * 1.36's strategies run it (ValidateXxx on create, ValidateXxxUpdate plus
 * ValidateXxx on update). Objects are the stored version, already defaulted;
 * metadata is validated elsewhere (validate-meta.ts) and not repeated here.
 * Kinds without rules here validate clean.
 */

type Create = (obj: Obj, ctx: ValidationContext) => FieldError[];
type Update = (obj: Obj, old: Obj, ctx: ValidationContext) => FieldError[];

interface Rules {
  create: Create;
  /** Update-only checks; the create rules run on the new object as well unless `replaces` is set. */
  update?: Update;
  /** The update function already includes the create rules. */
  replaces?: boolean;
}

const RULES: Record<string, Rules> = {
  '/Pod': { create: core.validatePodCreate, update: core.validatePodUpdate, replaces: true },
  '/PodTemplate': { create: core.validatePodTemplate },
  '/ReplicationController': { create: core.validateReplicationController },
  '/Service': { create: core.validateService, update: core.validateServiceUpdate, replaces: true },
  '/Secret': { create: core.validateSecret, update: core.validateSecretUpdate, replaces: true },
  '/ConfigMap': { create: core.validateConfigMap, update: core.validateConfigMapUpdate, replaces: true },
  '/Namespace': { create: core.validateNamespace },
  '/PersistentVolumeClaim': { create: core.validatePvc, update: core.validatePvcUpdate, replaces: true },
  '/PersistentVolume': { create: core.validatePersistentVolume },
  '/Endpoints': { create: core.validateEndpoints },
  '/Event': { create: validateEventCreate, update: validateEventUpdate, replaces: true },
  'apps/Deployment': { create: apps.validateDeployment, update: apps.validateDeploymentUpdate, replaces: true },
  'apps/ReplicaSet': { create: apps.validateReplicaSet, update: apps.validateReplicaSetUpdate, replaces: true },
  'apps/StatefulSet': { create: apps.validateStatefulSet, update: apps.validateStatefulSetUpdate, replaces: true },
  'apps/DaemonSet': { create: apps.validateDaemonSet, update: apps.validateDaemonSetUpdate, replaces: true },
  'batch/Job': { create: (o) => batch.validateJob(o), update: batch.validateJobUpdate, replaces: true },
  'batch/CronJob': { create: batch.validateCronJob, update: batch.validateCronJobUpdate, replaces: true },
  'rbac.authorization.k8s.io/Role': { create: others.validateRole },
  'rbac.authorization.k8s.io/ClusterRole': { create: others.validateClusterRole },
  'rbac.authorization.k8s.io/RoleBinding': { create: (o) => others.validateRoleBinding(o, true), update: (o, old) => others.validateRoleBindingUpdate(o, old, true), replaces: true },
  'rbac.authorization.k8s.io/ClusterRoleBinding': {
    create: (o) => others.validateRoleBinding(o, false),
    update: (o, old) => others.validateRoleBindingUpdate(o, old, false),
    replaces: true,
  },
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy': { create: validateValidatingAdmissionPolicy },
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding': { create: validateValidatingAdmissionPolicyBinding },
  'admissionregistration.k8s.io/MutatingAdmissionPolicy': { create: validateMutatingAdmissionPolicy },
  'admissionregistration.k8s.io/MutatingAdmissionPolicyBinding': { create: validateMutatingAdmissionPolicyBinding },
  'policy/PodDisruptionBudget': { create: others.validatePodDisruptionBudget },
  'networking.k8s.io/NetworkPolicy': { create: others.validateNetworkPolicy },
  'networking.k8s.io/Ingress': { create: others.validateIngress },
  'networking.k8s.io/IngressClass': { create: others.validateIngressClass, update: others.validateIngressClassUpdate, replaces: true },
  'storage.k8s.io/StorageClass': { create: others.validateStorageClass, update: others.validateStorageClassUpdate, replaces: true },
  'autoscaling/HorizontalPodAutoscaler': { create: others.validateHorizontalPodAutoscaler },
  'scheduling.k8s.io/PriorityClass': { create: others.validatePriorityClass, update: others.validatePriorityClassUpdate, replaces: true },
  'coordination.k8s.io/Lease': { create: others.validateLease },
  'certificates.k8s.io/CertificateSigningRequest': {
    create: validateCertificateSigningRequestCreate,
    update: (o, old) => validateCertificateSigningRequestUpdate(o, old),
    replaces: true,
  },
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': {
    create: admissionregistration.validateValidatingWebhookConfiguration,
    update: admissionregistration.validateValidatingWebhookConfigurationUpdate,
    replaces: true,
  },
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': {
    create: admissionregistration.validateMutatingWebhookConfiguration,
    update: admissionregistration.validateMutatingWebhookConfigurationUpdate,
    replaces: true,
  },
  'resource.k8s.io/DeviceClass': { create: resource.validateDeviceClass, update: resource.validateDeviceClassUpdate, replaces: true },
  'resource.k8s.io/ResourceClaim': { create: resource.validateResourceClaim, update: resource.validateResourceClaimUpdate, replaces: true },
  'resource.k8s.io/ResourceClaimTemplate': { create: resource.validateResourceClaimTemplate, update: resource.validateResourceClaimTemplateUpdate, replaces: true },
  'resource.k8s.io/ResourceSlice': { create: resource.validateResourceSlice, update: resource.validateResourceSliceUpdate, replaces: true },
  'resource.k8s.io/ResourcePoolStatusRequest': { create: resource.validateResourcePoolStatusRequest, update: resource.validateResourcePoolStatusRequestUpdate, replaces: true },
  'resource.k8s.io/DeviceTaintRule': { create: resource.validateDeviceTaintRule, update: resource.validateDeviceTaintRuleUpdate, replaces: true },
  'apiextensions.k8s.io/CustomResourceDefinition': { create: validateCustomResourceDefinition, update: validateCustomResourceDefinitionUpdate, replaces: true },
};

/** Errors for a new object of group/kind (group "" is core). */
export function validateObject(group: string, kind: string, obj: KubeObject, ctx: ValidationContext = {}): FieldError[] {
  return RULES[`${group}/${kind}`]?.create(obj as Obj, ctx) ?? [];
}

/** Errors for replacing old with obj: the create rules on obj plus the update rules (immutability). */
export function validateObjectUpdate(group: string, kind: string, obj: KubeObject, old: KubeObject, ctx: ValidationContext = {}): FieldError[] {
  const rules = RULES[`${group}/${kind}`];
  if (!rules) return [];
  if (!rules.update) return rules.create(obj as Obj, ctx);
  if (rules.replaces) return rules.update(obj as Obj, old as Obj, ctx);
  return [...rules.create(obj as Obj, ctx), ...rules.update(obj as Obj, old as Obj, ctx)];
}

/** Whether validateObject knows rules for group/kind. */
export function hasValidation(group: string, kind: string): boolean {
  return `${group}/${kind}` in RULES;
}

export { renderFieldValue } from './render.js';
export { cronScheduleError } from './cron.js';
