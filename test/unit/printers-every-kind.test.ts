/**
 * One Table per built-in kind the catalog serves: its column definitions
 * (names, types, formats, priority 1 = `-o wide`) and one row's cells for a
 * sample object, against kube-apiserver 1.36.
 *
 * Where the expectations come from:
 * - columns: pkg/printers/internalversion/printers.go AddHandlers (the
 *   `...ColumnDefinitions` of each kind); ServiceAccount: kubernetes PR #117160
 *   (merged for 1.35) dropped the SECRETS column and its count.
 * - kinds whose store uses rest.NewDefaultTableConvertor (Role, ClusterRole,
 *   LimitRange, CSIStorageCapacity: pkg/registry/storage/csistoragecapacity/
 *   storage/storage.go; CustomResourceDefinition in apiextensions) print Name and
 *   Created At (an RFC 3339 date cell).
 * - cells: the printers' code for the sample object (print<Kind> in
 *   printers.go); the shapes match printers_test.go cases (TestPrintService*,
 *   TestPrintPod*, TestPrintEndpointSlice, ...), with ages from
 *   translateTimestampSince (duration.HumanDuration).
 * Kinds whose 1.36 printer could not be read upstream (PodCertificateRequest,
 * DeviceTaintRule, PodGroup, ResourcePoolStatusRequest, Workload: their stores
 * use the printers, whose 1.36 source was not available) are listed in
 * UNVERIFIED and only checked to produce a table.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { builtinCatalog } from '../../src/api/catalog.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { DEFAULT_TABLE, tableConvertorFor } from '../../src/registry/tables/index.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const CREATED = '2026-03-01T11:55:00Z'; // 5m before NOW
const AGE = '5m';

function meta(name: string, extra: Record<string, unknown> = {}): KubeObject['metadata'] {
  return { name, creationTimestamp: CREATED, ...extra };
}

interface Expect {
  /** Column names, `*` marking priority 1; `Name` with format "name" unless noted in `unformattedName`. */
  columns: string;
  types?: string;
  unformattedName?: boolean;
  /** Other columns declared with Format "name" (VolumeAttachment's Attacher). */
  nameFormatted?: string[];
  obj?: KubeObject;
  cells?: unknown[];
}

const DEFAULT: Expect = {
  columns: 'Name,Created At',
  types: 'string,date',
  obj: { metadata: meta('x') },
  cells: ['x', CREATED],
};

const podSpec = { containers: [{ name: 'c', image: 'nginx' }] };
const template = { metadata: { labels: { app: 'web' } }, spec: podSpec };
const selector = { matchLabels: { app: 'web' } };

/** group/resource → expectation. */
const EXPECT: Record<string, Expect> = {
  '/componentstatuses': {
    columns: 'Name,Status,Message,Error',
    obj: { metadata: meta('etcd-0'), conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }] },
    cells: ['etcd-0', 'Healthy', 'ok', ''],
  },
  '/configmaps': { columns: 'Name,Data,Age', obj: { metadata: meta('cm'), data: { a: '1', b: '2' } }, cells: ['cm', 2, AGE] },
  '/endpoints': {
    columns: 'Name,Endpoints,Age',
    obj: { metadata: meta('ep'), subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }] },
    cells: ['ep', '10.0.0.1:80', AGE],
  },
  '/events': {
    columns: 'Last Seen,Type,Reason,Object,Subobject*,Source*,Message,First Seen*,Count*,Name*',
    obj: {
      metadata: meta('ev'),
      involvedObject: { kind: 'Pod', name: 'p' },
      reason: 'Started',
      type: 'Normal',
      message: 'hi',
      source: { component: 'kubelet', host: 'n1' },
      firstTimestamp: CREATED,
      lastTimestamp: CREATED,
      count: 3,
    },
    cells: [AGE, 'Normal', 'Started', 'pod/p', '', 'kubelet, n1', 'hi', AGE, 3, 'ev'],
  },
  '/limitranges': DEFAULT,
  '/namespaces': { columns: 'Name,Status,Age', obj: { metadata: meta('ns'), status: { phase: 'Active' } }, cells: ['ns', 'Active', AGE] },
  '/nodes': {
    columns: 'Name,Status,Roles,Age,Version,Internal-IP*,External-IP*,OS-Image*,Kernel-Version*,Container-Runtime*',
    obj: {
      metadata: meta('n1', { labels: { 'node-role.kubernetes.io/control-plane': '' } }),
      status: {
        conditions: [{ type: 'Ready', status: 'True' }],
        addresses: [{ type: 'InternalIP', address: '10.0.0.5' }],
        nodeInfo: { kubeletVersion: 'v1.36.0', osImage: 'Debian', kernelVersion: '6.1', containerRuntimeVersion: 'containerd://2.0' },
      },
    },
    cells: ['n1', 'Ready', 'control-plane', AGE, 'v1.36.0', '10.0.0.5', '<none>', 'Debian', '6.1', 'containerd://2.0'],
  },
  '/persistentvolumeclaims': {
    columns: 'Name,Status,Volume,Capacity,Access Modes,StorageClass,VolumeAttributesClass,Age,VolumeMode*',
    obj: { metadata: meta('pvc'), spec: { storageClassName: 'std' }, status: { phase: 'Pending' } },
    cells: ['pvc', 'Pending', '', '', '', 'std', '<unset>', AGE, '<unset>'],
  },
  '/persistentvolumes': {
    columns: 'Name,Capacity,Access Modes,Reclaim Policy,Status,Claim,StorageClass,VolumeAttributesClass,Reason,Age,VolumeMode*',
    obj: {
      metadata: meta('pv'),
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem' },
      status: { phase: 'Available' },
    },
    cells: ['pv', '1Gi', 'RWO', 'Retain', 'Available', '', '', '<unset>', '', AGE, 'Filesystem'],
  },
  '/pods': {
    columns: 'Name,Ready,Status,Restarts,Age,IP*,Node*,Nominated Node*,Readiness Gates*',
    types: 'string,string,string,string,string,string,string,string,string',
    obj: {
      metadata: meta('p'),
      spec: podSpec,
      status: {
        phase: 'Running',
        podIPs: [{ ip: '10.1.0.2' }],
        containerStatuses: [
          { name: 'c', ready: true, restartCount: 3, state: { running: {} }, lastState: { terminated: { finishedAt: CREATED, exitCode: 1 } } },
        ],
      },
    },
    cells: ['p', '1/1', 'Running', `3 (${AGE} ago)`, AGE, '10.1.0.2', '<none>', '<none>', '<none>'],
  },
  '/podtemplates': {
    columns: 'Name,Containers,Images,Pod Labels',
    obj: { metadata: meta('pt'), template },
    cells: ['pt', 'c', 'nginx', 'app=web'],
  },
  '/replicationcontrollers': {
    columns: 'Name,Desired,Current,Ready,Age,Containers*,Images*,Selector*',
    types: 'string,integer,integer,integer,string,string,string,string',
    obj: { metadata: meta('rc'), spec: { replicas: 2, selector: { app: 'web' }, template }, status: { replicas: 2, readyReplicas: 1 } },
    cells: ['rc', 2, 2, 1, AGE, 'c', 'nginx', 'app=web'],
  },
  '/resourcequotas': {
    columns: 'Name,Request,Limit,Age',
    obj: { metadata: meta('q'), status: { hard: { pods: '10', 'limits.cpu': '2' }, used: { pods: '1', 'limits.cpu': '500m' } } },
    cells: ['q', 'pods: 1/10', 'limits.cpu: 500m/2', AGE],
  },
  '/secrets': { columns: 'Name,Type,Data,Age', obj: { metadata: meta('s'), type: 'Opaque', data: { k: 'dg==' } }, cells: ['s', 'Opaque', 1, AGE] },
  '/serviceaccounts': { columns: 'Name,Age', obj: { metadata: meta('sa'), secrets: [{ name: 'legacy' }] }, cells: ['sa', AGE] },
  '/services': {
    columns: 'Name,Type,Cluster-IP,External-IP,Port(s),Age,Selector*',
    obj: { metadata: meta('svc'), spec: { type: 'ClusterIP', clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ports: [{ port: 53, protocol: 'UDP' }], selector: { app: 'dns' } } },
    cells: ['svc', 'ClusterIP', '10.96.0.10', '<none>', '53/UDP', AGE, 'app=dns'],
  },
  'admissionregistration.k8s.io/mutatingadmissionpolicies': {
    columns: 'Name,Mutations,ParamKind,Age',
    obj: { metadata: meta('map'), spec: { mutations: [{}, {}] } },
    cells: ['map', 2, '<unset>', AGE],
  },
  'admissionregistration.k8s.io/mutatingadmissionpolicybindings': {
    columns: 'Name,PolicyName,ParamRef,Age',
    obj: { metadata: meta('mapb'), spec: { policyName: 'map' } },
    cells: ['mapb', 'map', '<unset>', AGE],
  },
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': {
    columns: 'Name,Webhooks,Age',
    obj: { metadata: meta('mwc'), webhooks: [{ name: 'a.example.com' }] },
    cells: ['mwc', 1, AGE],
  },
  'admissionregistration.k8s.io/validatingadmissionpolicies': {
    columns: 'Name,Validations,ParamKind,Age',
    obj: { metadata: meta('vap'), spec: { validations: [{ expression: 'true' }], paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } } },
    cells: ['vap', 1, 'v1/ConfigMap', AGE],
  },
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': {
    columns: 'Name,PolicyName,ParamRef,Age',
    obj: { metadata: meta('vapb'), spec: { policyName: 'vap' } },
    cells: ['vapb', 'vap', '<unset>', AGE],
  },
  'admissionregistration.k8s.io/validatingwebhookconfigurations': {
    columns: 'Name,Webhooks,Age',
    obj: { metadata: meta('vwc'), webhooks: [] },
    cells: ['vwc', 0, AGE],
  },
  'apiextensions.k8s.io/customresourcedefinitions': DEFAULT,
  'apps/controllerrevisions': {
    columns: 'Name,Controller,Revision,Age',
    obj: { metadata: meta('cr', { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: 'u', controller: true }] }), revision: 4 },
    cells: ['cr', 'statefulset.apps/db', 4, AGE],
  },
  'apps/daemonsets': {
    columns: 'Name,Desired,Current,Ready,Up-to-date,Available,Node Selector,Age,Containers*,Images*,Selector*',
    obj: { metadata: meta('ds'), spec: { selector, template }, status: { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 3, numberAvailable: 2 } },
    cells: ['ds', 3, 3, 2, 3, 2, '<none>', AGE, 'c', 'nginx', 'app=web'],
  },
  'apps/deployments': {
    columns: 'Name,Ready,Up-to-date,Available,Age,Containers*,Images*,Selector*',
    obj: { metadata: meta('d'), spec: { replicas: 3, selector, template }, status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 } },
    cells: ['d', '2/3', 3, 2, AGE, 'c', 'nginx', 'app=web'],
  },
  'apps/replicasets': {
    columns: 'Name,Desired,Current,Ready,Age,Containers*,Images*,Selector*',
    obj: { metadata: meta('rs'), spec: { replicas: 2, selector, template }, status: { replicas: 2, readyReplicas: 2 } },
    cells: ['rs', 2, 2, 2, AGE, 'c', 'nginx', 'app=web'],
  },
  'apps/statefulsets': {
    columns: 'Name,Ready,Age,Containers*,Images*',
    obj: { metadata: meta('sts'), spec: { replicas: 3, selector, template }, status: { readyReplicas: 1 } },
    cells: ['sts', '1/3', AGE, 'c', 'nginx'],
  },
  'autoscaling/horizontalpodautoscalers': {
    columns: 'Name,Reference,Targets,MinPods,MaxPods,Replicas,Age',
    obj: { metadata: meta('hpa'), spec: { scaleTargetRef: { kind: 'Deployment', name: 'd' }, minReplicas: 1, maxReplicas: 5 }, status: { currentReplicas: 2 } },
    cells: ['hpa', 'Deployment/d', '<none>', '1', 5, 2, AGE], // MinPods is a string cell ("<unset>" when nil)
  },
  'batch/cronjobs': {
    columns: 'Name,Schedule,Timezone,Suspend,Active,Last Schedule,Age,Containers*,Images*,Selector*',
    obj: { metadata: meta('cj'), spec: { schedule: '*/5 * * * *', suspend: false, jobTemplate: { spec: { template } } }, status: {} },
    cells: ['cj', '*/5 * * * *', '<none>', 'False', 0, '<none>', AGE, 'c', 'nginx', '<none>'],
  },
  'batch/jobs': {
    columns: 'Name,Status,Completions,Duration,Age,Containers*,Images*,Selector*',
    obj: { metadata: meta('j'), spec: { completions: 1, selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u' } }, template }, status: { succeeded: 0 } },
    cells: ['j', 'Running', '0/1', '', AGE, 'c', 'nginx', 'batch.kubernetes.io/controller-uid=u'],
  },
  'certificates.k8s.io/certificatesigningrequests': {
    columns: 'Name,Age,SignerName,Requestor,RequestedDuration,Condition',
    obj: { metadata: meta('csr'), spec: { signerName: 'kubernetes.io/kube-apiserver-client', username: 'alice', request: '' }, status: {} },
    cells: ['csr', AGE, 'kubernetes.io/kube-apiserver-client', 'alice', '<none>', 'Pending'],
  },
  'certificates.k8s.io/clustertrustbundles': {
    columns: 'Name,SignerName',
    obj: { metadata: meta('ctb'), spec: { signerName: 'example.com/s', trustBundle: '' } },
    cells: ['ctb', 'example.com/s'],
  },
  'coordination.k8s.io/leasecandidates': {
    columns: 'Name,LeaseName,BinaryVersion,EmulationVersion,Age',
    obj: { metadata: meta('lc'), spec: { leaseName: 'l', binaryVersion: '1.36.0', emulationVersion: '1.36.0' } },
    cells: ['lc', 'l', '1.36.0', '1.36.0', AGE],
  },
  'coordination.k8s.io/leases': { columns: 'Name,Holder,Age', obj: { metadata: meta('l'), spec: { holderIdentity: 'me' } }, cells: ['l', 'me', AGE] },
  'discovery.k8s.io/endpointslices': {
    columns: 'Name,AddressType,Ports,Endpoints,Age',
    obj: { metadata: meta('es'), addressType: 'IPv4', ports: [{ port: 80 }], endpoints: [{ addresses: ['10.0.0.1'] }] },
    cells: ['es', 'IPv4', '80', '10.0.0.1', AGE],
  },
  'events.k8s.io/events': {
    columns: 'Last Seen,Type,Reason,Object,Subobject*,Source*,Message,First Seen*,Count*,Name*',
    obj: {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: meta('ev2'),
      eventTime: '2026-03-01T11:55:00.000000Z',
      regarding: { kind: 'Pod', name: 'p' },
      reason: 'Started',
      type: 'Normal',
      note: 'hi',
      action: 'Start',
      reportingController: 'kubelet',
      reportingInstance: 'n1',
    },
    cells: [AGE, 'Normal', 'Started', 'pod/p', '', 'kubelet, n1', 'hi', AGE, 1, 'ev2'],
  },
  'flowcontrol.apiserver.k8s.io/flowschemas': {
    columns: 'Name,PriorityLevel,MatchingPrecedence,DistinguisherMethod,Age,MissingPL',
    obj: { metadata: meta('fs'), spec: { priorityLevelConfiguration: { name: 'global-default' }, matchingPrecedence: 9900 }, status: {} },
    cells: ['fs', 'global-default', 9900, '<none>', AGE, '?'],
  },
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': {
    columns: 'Name,Type,NominalConcurrencyShares,Queues,HandSize,QueueLengthLimit,Age',
    obj: { metadata: meta('plc'), spec: { type: 'Exempt', exempt: {} } },
    cells: ['plc', 'Exempt', '<none>', '<none>', '<none>', '<none>', AGE],
  },
  'internal.apiserver.k8s.io/storageversions': {
    columns: 'Name,CommonEncodingVersion,StorageVersions,Age',
    obj: { metadata: meta('apps.deployments'), spec: {}, status: { storageVersions: [{ apiServerID: 'a', encodingVersion: 'apps/v1' }], commonEncodingVersion: 'apps/v1' } },
    cells: ['apps.deployments', 'apps/v1', 'a=apps/v1', AGE],
  },
  'networking.k8s.io/ingressclasses': {
    columns: 'Name,Controller,Parameters,Age',
    obj: { metadata: meta('ic'), spec: { controller: 'example.com/ingress' } },
    cells: ['ic', 'example.com/ingress', '<none>', AGE],
  },
  'networking.k8s.io/ingresses': {
    columns: 'Name,Class,Hosts,Address,Ports,Age',
    obj: { metadata: meta('ing'), spec: { rules: [{ host: 'foo.example.com' }] }, status: {} },
    cells: ['ing', '<none>', 'foo.example.com', '', '80', AGE],
  },
  'networking.k8s.io/ipaddresses': {
    columns: 'Name,ParentRef',
    obj: { metadata: meta('10.96.0.10'), spec: { parentRef: { group: '', resource: 'services', namespace: 'kube-system', name: 'dns' } } },
    cells: ['10.96.0.10', 'services/kube-system/dns', AGE],
  },
  'networking.k8s.io/networkpolicies': {
    columns: 'Name,Pod-Selector,Age',
    obj: { metadata: meta('np'), spec: { podSelector: selector } },
    cells: ['np', 'app=web', AGE],
  },
  'networking.k8s.io/servicecidrs': { columns: 'Name,CIDRs,Age', obj: { metadata: meta('sc'), spec: { cidrs: ['10.96.0.0/16'] } }, cells: ['sc', '10.96.0.0/16', AGE] },
  'node.k8s.io/runtimeclasses': { columns: 'Name,Handler,Age', obj: { metadata: meta('rc'), handler: 'runc' }, cells: ['rc', 'runc', AGE] },
  'policy/poddisruptionbudgets': {
    columns: 'Name,Min Available,Max Unavailable,Allowed Disruptions,Age',
    obj: { metadata: meta('pdb'), spec: { minAvailable: 1 }, status: { disruptionsAllowed: 0 } },
    cells: ['pdb', '1', 'N/A', 0, AGE],
  },
  'rbac.authorization.k8s.io/clusterrolebindings': {
    columns: 'Name,Role,Age,Users*,Groups*,ServiceAccounts*',
    obj: { metadata: meta('crb'), roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'alice' }] },
    cells: ['crb', 'ClusterRole/view', AGE, 'alice', '', ''],
  },
  'rbac.authorization.k8s.io/clusterroles': DEFAULT,
  'rbac.authorization.k8s.io/rolebindings': {
    columns: 'Name,Role,Age,Users*,Groups*,ServiceAccounts*',
    obj: { metadata: meta('rb'), roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, subjects: [{ kind: 'ServiceAccount', name: 'sa', namespace: 'ns' }] },
    cells: ['rb', 'Role/r', AGE, '', '', 'ns/sa'],
  },
  'rbac.authorization.k8s.io/roles': DEFAULT,
  'resource.k8s.io/deviceclasses': { columns: 'Name,Age', obj: { metadata: meta('dc'), spec: {} }, cells: ['dc', AGE] },
  'resource.k8s.io/resourceclaims': { columns: 'Name,State,Age', obj: { metadata: meta('rc'), spec: {} }, cells: ['rc', 'pending', AGE] },
  'resource.k8s.io/resourceclaimtemplates': { columns: 'Name,Age', obj: { metadata: meta('rct'), spec: { spec: {} } }, cells: ['rct', AGE] },
  'resource.k8s.io/resourceslices': {
    columns: 'Name,Node,Driver,Pool,Age',
    obj: { metadata: meta('slice'), spec: { nodeName: 'n1', driver: 'gpu.example.com', pool: { name: 'p', generation: 1, resourceSliceCount: 1 } } },
    cells: ['slice', 'n1', 'gpu.example.com', 'p', AGE],
  },
  'scheduling.k8s.io/priorityclasses': {
    columns: 'Name,Value,Global-Default,Age,PreemptionPolicy',
    types: 'string,integer,boolean,string,string',
    obj: { metadata: meta('high'), value: 1000, globalDefault: false, preemptionPolicy: 'PreemptLowerPriority' },
    cells: ['high', 1000, false, AGE, 'PreemptLowerPriority'],
  },
  'storage.k8s.io/csidrivers': {
    columns: 'Name,AttachRequired,PodInfoOnMount,StorageCapacity,TokenRequests,RequiresRepublish,Modes,Age',
    obj: { metadata: meta('csi.example.com'), spec: { attachRequired: true, podInfoOnMount: false, storageCapacity: false, requiresRepublish: false, volumeLifecycleModes: ['Persistent'] } },
    cells: ['csi.example.com', true, false, false, '<unset>', false, 'Persistent', AGE],
  },
  'storage.k8s.io/csinodes': { columns: 'Name,Drivers,Age', obj: { metadata: meta('n1'), spec: { drivers: [{ name: 'd', nodeID: 'n1' }] } }, cells: ['n1', 1, AGE] },
  'storage.k8s.io/csistoragecapacities': DEFAULT,
  'storage.k8s.io/storageclasses': {
    columns: 'Name,Provisioner,ReclaimPolicy,VolumeBindingMode,AllowVolumeExpansion,Age',
    obj: { metadata: meta('std'), provisioner: 'example.com/p', reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' },
    cells: ['std', 'example.com/p', 'Delete', 'Immediate', false, AGE],
  },
  'storage.k8s.io/volumeattachments': {
    columns: 'Name,Attacher,PV,Node,Attached,Age',
    nameFormatted: ['Attacher'],
    obj: { metadata: meta('va'), spec: { attacher: 'csi.example.com', source: { persistentVolumeName: 'pv' }, nodeName: 'n1' }, status: { attached: true } },
    cells: ['va', 'csi.example.com', 'pv', 'n1', true, AGE],
  },
  'storage.k8s.io/volumeattributesclasses': {
    columns: 'Name,DriverName,Age',
    obj: { metadata: meta('gold'), driverName: 'csi.example.com', parameters: {} },
    cells: ['gold', 'csi.example.com', AGE],
  },
  'storagemigration.k8s.io/storageversionmigrations': {
    columns: 'Name,Resource',
    unformattedName: true,
    obj: { metadata: meta('m'), spec: { resource: { group: 'apps', resource: 'deployments' } } },
    cells: ['m', 'deployments.apps'],
  },
  'apiregistration.k8s.io/apiservices': {
    columns: 'Name,Service,Available,Age',
    obj: { metadata: meta('v1.'), spec: { version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 }, status: { conditions: [{ type: 'Available', status: 'True', reason: 'Local' }] } },
    cells: ['v1.', 'Local', 'True', AGE],
  },
};

const UNVERIFIED = new Set([
  'certificates.k8s.io/podcertificaterequests',
  'resource.k8s.io/devicetaintrules',
  'resource.k8s.io/resourcepoolstatusrequests',
  'scheduling.k8s.io/podgroups',
  'scheduling.k8s.io/workloads',
]);

function servedResources(): string[] {
  const out = new Set<string>();
  for (const g of builtinCatalog().groups) {
    for (const v of g.versions) {
      for (const r of v.resources) if (r.verbs.includes('list') && r.verbs.includes('get')) out.add(`${g.name}/${r.name}`);
    }
  }
  return [...out].sort();
}

describe('every built-in kind has kube’s Table', () => {
  const served = servedResources();

  it('each listable resource of the catalog has an expectation here (add one when the catalog grows)', () => {
    const missing = served.filter((k) => EXPECT[k] === undefined && !UNVERIFIED.has(k));
    assert.deepEqual(missing, []);
  });

  for (const key of served) {
    const want = EXPECT[key];
    if (want === undefined) continue;
    const [group, resource] = key.split('/') as [string, string];
    it(key, () => {
      const t = tableConvertorFor(group, resource);
      if (want === DEFAULT) assert.equal(t, DEFAULT_TABLE, 'kube uses rest.NewDefaultTableConvertor for this store');
      const cols = t.columns;
      assert.equal(cols.map((c) => (c.priority === 1 ? `${c.name}*` : c.name)).join(','), want.columns);
      if (want.types) assert.equal(cols.map((c) => c.type).join(','), want.types);
      // Every printer declares Name with Format "name" (SVM's printer does not); other columns have no format.
      const nameCol = cols.find((c) => c.name === 'Name');
      if (nameCol) assert.equal(nameCol.format, want.unformattedName ? '' : 'name');
      for (const c of cols) if (c.name !== 'Name') assert.equal(c.format, want.nameFormatted?.includes(c.name) ? 'name' : '', `${c.name}'s format`);
      for (const c of cols) assert.equal(typeof c.description, 'string');
      if (want.obj && want.cells) assert.deepEqual(t.cells(want.obj, NOW), want.cells);
    });
  }

  for (const key of UNVERIFIED) {
    it(`${key} prints a table`, () => {
      const [group, resource] = key.split('/') as [string, string];
      const t = tableConvertorFor(group, resource);
      assert.ok(t.columns.length > 0);
      assert.equal(t.cells({ metadata: meta('x') }, NOW)[0], 'x');
    });
  }
});
