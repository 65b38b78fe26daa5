import type { AdmissionPluginFactory } from './plugin-context.js';
import { NamespaceLifecycle } from './namespace-lifecycle.js';
import { mutatingAdmissionPolicy } from './policy/mutating-plugin.js';
import { validatingAdmissionPolicy } from './policy/validating-plugin.js';

/**
 * kube-apiserver 1.36's admission plugins in its fixed order
 * (pkg/kubeapiserver/options/plugins.go AllOrderedPlugins): whatever the
 * flags name, enabled plugins run in this order, mutating phase first, then
 * validating. Webhooks, policies and ResourceQuota come last on purpose.
 */
export const ORDERED_ADMISSION_PLUGINS: readonly string[] = [
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceLifecycle',
  'NamespaceExists',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'TaintNodesByCondition',
  'AlwaysPullImages',
  'ImagePolicyWebhook',
  'PodSecurity',
  'PodNodeSelector',
  'Priority',
  'DefaultTolerationSeconds',
  'PodTolerationRestriction',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'DenyServiceExternalIPs',
  'PodTopologyLabels',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'AlwaysDeny',
];

/**
 * kube-apiserver 1.36's default-on plugins (DefaultOffAdmissionPlugins is the
 * complement): those Capstan has built run unless disabled.
 */
export const DEFAULT_ON_ADMISSION_PLUGINS: ReadonlySet<string> = new Set([
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'TaintNodesByCondition',
  'PodSecurity',
  'Priority',
  'DefaultTolerationSeconds',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'PodTopologyLabels',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
]);

/** The plugins Capstan has built, by kube's name. A plugin kube has and Capstan lacks cannot be enabled (the server says so at start). */
export const ADMISSION_PLUGIN_FACTORIES: ReadonlyMap<string, AdmissionPluginFactory> = new Map<string, AdmissionPluginFactory>([
  ['NamespaceLifecycle', (ctx) => {
    const namespaces = ctx.lookup('', 'v1', 'namespaces');
    return new NamespaceLifecycle((name) => namespaces(undefined, name));
  }],
  ['MutatingAdmissionPolicy', mutatingAdmissionPolicy],
  ['ValidatingAdmissionPolicy', validatingAdmissionPolicy],
]);
