import { col, nameCol, printer, doc } from './columns.js';
import { type TableConvertor } from '../../codec/table-convertor.js';
import { nameOf } from './format.js';
import * as control from './control.js';
import * as core from './core.js';
import * as net from './networking.js';
import * as pods from './pods.js';
import * as storage from './storage.js';
import * as workloads from './workloads.js';

/**
 * Which convertor kube-apiserver 1.36 registers per resource: its printers
 * (pkg/printers/internalversion AddHandlers) where the store uses them,
 * kube-aggregator's for APIServices, and rest.NewDefaultTableConvertor
 * (Name, Created At) for the rest: Roles, ClusterRoles, LimitRanges,
 * CSIStorageCapacities, CustomResourceDefinitions and anything unlisted.
 */

/** Format(time.RFC3339) in UTC: whole seconds, Go's zero time when unset. */
function rfc3339(v: unknown): string {
  const ms = typeof v === 'string' && v !== '' ? Date.parse(v) : Number.NaN;
  const date = new Date(Number.isNaN(ms) ? -62135596800000 : ms);
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export const DEFAULT_TABLE: TableConvertor = printer(
  () => [nameCol(), col('Created At', 'date', doc('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'creationTimestamp'))],
  (o) => [nameOf(o), rfc3339(o.metadata?.creationTimestamp)],
);

const TABLES: Record<string, TableConvertor> = {
  '/pods': pods.podTable,
  '/podtemplates': pods.podTemplateTable,
  '/replicationcontrollers': workloads.replicationControllerTable,
  '/services': core.serviceTable,
  '/endpoints': core.endpointsTable,
  '/nodes': core.nodeTable,
  '/namespaces': core.namespaceTable,
  '/events': core.eventTable,
  '/configmaps': core.configMapTable,
  '/secrets': core.secretTable,
  '/serviceaccounts': core.serviceAccountTable,
  '/persistentvolumes': core.persistentVolumeTable,
  '/persistentvolumeclaims': core.persistentVolumeClaimTable,
  '/resourcequotas': core.resourceQuotaTable,
  '/componentstatuses': core.componentStatusTable,
  'apps/replicasets': workloads.replicaSetTable,
  'apps/deployments': workloads.deploymentTable,
  'apps/statefulsets': workloads.statefulSetTable,
  'apps/daemonsets': workloads.daemonSetTable,
  'apps/controllerrevisions': workloads.controllerRevisionTable,
  'batch/jobs': workloads.jobTable,
  'batch/cronjobs': workloads.cronJobTable,
  'autoscaling/horizontalpodautoscalers': workloads.horizontalPodAutoscalerTable,
  'policy/poddisruptionbudgets': workloads.podDisruptionBudgetTable,
  'events.k8s.io/events': core.eventsV1Table,
  'networking.k8s.io/ingresses': net.ingressTable,
  'networking.k8s.io/ingressclasses': net.ingressClassTable,
  'networking.k8s.io/networkpolicies': net.networkPolicyTable,
  'networking.k8s.io/servicecidrs': net.serviceCIDRTable,
  'networking.k8s.io/ipaddresses': net.ipAddressTable,
  'discovery.k8s.io/endpointslices': net.endpointSliceTable,
  'rbac.authorization.k8s.io/rolebindings': control.roleBindingTable,
  'rbac.authorization.k8s.io/clusterrolebindings': control.clusterRoleBindingTable,
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': control.webhookConfigurationTable,
  'admissionregistration.k8s.io/validatingwebhookconfigurations': control.webhookConfigurationTable,
  'admissionregistration.k8s.io/validatingadmissionpolicies': control.validatingAdmissionPolicyTable,
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': control.admissionPolicyBindingTable,
  'admissionregistration.k8s.io/mutatingadmissionpolicies': control.mutatingAdmissionPolicyTable,
  'admissionregistration.k8s.io/mutatingadmissionpolicybindings': control.admissionPolicyBindingTable,
  'flowcontrol.apiserver.k8s.io/flowschemas': control.flowSchemaTable,
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': control.priorityLevelConfigurationTable,
  'scheduling.k8s.io/priorityclasses': control.priorityClassTable,
  'scheduling.k8s.io/workloads': storage.nameAgeTable,
  'node.k8s.io/runtimeclasses': control.runtimeClassTable,
  'coordination.k8s.io/leases': control.leaseTable,
  'coordination.k8s.io/leasecandidates': control.leaseCandidateTable,
  'certificates.k8s.io/certificatesigningrequests': control.certificateSigningRequestTable,
  'certificates.k8s.io/clustertrustbundles': control.clusterTrustBundleTable,
  'apiregistration.k8s.io/apiservices': control.apiServiceTable,
  'internal.apiserver.k8s.io/storageversions': control.storageVersionTable,
  'storage.k8s.io/storageclasses': storage.storageClassTable,
  'storage.k8s.io/volumeattributesclasses': storage.volumeAttributesClassTable,
  'storage.k8s.io/volumeattachments': storage.volumeAttachmentTable,
  'storage.k8s.io/csidrivers': storage.csiDriverTable,
  'storage.k8s.io/csinodes': storage.csiNodeTable,
  'resource.k8s.io/deviceclasses': storage.nameAgeTable,
  'resource.k8s.io/resourceclaims': storage.resourceClaimTable,
  'resource.k8s.io/resourceclaimtemplates': storage.nameAgeTable,
  'resource.k8s.io/resourceslices': storage.resourceSliceTable,
  'storagemigration.k8s.io/storageversionmigrations': storage.storageVersionMigrationTable,
};

export function tableConvertorFor(group: string, resource: string): TableConvertor {
  return TABLES[`${group}/${resource}`] ?? DEFAULT_TABLE;
}
