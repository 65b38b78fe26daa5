import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { webcrypto } from 'node:crypto';
import { kubectl, kubectlMissing, removeDir, startServer, type TestServer } from '../helpers/server.js';

/**
 * Real kubectl `get <resource>` (and `-o wide`) against a real server for one
 * object of every built-in kind: the header line kubectl prints from our Table's
 * column definitions must be kube-apiserver 1.36's.
 *
 * The expected headers are written out here from upstream, not from our code:
 * pkg/printers/internalversion/printers.go AddHandlers (each kind's
 * ...ColumnDefinitions: kubectl prints the names upper-cased, priority-0 columns
 * without -o wide, all with it), kube-aggregator's APIService table, and
 * rest.NewDefaultTableConvertor (NAME, CREATED AT) for the stores that use it
 * (Role, ClusterRole, LimitRange, CSIStorageCapacity, CustomResourceDefinition).
 * ServiceAccount: PR #117160 (1.35) removed SECRETS. IPAddress declares no Age
 * column upstream (its row has an age cell that kubectl does not show).
 * Not checked: componentstatuses (not served by Capstan), PodCertificateRequest
 * (needs a pod's key proof), and the kinds whose 1.36 printer could not be read
 * upstream (DeviceTaintRule, PodGroup, ResourcePoolStatusRequest, Workload).
 */

const MANIFEST = `apiVersion: v1
kind: Namespace
metadata: {name: print}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm, namespace: print}
data: {a: "1"}
---
apiVersion: v1
kind: Secret
metadata: {name: s, namespace: print}
stringData: {k: v}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: sa, namespace: print}
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: print}
spec:
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: manual, namespace: print}
subsets: [{addresses: [{ip: 10.1.2.3}], ports: [{port: 80}]}]
---
apiVersion: v1
kind: Event
metadata: {name: ev, namespace: print}
involvedObject: {kind: Pod, name: p, namespace: print}
reason: Started
message: started
type: Normal
source: {component: kubelet}
---
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: ev2, namespace: print}
eventTime: "2026-01-01T00:00:00.000000Z"
regarding: {kind: Pod, name: p, namespace: print}
reason: Started
action: Start
note: started
type: Normal
reportingController: example.com/c
reportingInstance: i1
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: print, labels: {app: web}}
spec:
  containers: [{name: c, image: nginx}]
---
apiVersion: v1
kind: PodTemplate
metadata: {name: pt, namespace: print}
template:
  metadata: {labels: {app: web}}
  spec:
    containers: [{name: c, image: nginx}]
---
apiVersion: v1
kind: ReplicationController
metadata: {name: rc, namespace: print}
spec:
  replicas: 0
  selector: {app: rc}
  template:
    metadata: {labels: {app: rc}}
    spec:
      containers: [{name: c, image: nginx}]
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: q, namespace: print}
spec: {hard: {pods: "100"}}
---
apiVersion: v1
kind: LimitRange
metadata: {name: lr, namespace: print}
spec:
  limits: [{type: Container, max: {cpu: "4"}}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: pvc, namespace: print}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-print}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  hostPath: {path: /tmp/pv}
---
apiVersion: v1
kind: Node
metadata: {name: node-print}
---
apiVersion: apps/v1
kind: ControllerRevision
metadata: {name: cr, namespace: print}
revision: 1
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds, namespace: print}
spec:
  selector: {matchLabels: {app: ds}}
  template:
    metadata: {labels: {app: ds}}
    spec:
      containers: [{name: c, image: nginx}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: print}
spec:
  replicas: 0
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers: [{name: c, image: nginx}]
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs, namespace: print}
spec:
  replicas: 0
  selector: {matchLabels: {app: rs}}
  template:
    metadata: {labels: {app: rs}}
    spec:
      containers: [{name: c, image: nginx}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: sts, namespace: print}
spec:
  replicas: 0
  serviceName: svc
  selector: {matchLabels: {app: sts}}
  template:
    metadata: {labels: {app: sts}}
    spec:
      containers: [{name: c, image: nginx}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj, namespace: print}
spec:
  schedule: "*/5 * * * *"
  suspend: true
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: print}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: hpa, namespace: print}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: d}
  minReplicas: 1
  maxReplicas: 3
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb, namespace: print}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: web}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: ing, namespace: print}
spec:
  rules:
  - host: foo.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: svc, port: {number: 80}}}}
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: ic-print}
spec: {controller: example.com/ingress}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: np, namespace: print}
spec:
  podSelector: {matchLabels: {app: web}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: r, namespace: print}
rules: [{apiGroups: [""], resources: [pods], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rb, namespace: print}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: r}
subjects: [{kind: ServiceAccount, name: sa, namespace: print}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: cr-print}
rules: [{apiGroups: [""], resources: [pods], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: crb-print}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cr-print}
subjects: [{kind: User, name: alice, apiGroup: rbac.authorization.k8s.io}]
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: l, namespace: print}
spec: {holderIdentity: me}
---
apiVersion: coordination.k8s.io/v1beta1
kind: LeaseCandidate
metadata: {name: lc, namespace: print}
spec: {leaseName: l, binaryVersion: 1.36.0, emulationVersion: 1.36.0, strategy: OldestEmulationVersion}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: es, namespace: print}
addressType: IPv4
ports: [{port: 80}]
endpoints: [{addresses: [10.1.2.3]}]
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: sc-print}
provisioner: example.com/p
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: csi.example.com}
spec: {attachRequired: true}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: node-print}
spec:
  drivers: [{name: csi.example.com, nodeID: node-print}]
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: va-print}
spec:
  attacher: csi.example.com
  nodeName: node-print
  source: {persistentVolumeName: pv-print}
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttributesClass
metadata: {name: vac-print}
driverName: csi.example.com
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: cap, namespace: print}
storageClassName: sc-print
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: rtc-print}
handler: runc
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: pc-print}
value: 1000
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: plc-print}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 5
    limitResponse: {type: Reject}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: fs-print}
spec:
  priorityLevelConfiguration: {name: plc-print}
  matchingPrecedence: 1000
  rules:
  - subjects: [{kind: Group, group: {name: "system:authenticated"}}]
    resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"]}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: vwc-print}
webhooks: []
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: mwc-print}
webhooks: []
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: vap-print}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations: [{expression: "true"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: vapb-print}
spec:
  policyName: vap-print
  validationActions: [Deny]
  matchResources:
    namespaceSelector: {matchLabels: {print: "none"}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: map-print}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: "Object{}"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: mapb-print}
spec:
  policyName: map-print
  matchResources:
    namespaceSelector: {matchLabels: {print: "none"}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.print.example.com}
spec:
  group: print.example.com
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: dc-print}
spec: {}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: claim, namespace: print}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: dc-print}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: claimtpl, namespace: print}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: dc-print}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: slice-print}
spec:
  driver: gpu.example.com
  nodeName: node-print
  pool: {name: pool, generation: 1, resourceSliceCount: 1}
  devices: []
---
apiVersion: internal.apiserver.k8s.io/v1alpha1
kind: StorageVersion
metadata: {name: print.example.com.widgets}
spec: {}
---
apiVersion: storagemigration.k8s.io/v1beta1
kind: StorageVersionMigration
metadata: {name: svm-print}
spec:
  resource: {group: print.example.com, resource: widgets}
---
apiVersion: resource.k8s.io/v1beta2
kind: DeviceTaintRule
metadata: {name: dtr-print}
spec:
  taint: {key: example.com/broken, effect: NoSchedule}
---
apiVersion: resource.k8s.io/v1alpha3
kind: ResourcePoolStatusRequest
metadata: {name: rpsr-print}
spec: {driver: gpu.example.com}
---
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: pg, namespace: print}
spec:
  schedulingPolicy: {basic: {}}
---
apiVersion: scheduling.k8s.io/v1alpha2
kind: Workload
metadata: {name: wl, namespace: print}
spec:
  podGroupTemplates: [{name: t, schedulingPolicy: {basic: {}}}]
`;

/** resource → [header, wide header when it differs]. */
const HEADERS: Record<string, [string, string?]> = {
  apiservices: ['NAME SERVICE AVAILABLE AGE'],
  certificatesigningrequests: ['NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION'],
  clusterrolebindings: ['NAME ROLE AGE', 'NAME ROLE AGE USERS GROUPS SERVICEACCOUNTS'],
  clusterroles: ['NAME CREATED AT'],
  clustertrustbundles: ['NAME SIGNERNAME'],
  configmaps: ['NAME DATA AGE'],
  'controllerrevisions.apps': ['NAME CONTROLLER REVISION AGE'],
  'cronjobs.batch': ['NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE', 'NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE CONTAINERS IMAGES SELECTOR'],
  csidrivers: ['NAME ATTACHREQUIRED PODINFOONMOUNT STORAGECAPACITY TOKENREQUESTS REQUIRESREPUBLISH MODES AGE'],
  csinodes: ['NAME DRIVERS AGE'],
  csistoragecapacities: ['NAME CREATED AT'],
  customresourcedefinitions: ['NAME CREATED AT'],
  'daemonsets.apps': ['NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE', 'NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE CONTAINERS IMAGES SELECTOR'],
  'deployments.apps': ['NAME READY UP-TO-DATE AVAILABLE AGE', 'NAME READY UP-TO-DATE AVAILABLE AGE CONTAINERS IMAGES SELECTOR'],
  deviceclasses: ['NAME AGE'],
  endpoints: ['NAME ENDPOINTS AGE'],
  endpointslices: ['NAME ADDRESSTYPE PORTS ENDPOINTS AGE'],
  events: ['LAST SEEN TYPE REASON OBJECT MESSAGE', 'LAST SEEN TYPE REASON OBJECT SUBOBJECT SOURCE MESSAGE FIRST SEEN COUNT NAME'],
  'events.events.k8s.io': ['LAST SEEN TYPE REASON OBJECT MESSAGE', 'LAST SEEN TYPE REASON OBJECT SUBOBJECT SOURCE MESSAGE FIRST SEEN COUNT NAME'],
  flowschemas: ['NAME PRIORITYLEVEL MATCHINGPRECEDENCE DISTINGUISHERMETHOD AGE MISSINGPL'],
  horizontalpodautoscalers: ['NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE'],
  ingressclasses: ['NAME CONTROLLER PARAMETERS AGE'],
  ingresses: ['NAME CLASS HOSTS ADDRESS PORTS AGE'],
  ipaddresses: ['NAME PARENTREF'],
  'jobs.batch': ['NAME STATUS COMPLETIONS DURATION AGE', 'NAME STATUS COMPLETIONS DURATION AGE CONTAINERS IMAGES SELECTOR'],
  leasecandidates: ['NAME LEASENAME BINARYVERSION EMULATIONVERSION AGE'],
  leases: ['NAME HOLDER AGE'],
  limitranges: ['NAME CREATED AT'],
  mutatingadmissionpolicies: ['NAME MUTATIONS PARAMKIND AGE'],
  mutatingadmissionpolicybindings: ['NAME POLICYNAME PARAMREF AGE'],
  mutatingwebhookconfigurations: ['NAME WEBHOOKS AGE'],
  namespaces: ['NAME STATUS AGE'],
  networkpolicies: ['NAME POD-SELECTOR AGE'],
  nodes: ['NAME STATUS ROLES AGE VERSION', 'NAME STATUS ROLES AGE VERSION INTERNAL-IP EXTERNAL-IP OS-IMAGE KERNEL-VERSION CONTAINER-RUNTIME'],
  persistentvolumeclaims: ['NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS AGE', 'NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS AGE VOLUMEMODE'],
  persistentvolumes: [
    'NAME CAPACITY ACCESS MODES RECLAIM POLICY STATUS CLAIM STORAGECLASS VOLUMEATTRIBUTESCLASS REASON AGE',
    'NAME CAPACITY ACCESS MODES RECLAIM POLICY STATUS CLAIM STORAGECLASS VOLUMEATTRIBUTESCLASS REASON AGE VOLUMEMODE',
  ],
  poddisruptionbudgets: ['NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE'],
  pods: ['NAME READY STATUS RESTARTS AGE', 'NAME READY STATUS RESTARTS AGE IP NODE NOMINATED NODE READINESS GATES'],
  podtemplates: ['NAME CONTAINERS IMAGES POD LABELS'],
  priorityclasses: ['NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY'],
  prioritylevelconfigurations: ['NAME TYPE NOMINALCONCURRENCYSHARES QUEUES HANDSIZE QUEUELENGTHLIMIT AGE'],
  'replicasets.apps': ['NAME DESIRED CURRENT READY AGE', 'NAME DESIRED CURRENT READY AGE CONTAINERS IMAGES SELECTOR'],
  replicationcontrollers: ['NAME DESIRED CURRENT READY AGE', 'NAME DESIRED CURRENT READY AGE CONTAINERS IMAGES SELECTOR'],
  resourceclaims: ['NAME STATE AGE'],
  resourceclaimtemplates: ['NAME AGE'],
  resourcequotas: ['NAME REQUEST LIMIT AGE'],
  resourceslices: ['NAME NODE DRIVER POOL AGE'],
  rolebindings: ['NAME ROLE AGE', 'NAME ROLE AGE USERS GROUPS SERVICEACCOUNTS'],
  roles: ['NAME CREATED AT'],
  runtimeclasses: ['NAME HANDLER AGE'],
  secrets: ['NAME TYPE DATA AGE'],
  serviceaccounts: ['NAME AGE'],
  servicecidrs: ['NAME CIDRS AGE'],
  services: ['NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE', 'NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE SELECTOR'],
  'statefulsets.apps': ['NAME READY AGE', 'NAME READY AGE CONTAINERS IMAGES'],
  storageclasses: ['NAME PROVISIONER RECLAIMPOLICY VOLUMEBINDINGMODE ALLOWVOLUMEEXPANSION AGE'],
  storageversionmigrations: ['NAME RESOURCE'],
  storageversions: ['NAME COMMONENCODINGVERSION STORAGEVERSIONS AGE'],
  validatingadmissionpolicies: ['NAME VALIDATIONS PARAMKIND AGE'],
  validatingadmissionpolicybindings: ['NAME POLICYNAME PARAMREF AGE'],
  validatingwebhookconfigurations: ['NAME WEBHOOKS AGE'],
  volumeattachments: ['NAME ATTACHER PV NODE ATTACHED AGE'],
  volumeattributesclasses: ['NAME DRIVERNAME AGE'],
};

/** kubectl pads columns with three or more spaces; names inside a column have single spaces. */
function header(out: string): string {
  const first = out.split('\n')[0] ?? '';
  return first
    .trim()
    .split(/\s{2,}/)
    .join(' ');
}

const skip = kubectlMissing();

describe('kubectl get prints kube’s columns for every built-in kind', { skip }, () => {
  let server: TestServer;
  const ok = async (args: string[], input?: string): Promise<string> => {
    const r = await kubectl(server, args, input);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed:\n${r.stderr}\n${r.stdout}`);
    return r.stdout;
  };

  before(async () => {
    server = await startServer({ args: ['--runtime-config=api/all=true'] });
    await ok(['apply', '-f', '-'], MANIFEST);
    // A CSR with a real PKCS#10 request, and a trust bundle holding the server's CA.
    // @peculiar/x509's dependency injection needs the Reflect metadata API loaded first.
    await import('reflect-metadata');
    const x509 = await import('@peculiar/x509');
    x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
    const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
    const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=alice', keys, signingAlgorithm: alg });
    const ca = readFileSync(join(server.dataDir, 'pki', 'ca.crt'), 'utf8');
    const certs = [
      {
        apiVersion: 'certificates.k8s.io/v1',
        kind: 'CertificateSigningRequest',
        metadata: { name: 'csr-print' },
        spec: { signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], request: Buffer.from(csr.toString('pem')).toString('base64') },
      },
      { apiVersion: 'certificates.k8s.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name: 'ctb-print' }, spec: { trustBundle: ca } },
    ];
    for (const c of certs) await ok(['create', '-f', '-'], JSON.stringify(c));
  });
  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  for (const [resource, [plain, wide]] of Object.entries(HEADERS)) {
    it(resource, async () => {
      const ns = ['-n', 'print'];
      assert.equal(header(await ok(['get', resource, ...ns])), plain);
      assert.equal(header(await ok(['get', resource, ...ns, '-o', 'wide'])), wide ?? plain);
    });
  }

  it('each object shows up as a row (the Table rows are the objects)', async () => {
    const out = await ok(['get', 'storageversionmigrations', 'svm-print', '--no-headers']);
    assert.equal(out.trim().split(/\s{2,}/).join(' '), 'svm-print widgets.print.example.com');
    const sa = await ok(['get', 'serviceaccounts', 'sa', '-n', 'print', '--no-headers']);
    assert.match(sa, /^sa\s+\d+s\n$/);
  });
});
