import type { AdmissionPluginFactory } from './plugin-context.js';
import { NamespaceLifecycle } from './namespace-lifecycle.js';
import { CertificateApproval } from './certificates/certificate-approval.js';
import { CertificateSigning } from './certificates/certificate-signing.js';
import { CertificateSubjectRestriction } from './certificates/certificate-subject-restriction.js';
import { ClusterTrustBundleAttest } from './certificates/cluster-trust-bundle-attest.js';
import { defaultIngressClass } from './default-ingress-class.js';
import { OwnerReferencesPermissionEnforcement } from './owner-references-permission.js';
import { defaultStorageClass } from './storage/default-storage-class.js';
import { PersistentVolumeClaimResize } from './storage/pvc-resize.js';
import { StorageObjectInUseProtection } from './storage/storage-object-in-use-protection.js';
import { newPodSecurityPlugin } from './pod-security/plugin.js';
import { AlwaysPullImages } from './always-pull-images.js';
import { DefaultTolerationSeconds } from './default-toleration-seconds.js';
import { ExtendedResourceToleration } from './extended-resource-toleration.js';
import { LimitRanger } from './limit-ranger.js';
import { PluginLister } from './lister.js';
import { PodNodeSelector } from './pod-node-selector.js';
import { PodTolerationRestriction } from './pod-toleration-restriction.js';
import { PodTopologyLabels } from './pod-topology-labels.js';
import { PriorityAdmission } from './priority.js';
import { RuntimeClassAdmission } from './runtime-class.js';
import { ServiceAccountAdmission } from './service-account.js';
import { TaintNodesByCondition } from './taint-nodes-by-condition.js';
import { mutatingWebhookPlugin, validatingWebhookPlugin } from './webhook/plugin.js';
import { NodeRestriction } from '../authz/node/restriction.js';
import { AlwaysAdmit, deprecatedPluginWarning } from './always-admit.js';
import { AlwaysDeny } from './always-deny.js';
import { DenyServiceExternalIPs } from './deny-service-external-ips.js';
import { EventRateLimit, eventRateLimitConfiguration } from './event-rate-limit.js';
import { LimitPodHardAntiAffinityTopology } from './limit-pod-hard-anti-affinity-topology.js';
import { NamespaceAutoProvision } from './namespace-auto-provision.js';
import { NamespaceExists } from './namespace-exists.js';
import { resourceQuotaPlugin } from './resource-quota/plugin.js';
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
  'PodGroupProtection',
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
  'PodGroupWorkloadExists',
  'NodeDeclaredFeatureValidator',
  'JobValidation',
  'PodResizeValidator',
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
  'PodGroupProtection',
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
  'PodGroupWorkloadExists',
  'NodeDeclaredFeatureValidator',
  'JobValidation',
  'PodResizeValidator',
]);

/** The plugins Capstan has built, by kube's name. A plugin kube has and Capstan lacks cannot be enabled (the server says so at start). */
export const ADMISSION_PLUGIN_FACTORIES: ReadonlyMap<string, AdmissionPluginFactory> = new Map<string, AdmissionPluginFactory>([
  ['NamespaceLifecycle', (ctx) => {
    const namespaces = ctx.lookup('', 'v1', 'namespaces');
    return new NamespaceLifecycle((name) => namespaces(undefined, name));
  }],
  ['DefaultStorageClass', (ctx) => {
    const classes = new PluginLister(ctx, 'storage.k8s.io', 'v1', 'storageclasses');
    return defaultStorageClass(() => classes.list(), () => classes.start());
  }],
  ['StorageObjectInUseProtection', () => new StorageObjectInUseProtection()],
  ['OwnerReferencesPermissionEnforcement', (ctx) => new OwnerReferencesPermissionEnforcement(ctx.authorizer, ctx.catalog)],
  ['PersistentVolumeClaimResize', (ctx) => {
    const classes = ctx.lookup('storage.k8s.io', 'v1', 'storageclasses');
    return new PersistentVolumeClaimResize((name) => classes(undefined, name));
  }],
  ['CertificateApproval', (ctx) => new CertificateApproval(ctx.authorizer)],
  ['CertificateSigning', (ctx) => new CertificateSigning(ctx.authorizer)],
  ['ClusterTrustBundleAttest', (ctx) => new ClusterTrustBundleAttest(ctx.authorizer)],
  ['CertificateSubjectRestriction', () => new CertificateSubjectRestriction()],
  ['DefaultIngressClass', (ctx) => {
    const classes = new PluginLister(ctx, 'networking.k8s.io', 'v1', 'ingressclasses');
    return defaultIngressClass(() => classes.list(), () => classes.start());
  }],
  ['PodSecurity', (ctx) => newPodSecurityPlugin(ctx)],
  // Pod plugins.
  ['LimitRanger', (ctx) => new LimitRanger(new PluginLister(ctx, '', 'v1', 'limitranges'))],
  ['ServiceAccount', (ctx) => new ServiceAccountAdmission(ctx.lookup('', 'v1', 'serviceaccounts'))],
  ['TaintNodesByCondition', () => new TaintNodesByCondition()],
  ['AlwaysPullImages', () => new AlwaysPullImages()],
  ['PodNodeSelector', (ctx) => new PodNodeSelector(ctx.lookup('', 'v1', 'namespaces'), ctx.configuration)],
  ['Priority', (ctx) => new PriorityAdmission(new PluginLister(ctx, 'scheduling.k8s.io', 'v1', 'priorityclasses'), ctx.lookup('scheduling.k8s.io', 'v1', 'priorityclasses'))],
  ['DefaultTolerationSeconds', (ctx) => new DefaultTolerationSeconds(ctx.defaultTolerationSeconds?.notReady, ctx.defaultTolerationSeconds?.unreachable)],
  ['PodTolerationRestriction', (ctx) => new PodTolerationRestriction(ctx.lookup('', 'v1', 'namespaces'), ctx.configuration)],
  ['ExtendedResourceToleration', () => new ExtendedResourceToleration()],
  ['RuntimeClass', (ctx) => new RuntimeClassAdmission(ctx.lookup('node.k8s.io', 'v1', 'runtimeclasses'))],
  ['PodTopologyLabels', (ctx) => new PodTopologyLabels(ctx.lookup('', 'v1', 'nodes'), ctx.featureGates.enabled('PodTopologyLabelsAdmission'))],
  ['MutatingAdmissionWebhook', mutatingWebhookPlugin],
  ['ValidatingAdmissionWebhook', validatingWebhookPlugin],
  ['AlwaysAdmit', (ctx) => {
    ctx.logger.warning?.(deprecatedPluginWarning('AlwaysAdmit'));
    return new AlwaysAdmit();
  }],
  ['AlwaysDeny', (ctx) => {
    ctx.logger.warning?.(deprecatedPluginWarning('AlwaysDeny'));
    return new AlwaysDeny();
  }],
  ['NamespaceAutoProvision', (ctx) => new NamespaceAutoProvision(ctx.lookup('', 'v1', 'namespaces'), ctx.client('kube-apiserver'))],
  ['NamespaceExists', (ctx) => new NamespaceExists(ctx.lookup('', 'v1', 'namespaces'))],
  ['LimitPodHardAntiAffinityTopology', () => new LimitPodHardAntiAffinityTopology()],
  ['NodeRestriction', (ctx) => {
    const pods = ctx.lookup('', 'v1', 'pods');
    const nodes = ctx.lookup('', 'v1', 'nodes');
    return new NodeRestriction({ pod: (ns, name) => pods(ns, name), node: (name) => nodes(undefined, name) });
  }],
  ['EventRateLimit', (ctx) => new EventRateLimit(eventRateLimitConfiguration(ctx.configuration))],
  ['DenyServiceExternalIPs', () => new DenyServiceExternalIPs()],
  ['ResourceQuota', resourceQuotaPlugin],
  ['MutatingAdmissionPolicy', mutatingAdmissionPolicy],
  ['ValidatingAdmissionPolicy', validatingAdmissionPolicy],
]);
