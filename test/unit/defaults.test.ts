import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyDefaults, computePodQOS, preparePodForCreate, prepareJobForCreate, initServiceIPFamilies, setAllocatedClusterIPs, familiesToAllocate } from '../../src/registry/defaults/index.js';
import type { KubeObject } from '../../src/machinery/object.js';

/**
 * Expected objects are what kube-apiserver 1.36 returns for the minimal
 * objects (kubectl get -o yaml less metadata that the store fills), derived
 * from pkg/apis/<group>/v1/defaults.go and the generated defaulters.
 */

function defaulted(group: string, version: string, kind: string, obj: KubeObject): KubeObject {
  const copy = structuredClone(obj);
  applyDefaults(group, version, kind, copy);
  return copy;
}

const container = { name: 'nginx', image: 'nginx:1.27' };
const defaultedContainer = {
  name: 'nginx',
  image: 'nginx:1.27',
  imagePullPolicy: 'IfNotPresent',
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
};
const defaultedTemplateSpec = {
  containers: [defaultedContainer],
  dnsPolicy: 'ClusterFirst',
  restartPolicy: 'Always',
  schedulerName: 'default-scheduler',
  securityContext: {},
  terminationGracePeriodSeconds: 30,
};

test('Deployment: minimal deployment gets kube defaults', () => {
  const got = defaulted('apps', 'v1', 'Deployment', {
    metadata: { name: 'web' },
    spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [container] } } },
  });
  assert.deepEqual(got.spec, {
    replicas: 1,
    selector: { matchLabels: { app: 'web' } },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
    template: { metadata: { labels: { app: 'web' } }, spec: defaultedTemplateSpec },
  });
});

test('Deployment: Recreate gets no rollingUpdate; explicit values are kept', () => {
  const got = defaulted('apps', 'v1', 'Deployment', { spec: { replicas: 0, strategy: { type: 'Recreate' }, template: { spec: { containers: [container] } } } });
  const spec = got.spec as Record<string, unknown>;
  assert.equal(spec.replicas, 0);
  assert.deepEqual(spec.strategy, { type: 'Recreate' });
});

test('Pod: container, probe, volume and env defaults', () => {
  const got = defaulted('', 'v1', 'Pod', {
    metadata: { name: 'p' },
    spec: {
      serviceAccount: 'builder',
      containers: [
        {
          name: 'a',
          image: 'busybox',
          ports: [{ containerPort: 80 }],
          env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
          livenessProbe: { httpGet: { port: 8080 } },
          readinessProbe: { grpc: { port: 9000 }, periodSeconds: 5 },
          resources: { limits: { cpu: '1', memory: '1Gi' } },
        },
      ],
      initContainers: [{ name: 'init', image: 'registry.k8s.io/pause@sha256:' + 'a'.repeat(64) }],
      volumes: [
        { name: 'scratch' },
        { name: 'cfg', configMap: { name: 'c' } },
        { name: 'sec', secret: { secretName: 's' } },
        { name: 'host', hostPath: { path: '/var' } },
        { name: 'proj', projected: { sources: [{ serviceAccountToken: { path: 'token' } }, { downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' } }] } }] } },
      ],
    },
  });
  const spec = got.spec as Record<string, any>;
  assert.equal(spec.enableServiceLinks, true);
  assert.equal(spec.serviceAccountName, 'builder');
  assert.equal(spec.serviceAccount, 'builder');
  const c = spec.containers[0];
  assert.equal(c.imagePullPolicy, 'Always');
  assert.deepEqual(c.ports, [{ containerPort: 80, protocol: 'TCP' }]);
  assert.deepEqual(c.env[0].valueFrom.fieldRef, { apiVersion: 'v1', fieldPath: 'spec.nodeName' });
  assert.deepEqual(c.livenessProbe, { httpGet: { port: 8080, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
  assert.deepEqual(c.readinessProbe, { grpc: { port: 9000, service: '' }, timeoutSeconds: 1, periodSeconds: 5, successThreshold: 1, failureThreshold: 3 });
  assert.deepEqual(c.resources, { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } });
  assert.equal(spec.initContainers[0].imagePullPolicy, 'IfNotPresent', 'a digest-only reference has no tag');
  assert.deepEqual(spec.volumes, [
    { name: 'scratch', emptyDir: {} },
    { name: 'cfg', configMap: { name: 'c', defaultMode: 420 } },
    { name: 'sec', secret: { secretName: 's', defaultMode: 420 } },
    { name: 'host', hostPath: { path: '/var', type: '' } },
    {
      name: 'proj',
      projected: {
        defaultMode: 420,
        sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }, { downwardAPI: { items: [{ path: 'n', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } }] } }],
      },
    },
  ]);
});

test('image pull policy follows the tag', () => {
  const cases: Array<[string, string]> = [
    ['nginx', 'Always'],
    ['nginx:latest', 'Always'],
    ['nginx:1.0', 'IfNotPresent'],
    ['localhost:5000/app', 'Always'],
    ['localhost:5000/app:v2', 'IfNotPresent'],
    ['gcr.io/x/y:latest@sha256:' + 'b'.repeat(64), 'Always'],
    ['Upper/Case', 'IfNotPresent'],
    ['', 'IfNotPresent'],
  ];
  for (const [image, want] of cases) {
    const got = defaulted('', 'v1', 'Pod', { spec: { containers: [{ name: 'c', image }] } });
    assert.equal((got.spec as any).containers[0].imagePullPolicy, want, image);
  }
});

test('Pod: hostNetwork copies containerPort to hostPort; templates get no pod-only defaults', () => {
  const pod = defaulted('', 'v1', 'Pod', { spec: { hostNetwork: true, containers: [{ name: 'c', image: 'x:1', ports: [{ containerPort: 53, protocol: 'UDP' }] }] } });
  assert.deepEqual((pod.spec as any).containers[0].ports, [{ containerPort: 53, protocol: 'UDP', hostPort: 53 }]);
  const rs = defaulted('apps', 'v1', 'ReplicaSet', { spec: { template: { spec: { containers: [{ name: 'c', image: 'x:1', resources: { limits: { cpu: '1' } } }] } } } });
  const tspec = (rs.spec as any).template.spec;
  assert.equal(tspec.enableServiceLinks, undefined);
  assert.deepEqual(tspec.containers[0].resources, { limits: { cpu: '1' } });
  assert.equal((rs.spec as any).replicas, 1);
});

test('QoS class', () => {
  const pod = (containers: unknown[]): KubeObject => ({ spec: { containers } });
  assert.equal(computePodQOS(pod([{ name: 'a' }])), 'BestEffort');
  assert.equal(computePodQOS(pod([{ name: 'a', resources: { requests: { cpu: '0' } } }])), 'BestEffort');
  assert.equal(computePodQOS(pod([{ name: 'a', resources: { requests: { cpu: '100m' } } }])), 'Burstable');
  assert.equal(computePodQOS(pod([{ name: 'a', resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1000m', memory: '1024Mi' } } }])), 'Guaranteed');
  assert.equal(computePodQOS(pod([{ name: 'a', resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m', memory: '1Gi' } } }])), 'Burstable');
  assert.equal(
    computePodQOS(pod([{ name: 'a', resources: { limits: { cpu: '1', memory: '1Gi' } } }, { name: 'b', resources: { limits: { cpu: '1' } } }])),
    'Burstable',
  );
  // Defaulting copies limits into requests, so limits-only pods end up Guaranteed.
  const p = defaulted('', 'v1', 'Pod', pod([{ name: 'a', image: 'x:1', resources: { limits: { cpu: '2', memory: '1Gi' } } }]));
  preparePodForCreate(p);
  assert.deepEqual(p.status, { phase: 'Pending', qosClass: 'Guaranteed' });
});

test('preparePodForCreate: scheduling gates and matchLabelKeys', () => {
  const p: KubeObject = {
    metadata: { labels: { app: 'a', rev: '7' } },
    spec: {
      schedulingGates: [{ name: 'x' }],
      containers: [{ name: 'c' }],
      affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'zone', labelSelector: { matchLabels: { app: 'a' } }, matchLabelKeys: ['rev', 'missing'] }] } },
    },
    status: { phase: 'Running' },
  };
  preparePodForCreate(p);
  assert.deepEqual(p.status, {
    phase: 'Pending',
    qosClass: 'BestEffort',
    conditions: [{ type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: null, reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' }],
  });
  const term = (p.spec as any).affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0];
  assert.deepEqual(term.labelSelector, { matchLabels: { app: 'a' }, matchExpressions: [{ key: 'rev', operator: 'In', values: ['7'] }] });
});

test('StatefulSet, DaemonSet defaults', () => {
  const sts = defaulted('apps', 'v1', 'StatefulSet', {
    spec: {
      serviceName: 's',
      selector: { matchLabels: { a: 'b' } },
      template: { metadata: { labels: { a: 'b' } }, spec: { containers: [container] } },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    },
  });
  assert.deepEqual(sts.spec, {
    serviceName: 's',
    replicas: 1,
    podManagementPolicy: 'OrderedReady',
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
    revisionHistoryLimit: 10,
    persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
    selector: { matchLabels: { a: 'b' } },
    template: { metadata: { labels: { a: 'b' } }, spec: defaultedTemplateSpec },
    volumeClaimTemplates: [
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' },
        status: { phase: 'Pending' },
      },
    ],
  });
  const onDelete = defaulted('apps', 'v1', 'StatefulSet', { spec: { updateStrategy: { type: 'OnDelete' } } });
  assert.deepEqual((onDelete.spec as any).updateStrategy, { type: 'OnDelete' });
  const ds = defaulted('apps', 'v1', 'DaemonSet', { spec: { template: { spec: { containers: [container] } } } });
  assert.deepEqual((ds.spec as any).updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
  assert.equal((ds.spec as any).revisionHistoryLimit, 10);
});

test('Job defaults and generated selector', () => {
  const job = defaulted('batch', 'v1', 'Job', {
    metadata: { name: 'pi', uid: 'u-1' },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [container] } } },
  });
  prepareJobForCreate(job);
  assert.deepEqual(job.metadata?.labels, {
    'batch.kubernetes.io/controller-uid': 'u-1',
    'batch.kubernetes.io/job-name': 'pi',
    'controller-uid': 'u-1',
    'job-name': 'pi',
  });
  assert.deepEqual(job.spec, {
    parallelism: 1,
    completions: 1,
    backoffLimit: 6,
    completionMode: 'NonIndexed',
    suspend: false,
    podReplacementPolicy: 'TerminatingOrFailed',
    manualSelector: false,
    selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u-1' } },
    template: {
      metadata: { labels: { 'batch.kubernetes.io/controller-uid': 'u-1', 'batch.kubernetes.io/job-name': 'pi', 'controller-uid': 'u-1', 'job-name': 'pi' } },
      spec: { ...defaultedTemplateSpec, restartPolicy: 'Never' },
    },
  });
  const parallel = defaulted('batch', 'v1', 'Job', { spec: { parallelism: 3, backoffLimitPerIndex: 1, podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] }, template: {} } });
  const spec = parallel.spec as any;
  assert.equal(spec.completions, undefined);
  assert.equal(spec.backoffLimit, 2147483647);
  assert.equal(spec.podReplacementPolicy, 'Failed');
  assert.equal(spec.podFailurePolicy.rules[0].onPodConditions[0].status, 'True');
  // Labels the user gave the job stay as they are.
  const labelled = defaulted('batch', 'v1', 'Job', { metadata: { name: 'j', uid: 'u', labels: { team: 'x' } }, spec: { template: { metadata: { labels: { app: 'a' } } } } });
  prepareJobForCreate(labelled);
  assert.deepEqual(labelled.metadata?.labels, { team: 'x' });
});

test('CronJob defaults do not default the job spec itself', () => {
  const cj = defaulted('batch', 'v1', 'CronJob', { spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [container] } } } } } });
  assert.deepEqual(cj.spec, {
    schedule: '*/5 * * * *',
    concurrencyPolicy: 'Allow',
    suspend: false,
    successfulJobsHistoryLimit: 3,
    failedJobsHistoryLimit: 1,
    jobTemplate: { spec: { template: { spec: { ...defaultedTemplateSpec, restartPolicy: 'OnFailure' } } } },
  });
});

test('Service defaults by type', () => {
  const cip = defaulted('', 'v1', 'Service', { spec: { selector: { app: 'a' }, ports: [{ port: 80 }, { port: 53, protocol: 'UDP', targetPort: 'dns' }] } });
  assert.deepEqual(cip.spec, {
    selector: { app: 'a' },
    ports: [
      { port: 80, protocol: 'TCP', targetPort: 80 },
      { port: 53, protocol: 'UDP', targetPort: 'dns' },
    ],
    sessionAffinity: 'None',
    type: 'ClusterIP',
    internalTrafficPolicy: 'Cluster',
  });
  // A port without a number (Go's zero ServicePort, from `ports: [null]`): targetPort takes its 0, as SetDefaults_Service does.
  const zero = defaulted('', 'v1', 'Service', { spec: { ports: [{}] } });
  assert.deepEqual((zero.spec as { ports: unknown[] }).ports, [{ protocol: 'TCP', targetPort: 0 }]);
  const lb = defaulted('', 'v1', 'Service', { spec: { type: 'LoadBalancer', sessionAffinity: 'ClientIP', ports: [{ port: 443 }] } });
  const spec = lb.spec as any;
  assert.equal(spec.externalTrafficPolicy, 'Cluster');
  assert.equal(spec.allocateLoadBalancerNodePorts, true);
  assert.deepEqual(spec.sessionAffinityConfig, { clientIP: { timeoutSeconds: 10800 } });
  const ext = defaulted('', 'v1', 'Service', { spec: { type: 'ExternalName', externalName: 'example.com' } });
  assert.deepEqual(ext.spec, { type: 'ExternalName', externalName: 'example.com', sessionAffinity: 'None' });
});

test('Service IP families around allocation', () => {
  const svc: KubeObject = { spec: { type: 'ClusterIP', selector: { a: 'b' } } };
  assert.deepEqual(initServiceIPFamilies(svc, undefined, ['IPv4']), []);
  assert.deepEqual(familiesToAllocate(svc), ['IPv4']);
  setAllocatedClusterIPs(svc, { IPv4: '10.96.0.10' });
  assert.deepEqual(svc.spec, { type: 'ClusterIP', selector: { a: 'b' }, ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4'], clusterIPs: ['10.96.0.10'], clusterIP: '10.96.0.10' });
  const headless: KubeObject = { spec: { clusterIP: 'None', clusterIPs: ['None'] } };
  assert.deepEqual(initServiceIPFamilies(headless, undefined, ['IPv4']), []);
  assert.deepEqual(headless.spec, { clusterIP: 'None', clusterIPs: ['None'], ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv4', 'IPv6'] });
  assert.deepEqual(familiesToAllocate(headless), []);
  const dual: KubeObject = { spec: { selector: { a: 'b' }, ipFamilyPolicy: 'RequireDualStack' } };
  assert.deepEqual(initServiceIPFamilies(dual, undefined, ['IPv4']), [
    { type: 'FieldValueInvalid', field: 'spec.ipFamilyPolicy', value: 'RequireDualStack', detail: 'this cluster is not configured for dual-stack services' },
  ]);
});

test('other groups', () => {
  const cases: Array<[string, string, string, KubeObject, KubeObject]> = [
    ['', 'v1', 'Secret', { data: {} }, { data: {}, type: 'Opaque' }],
    ['', 'v1', 'PersistentVolumeClaim', { spec: {} }, { spec: { volumeMode: 'Filesystem' }, status: { phase: 'Pending' } }],
    ['', 'v1', 'PersistentVolume', { spec: { hostPath: { path: '/x' } } }, { spec: { hostPath: { path: '/x', type: '' }, persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem' }, status: { phase: 'Pending' } }],
    ['', 'v1', 'Endpoints', { subsets: [{ ports: [{ port: 1 }] }] }, { subsets: [{ ports: [{ port: 1, protocol: 'TCP' }] }] }],
    [
      '',
      'v1',
      'ReplicationController',
      { spec: { template: { metadata: { labels: { a: 'b' } }, spec: { containers: [container] } } } },
      { metadata: { labels: { a: 'b' } }, spec: { replicas: 1, selector: { a: 'b' }, template: { metadata: { labels: { a: 'b' } }, spec: defaultedTemplateSpec } } },
    ],
    ['storage.k8s.io', 'v1', 'StorageClass', { provisioner: 'p' }, { provisioner: 'p', reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' }],
    [
      'storage.k8s.io',
      'v1',
      'CSIDriver',
      { spec: {} },
      { spec: { attachRequired: true, podInfoOnMount: false, storageCapacity: false, fsGroupPolicy: 'ReadWriteOnceWithFSType', volumeLifecycleModes: ['Persistent'], requiresRepublish: false, seLinuxMount: false } },
    ],
    ['scheduling.k8s.io', 'v1', 'PriorityClass', { value: 5 }, { value: 5, preemptionPolicy: 'PreemptLowerPriority' }],
    [
      'rbac.authorization.k8s.io',
      'v1',
      'RoleBinding',
      { roleRef: { kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'u' }, { kind: 'ServiceAccount', name: 's', namespace: 'n' }] },
      { roleRef: { kind: 'Role', name: 'r', apiGroup: 'rbac.authorization.k8s.io' }, subjects: [{ kind: 'User', name: 'u', apiGroup: 'rbac.authorization.k8s.io' }, { kind: 'ServiceAccount', name: 's', namespace: 'n' }] },
    ],
    ['networking.k8s.io', 'v1', 'NetworkPolicy', { spec: { podSelector: {}, egress: [{ ports: [{ port: 53 }] }] } }, { spec: { podSelector: {}, egress: [{ ports: [{ port: 53, protocol: 'TCP' }] }], policyTypes: ['Ingress', 'Egress'] } }],
    ['discovery.k8s.io', 'v1', 'EndpointSlice', { addressType: 'IPv4', endpoints: [], ports: [{ port: 80 }] }, { addressType: 'IPv4', endpoints: [], ports: [{ port: 80, name: '', protocol: 'TCP' }] }],
    [
      'autoscaling',
      'v2',
      'HorizontalPodAutoscaler',
      { spec: { maxReplicas: 3, behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } } },
      {
        spec: {
          maxReplicas: 3,
          minReplicas: 1,
          metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
          behavior: {
            scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
            scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
          },
        },
      },
    ],
    ['autoscaling', 'v1', 'HorizontalPodAutoscaler', { spec: { maxReplicas: 3 } }, { spec: { maxReplicas: 3, minReplicas: 1 } }],
    [
      'admissionregistration.k8s.io',
      'v1',
      'MutatingWebhookConfiguration',
      { webhooks: [{ name: 'w.example.com', clientConfig: { service: { name: 's', namespace: 'n' } }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }], sideEffects: 'None', admissionReviewVersions: ['v1'] }] },
      {
        webhooks: [
          {
            name: 'w.example.com',
            clientConfig: { service: { name: 's', namespace: 'n', port: 443 } },
            rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }],
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
            failurePolicy: 'Fail',
            matchPolicy: 'Equivalent',
            namespaceSelector: {},
            objectSelector: {},
            timeoutSeconds: 10,
            reinvocationPolicy: 'Never',
          },
        ],
      },
    ],
    [
      'flowcontrol.apiserver.k8s.io',
      'v1',
      'PriorityLevelConfiguration',
      { spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } } },
      { spec: { type: 'Limited', limited: { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { handSize: 8, queues: 64, queueLengthLimit: 50 } } } } },
    ],
    [
      'apiextensions.k8s.io',
      'v1',
      'CustomResourceDefinition',
      { spec: { group: 'x.io', names: { kind: 'Foo', plural: 'foos' }, scope: 'Namespaced', versions: [] } },
      { spec: { group: 'x.io', names: { kind: 'Foo', plural: 'foos', singular: 'foo', listKind: 'FooList' }, scope: 'Namespaced', versions: [], conversion: { strategy: 'None' } } },
    ],
    ['', 'v1', 'ConfigMap', { data: { a: 'b' } }, { data: { a: 'b' } }],
    // v1alpha1 (pkg/apis/admissionregistration/v1alpha1 defaults.go and defaults_test.go): as v1beta1, plus the paramRef default.
    [
      'admissionregistration.k8s.io',
      'v1alpha1',
      'MutatingAdmissionPolicy',
      { spec: { matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] } } },
      {
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: {
            matchPolicy: 'Equivalent',
            namespaceSelector: {},
            objectSelector: {},
            resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }],
          },
        },
      },
    ],
    [
      'admissionregistration.k8s.io',
      'v1alpha1',
      'MutatingAdmissionPolicyBinding',
      { spec: { policyName: 'p', paramRef: { name: 'x' }, matchResources: {} } },
      { spec: { policyName: 'p', paramRef: { name: 'x', parameterNotFoundAction: 'Deny' }, matchResources: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} } } },
    ],
    ['admissionregistration.k8s.io', 'v1beta1', 'MutatingAdmissionPolicyBinding', { spec: { policyName: 'p', paramRef: { name: 'x' } } }, { spec: { policyName: 'p', paramRef: { name: 'x' } } }],
  ];
  for (const [group, version, kind, input, want] of cases) {
    assert.deepEqual(defaulted(group, version, kind, input), want, `${group}/${version} ${kind}`);
  }
});

test('volume sources shared by Pod volumes and PersistentVolumes get the same defaults', () => {
  const sources = {
    hostPath: { path: '/x' },
    iscsi: { targetPortal: 'p', iqn: 'q', lun: 0 },
    rbd: { monitors: ['m'], image: 'i' },
    azureDisk: { diskName: 'd', diskURI: 'u' },
    scaleIO: { gateway: 'g', system: 's', secretRef: { name: 'n' } },
  };
  const want = {
    hostPath: { path: '/x', type: '' },
    iscsi: { targetPortal: 'p', iqn: 'q', lun: 0, iscsiInterface: 'default' },
    rbd: { monitors: ['m'], image: 'i', pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' },
    azureDisk: { diskName: 'd', diskURI: 'u', cachingMode: 'ReadWrite', kind: 'Shared', fsType: 'ext4', readOnly: false },
    scaleIO: { gateway: 'g', system: 's', secretRef: { name: 'n' }, storageMode: 'ThinProvisioned', fsType: 'xfs' },
  };
  for (const [key, source] of Object.entries(sources)) {
    const pv = defaulted('', 'v1', 'PersistentVolume', { apiVersion: 'v1', kind: 'PersistentVolume', spec: { [key]: source } });
    assert.deepEqual((pv.spec as Record<string, unknown>)[key], want[key as keyof typeof want], `PersistentVolume ${key}`);
    const pod = defaulted('', 'v1', 'Pod', { apiVersion: 'v1', kind: 'Pod', spec: { containers: [container], volumes: [{ name: 'v', [key]: source }] } });
    const volume = ((pod.spec as Record<string, unknown>).volumes as Record<string, unknown>[])[0]!;
    assert.deepEqual(volume[key], want[key as keyof typeof want], `Pod volume ${key}`);
  }
});
