import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyDefaults, prepareJobForCreate } from '../../src/registry/defaults/index.js';
import { validateObject, validateObjectUpdate, renderFieldValue, cronScheduleError } from '../../src/registry/validation/index.js';
import { fieldErrorString, type FieldError } from '../../src/machinery/errors.js';
import type { KubeObject } from '../../src/machinery/object.js';

/**
 * Expected errors follow kube-apiserver 1.36 (pkg/apis/*\/validation and the
 * messages kubectl prints). Objects are defaulted first, as the registry does.
 */

function defaulted(group: string, version: string, kind: string, obj: KubeObject): KubeObject {
  const copy = structuredClone(obj);
  applyDefaults(group, version, kind, copy);
  return copy;
}

/** field: body, rendered the way kube's aggregate message lists causes. */
function render(errs: FieldError[]): string[] {
  return errs.map(fieldErrorString);
}

const container = { name: 'app', image: 'nginx:1.27' };
const deployment = (patch: Record<string, unknown> = {}): KubeObject =>
  defaulted('apps', 'v1', 'Deployment', {
    metadata: { name: 'web', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [container] } }, ...patch },
  });

test('valid defaulted objects pass', () => {
  assert.deepEqual(validateObject('apps', 'Deployment', deployment()), []);
  const pod = defaulted('', 'v1', 'Pod', { metadata: { name: 'p' }, spec: { containers: [container] } });
  assert.deepEqual(validateObject('', 'Pod', pod), []);
  const svc = defaulted('', 'v1', 'Service', { spec: { selector: { a: 'b' }, ports: [{ port: 80 }] } });
  assert.deepEqual(validateObject('', 'Service', svc), []);
  const job = defaulted('batch', 'v1', 'Job', { metadata: { name: 'pi', uid: 'u1' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [container] } } } });
  prepareJobForCreate(job);
  assert.deepEqual(validateObject('batch', 'Job', job), []);
  const cj = defaulted('batch', 'v1', 'CronJob', { metadata: { name: 'c' }, spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [container] } } } } } });
  assert.deepEqual(validateObject('batch', 'CronJob', cj), []);
});

test('Deployment: selector mismatch, empty containers, bad names', () => {
  const d = deployment({ template: { metadata: { labels: { app: 'other' } }, spec: { containers: [] } } });
  applyDefaults('apps', 'v1', 'Deployment', d);
  assert.deepEqual(render(validateObject('apps', 'Deployment', d)), [
    'spec.template.metadata.labels: Invalid value: {"app":"other"}: `selector` does not match template `labels`',
    'spec.template.spec.containers: Required value',
  ]);
  const bad = deployment();
  (bad.spec as any).template.spec.containers = [{ ...(bad.spec as any).template.spec.containers[0], name: 'App_1', image: '' }];
  assert.deepEqual(render(validateObject('apps', 'Deployment', bad)), [
    'spec.template.spec.containers[0].name: Invalid value: "App_1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
    'spec.template.spec.containers[0].image: Required value',
  ]);
  const never = deployment();
  (never.spec as any).template.spec.restartPolicy = 'Never';
  assert.deepEqual(render(validateObject('apps', 'Deployment', never)), ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"']);
});

test('Deployment update: selector is immutable', () => {
  const old = deployment();
  const next = deployment({ selector: { matchLabels: { app: 'web2' } }, template: { metadata: { labels: { app: 'web2' } }, spec: { containers: [container] } } });
  applyDefaults('apps', 'v1', 'Deployment', next);
  assert.deepEqual(render(validateObjectUpdate('apps', 'Deployment', next, old)), [
    'spec.selector: Invalid value: {"matchLabels":{"app":"web2"}}: field is immutable',
  ]);
});

test('Pod containers: ports, env, mounts, resources, probes', () => {
  const pod = defaulted('', 'v1', 'Pod', {
    spec: {
      containers: [
        {
          name: 'a',
          image: 'x:1',
          ports: [{ containerPort: 70000, name: 'http' }, { containerPort: 80, name: 'http' }],
          env: [{ name: 'A=B' }, { name: 'X', value: 'v', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          volumeMounts: [{ name: 'missing', mountPath: '/data' }],
          resources: { requests: { cpu: '2' }, limits: { cpu: '1' } },
          livenessProbe: { exec: { command: ['true'] }, successThreshold: 2 },
        },
      ],
      volumes: [{ name: 'v1', emptyDir: {} }, { name: 'v1', emptyDir: {} }],
    },
  });
  const podErrs = validateObject('', 'Pod', pod);
  // field.NotFound renders as "Not found: ..." once server/errors.ts knows FieldValueNotFound.
  assert.deepEqual(render(podErrs.filter((e) => e.type !== ('FieldValueNotFound' as FieldError['type']))), [
    'spec.volumes[1].name: Duplicate value: "v1"',
    'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
    'spec.containers[0].ports[1].name: Duplicate value: "http"',
    "spec.containers[0].env[0].name: Invalid value: \"A=B\": a valid environment variable name must consist only of printable ASCII characters other than '='",
    'spec.containers[0].env[1].valueFrom: Invalid value: "": may not be specified when `value` is not empty',
    'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
    'spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1',
  ]);
  const nf = podErrs.find((e) => e.field === 'spec.containers[0].volumeMounts[0].name');
  assert.equal(nf?.type, 'FieldValueNotFound');
  assert.equal(nf?.value, 'missing');
});

test('Pod update: only images and a few fields may change', () => {
  const old = defaulted('', 'v1', 'Pod', { metadata: { name: 'p' }, spec: { containers: [container] } });
  const image = structuredClone(old);
  (image.spec as any).containers[0].image = 'nginx:1.28';
  assert.deepEqual(validateObjectUpdate('', 'Pod', image, old), []);
  const env = structuredClone(old);
  (env.spec as any).containers[0].env = [{ name: 'A', value: 'b' }];
  const errs = validateObjectUpdate('', 'Pod', env, old);
  assert.equal(errs.length, 1);
  assert.equal(errs[0]!.field, 'spec');
  assert.equal(errs[0]!.type, 'FieldValueForbidden');
  assert.ok(
    errs[0]!.detail!.startsWith(
      'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n',
    ),
  );
  const more = structuredClone(old);
  (more.spec as any).containers.push({ ...(old.spec as any).containers[0], name: 'b' });
  assert.deepEqual(render(validateObjectUpdate('', 'Pod', more, old)), ['spec.containers: Forbidden: pod updates may not add or remove containers']);
});

test('Job: restartPolicy, generated selector', () => {
  const job = defaulted('batch', 'v1', 'Job', { metadata: { name: 'pi', uid: 'u1' }, spec: { template: { spec: { containers: [container] } } } });
  prepareJobForCreate(job);
  assert.deepEqual(render(validateObject('batch', 'Job', job)), ['spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"']);
  const ok = defaulted('batch', 'v1', 'Job', { metadata: { name: 'pi', uid: 'u1' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [container] } } } });
  prepareJobForCreate(ok);
  const changed = structuredClone(ok);
  (changed.spec as any).template.spec.containers[0].image = 'busybox';
  (changed.spec as any).completions = 3;
  assert.deepEqual(
    validateObjectUpdate('batch', 'Job', changed, ok).map((e) => `${e.field}: ${e.detail}`),
    ['spec.completions: field is immutable', 'spec.template: field is immutable'],
  );
  // A suspended job that never started may change its scheduling directives.
  const suspended = structuredClone(ok);
  (suspended.spec as any).suspend = true;
  const moved = structuredClone(suspended);
  (moved.spec as any).template.spec.nodeSelector = { zone: 'a' };
  assert.deepEqual(validateObjectUpdate('batch', 'Job', moved, suspended), []);
});

test('CronJob schedules', () => {
  const cases: Array<[string, string | undefined]> = [
    ['*/5 * * * *', undefined],
    ['0 0 * * MON-FRI', undefined],
    ['@hourly', undefined],
    ['@every 1h30m', undefined],
    ['* * * *', 'expected exactly 5 fields, found 4: [* * * *]'],
    ['60 * * * *', 'end of range (60) above maximum (59): 60'],
    ['x * * * *', 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
    ['@fortnightly', 'unrecognized descriptor: @fortnightly'],
    ['5-1 * * * *', 'beginning of range (5) beyond end of range (1): 5-1'],
    ['*/0 * * * *', 'step of range should be a positive number: */0'],
    ['0 0 0 * *', 'beginning of range (0) below minimum (1): 0'],
  ];
  for (const [schedule, want] of cases) assert.equal(cronScheduleError(schedule), want, schedule);
  const cj = defaulted('batch', 'v1', 'CronJob', { metadata: { name: 'c' }, spec: { schedule: 'bad', concurrencyPolicy: 'Sometimes', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [container] } } } } } });
  assert.deepEqual(render(validateObject('batch', 'CronJob', cj)), [
    'spec.schedule: Invalid value: "bad": expected exactly 5 fields, found 1: [bad]',
    'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
  ]);
});

test('Service: ports and immutable cluster IPs', () => {
  const svc = defaulted('', 'v1', 'Service', { spec: { type: 'Bogus', ports: [{ port: 80 }, { port: 80, name: 'b' }] } });
  assert.deepEqual(
    render(validateObject('', 'Service', svc)).filter((m) => !m.startsWith('spec.ports[1]: Duplicate')),
    ['spec.ports[0].name: Required value', 'spec.type: Unsupported value: "Bogus": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"'],
  );
  const old = defaulted('', 'v1', 'Service', { spec: { selector: { a: 'b' }, ports: [{ port: 80 }], clusterIP: '10.96.0.5', clusterIPs: ['10.96.0.5'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' } });
  const next = structuredClone(old);
  (next.spec as any).clusterIP = '10.96.0.6';
  (next.spec as any).clusterIPs = ['10.96.0.6'];
  assert.deepEqual(render(validateObjectUpdate('', 'Service', next, old)), ['spec.clusterIPs[0]: Invalid value: ["10.96.0.6"]: may not change once set']);
});

test('Secrets and ConfigMaps', () => {
  const tls = defaulted('', 'v1', 'Secret', { type: 'kubernetes.io/tls', data: { 'bad key': 'eA==' } });
  assert.deepEqual(render(validateObject('', 'Secret', tls)), [
    "data[bad key]: Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    'data[tls.key]: Required value',
    'data[tls.crt]: Required value',
  ]);
  const old = { data: { a: 'b' }, immutable: true };
  assert.deepEqual(render(validateObjectUpdate('', 'ConfigMap', { data: { a: 'c' }, immutable: true }, old)), ['data: Forbidden: field is immutable when `immutable` is set']);
  assert.deepEqual(render(validateObjectUpdate('', 'Secret', { type: 'Opaque', data: {} }, { type: 'kubernetes.io/basic-auth', data: { username: 'eA==' } })), [
    'type: Invalid value: "Opaque": field is immutable',
  ]);
});

test('PVC: create and update', () => {
  const pvc = defaulted('', 'v1', 'PersistentVolumeClaim', { spec: { resources: { requests: { storage: '0' } } } });
  assert.deepEqual(render(validateObject('', 'PersistentVolumeClaim', pvc)), [
    'spec.accessModes: Required value: at least 1 access mode is required',
    'spec.resources[storage]: Invalid value: "0": must be greater than zero',
  ]);
  const old = defaulted('', 'v1', 'PersistentVolumeClaim', { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } }, status: { phase: 'Bound', capacity: { storage: '1Gi' } } });
  const grown = structuredClone(old);
  (grown.spec as any).resources.requests.storage = '2Gi';
  assert.deepEqual(validateObjectUpdate('', 'PersistentVolumeClaim', grown, old), []);
  const shrunk = structuredClone(old);
  (shrunk.spec as any).resources.requests.storage = '512Mi';
  assert.deepEqual(render(validateObjectUpdate('', 'PersistentVolumeClaim', shrunk, old)), ['spec.resources.requests.storage: Forbidden: field can not be less than status.capacity']);
  const modes = structuredClone(old);
  (modes.spec as any).accessModes = ['ReadWriteMany'];
  const errs = validateObjectUpdate('', 'PersistentVolumeClaim', modes, old);
  assert.equal(errs[0]?.field, 'spec');
  assert.ok(errs[0]?.detail?.startsWith('spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n'));
});

test('RBAC: rules and roleRef', () => {
  assert.deepEqual(render(validateObject('rbac.authorization.k8s.io', 'Role', { rules: [{ resources: ['pods'] }] })), [
    'rules[0].verbs: Required value: verbs must contain at least one value',
    'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
  ]);
  const rb = defaulted('rbac.authorization.k8s.io', 'v1', 'RoleBinding', { roleRef: { kind: 'Role', name: 'a' }, subjects: [{ kind: 'User', name: 'jane' }] });
  assert.deepEqual(validateObject('rbac.authorization.k8s.io', 'RoleBinding', rb), []);
  const changed = structuredClone(rb);
  (changed.roleRef as any).name = 'b';
  assert.deepEqual(render(validateObjectUpdate('rbac.authorization.k8s.io', 'RoleBinding', changed, rb)), [
    'roleRef: Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"Role","Name":"b"}: cannot change roleRef',
  ]);
  const crb = defaulted('rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding', { roleRef: { kind: 'Role', name: 'a' }, subjects: [{ kind: 'ServiceAccount', name: 'sa' }] });
  assert.deepEqual(render(validateObject('rbac.authorization.k8s.io', 'ClusterRoleBinding', crb)), [
    'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
    'subjects[0].namespace: Required value',
  ]);
});

test('StatefulSet update: only some spec fields may change', () => {
  const sts = defaulted('apps', 'v1', 'StatefulSet', { spec: { serviceName: 's', selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [container] } } } });
  assert.deepEqual(validateObject('apps', 'StatefulSet', sts), []);
  const next = structuredClone(sts);
  (next.spec as any).serviceName = 'other';
  assert.deepEqual(render(validateObjectUpdate('apps', 'StatefulSet', next, sts)), [
    "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
  ]);
});

test('other groups', () => {
  assert.deepEqual(render(validateObject('policy', 'PodDisruptionBudget', { spec: { minAvailable: '120%' } })), ['spec.minAvailable: Invalid value: "120%": must not be greater than 100%']);
  assert.deepEqual(render(validateObject('autoscaling', 'HorizontalPodAutoscaler', { spec: { minReplicas: 5, maxReplicas: 2, scaleTargetRef: { kind: 'Deployment', name: 'd' } } })), [
    'spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`',
  ]);
  assert.deepEqual(render(validateObjectUpdate('storage.k8s.io', 'StorageClass', { provisioner: 'p', parameters: { a: '1' } }, { provisioner: 'p' })), [
    'parameters: Forbidden: updates to parameters are forbidden.',
  ]);
  assert.deepEqual(render(validateObjectUpdate('scheduling.k8s.io', 'PriorityClass', { metadata: { name: 'x' }, value: 2 }, { metadata: { name: 'x' }, value: 1 })), [
    'value: Forbidden: may not be changed in an update.',
  ]);
  assert.deepEqual(render(validateObject('networking.k8s.io', 'Ingress', { spec: { rules: [{ http: { paths: [{ path: 'x', backend: { service: { name: 's', port: { number: 80 } } } }] } }] } })), [
    'spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified',
  ]);
});
