import type { AdmissionPluginFactory } from './plugin-context.js';
import { NamespaceLifecycle } from './namespace-lifecycle.js';
import { NodeRestriction } from '../authz/node/restriction.js';
import { AlwaysAdmit, deprecatedPluginWarning } from './always-admit.js';
import { AlwaysDeny } from './always-deny.js';
import { DenyServiceExternalIPs } from './deny-service-external-ips.js';
import { EventRateLimit, eventRateLimitConfiguration } from './event-rate-limit.js';
import { LimitPodHardAntiAffinityTopology } from './limit-pod-hard-anti-affinity-topology.js';
import { NamespaceAutoProvision } from './namespace-auto-provision.js';
import { NamespaceExists } from './namespace-exists.js';

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
]);
