import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { AdmissionAttributes } from '../../src/admission/admission.js';
import { loadPodSecurityConfiguration } from '../../src/admission/pod-security/configuration.js';
import { PodSecurityEvaluator } from '../../src/admission/pod-security/evaluator.js';
import { PodSecurityMetrics } from '../../src/admission/pod-security/metrics.js';
import { PodSecurityAdmission, isSignificantPodUpdate, type PodSecurityAttributes } from '../../src/admission/pod-security/pod-security-admission.js';
import { PodSecurityPlugin } from '../../src/admission/pod-security/plugin.js';
import type { ApiError } from '../../src/machinery/errors.js';
import type { KubeObject } from '../../src/machinery/object.js';

/**
 * PodSecurity's admission decisions (pod-security-admission/admission):
 * namespace labels, enforce / audit / warn on pods, audit and warn only on
 * pod controllers, which updates are checked, exemptions and defaults from
 * PodSecurityConfiguration, and the dry run of a tightened enforce level
 * over a namespace's pods with kube's limits.
 */

const ns = (name: string, labels: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
const privilegedPod = (name = 'p', extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'nginx', securityContext: { privileged: true } }], ...extra },
});
const plainPod = (name = 'p'): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

function setup(opts: { namespaces?: KubeObject[]; pods?: KubeObject[]; config?: unknown; now?: () => number } = {}) {
  const namespaces = new Map((opts.namespaces ?? []).map((n) => [n.metadata!.name!, n]));
  const metrics = new PodSecurityMetrics();
  const core = new PodSecurityAdmission(
    loadPodSecurityConfiguration(opts.config),
    new PodSecurityEvaluator(),
    { getNamespace: async (name) => namespaces.get(name), listPods: async () => opts.pods ?? [] },
    metrics,
    opts.now,
  );
  return { core, metrics, namespaces };
}

const podAttrs = (namespace: string, object: KubeObject, extra: Partial<PodSecurityAttributes> = {}): PodSecurityAttributes => ({
  operation: 'CREATE',
  resource: { group: '', name: 'pods' },
  subresource: '',
  namespace,
  name: object.metadata?.name ?? '',
  username: 'alice',
  object,
  ...extra,
});

const restricted = { 'pod-security.kubernetes.io/enforce': 'restricted' };

describe('PodSecurity on pods', () => {
  it('enforce refuses with kube’s Status; audit and warn report; a refused request gets no warning', async () => {
    const { core } = setup({ namespaces: [ns('r', { ...restricted, 'pod-security.kubernetes.io/warn': 'baseline', 'pod-security.kubernetes.io/audit': 'baseline', 'pod-security.kubernetes.io/audit-version': 'v1.20' })] });
    const r = await core.validate(podAttrs('r', privilegedPod()));
    assert.equal(r.allowed, false);
    assert.equal(r.error?.code, 403);
    assert.deepEqual(r.error?.status.details, { name: 'p', kind: 'pods' });
    assert.equal(r.error?.status.reason, 'Forbidden');
    assert.match(r.error?.status.message ?? '', /^pods "p" is forbidden: violates PodSecurity "restricted:latest": privileged \(container "c" must not set securityContext.privileged=true\), allowPrivilegeEscalation != false/);
    assert.deepEqual(r.warnings, []);
    assert.equal(r.auditAnnotations['enforce-policy'], 'restricted:latest');
    assert.equal(r.auditAnnotations['audit-violations'], 'would violate PodSecurity "baseline:v1.20": privileged (container "c" must not set securityContext.privileged=true)');
  });

  it('warn mode warns and allows', async () => {
    const { core, metrics } = setup({ namespaces: [ns('w', { 'pod-security.kubernetes.io/warn': 'baseline' })] });
    const r = await core.validate(podAttrs('w', privilegedPod()));
    assert.equal(r.allowed, true);
    assert.deepEqual(r.warnings, ['would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)']);
    assert.deepEqual(r.auditAnnotations, { 'enforce-policy': 'privileged:latest' });
    const samples = metrics.evaluations.samples();
    assert.deepEqual(samples.find((s) => s.labels.mode === 'warn')?.labels, { decision: 'deny', policy_level: 'baseline', policy_version: 'latest', mode: 'warn', request_operation: 'create', resource: 'pod', subresource: '' });
    assert.equal(samples.find((s) => s.labels.mode === 'enforce')?.labels.decision, 'allow');
  });

  it('an unlabelled namespace is privileged: everything passes, the policy is recorded', async () => {
    const { core } = setup({ namespaces: [ns('default')] });
    const r = await core.validate(podAttrs('default', privilegedPod()));
    assert.deepEqual(r, { allowed: true, warnings: [], auditAnnotations: { 'enforce-policy': 'privileged:latest' } });
  });

  it('a pinned version evaluates that version’s checks; newer than latest evaluates as latest', async () => {
    const probe = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', livenessProbe: { httpGet: { host: 'x' } } }] } };
    const { core } = setup({
      namespaces: [
        ns('old', { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.33' }),
        ns('new', { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.99' }),
      ],
    });
    assert.equal((await core.validate(podAttrs('old', probe))).allowed, true);
    const r = await core.validate(podAttrs('new', probe));
    assert.equal(r.error?.status.message, 'pods "p" is forbidden: violates PodSecurity "baseline:v1.99": probe or lifecycle host (container "c" uses probe or lifecycle host "x")');
  });

  it('invalid labels: enforce fails closed to restricted:latest, audit and warn fail open; the error is audited', async () => {
    const { core, metrics } = setup({ namespaces: [ns('bad', { 'pod-security.kubernetes.io/enforce': 'bogus', 'pod-security.kubernetes.io/warn': 'bogus' })] });
    const r = await core.validate(podAttrs('bad', plainPod()));
    assert.equal(r.allowed, false);
    assert.match(r.error?.status.message ?? '', /violates PodSecurity "restricted:latest"/);
    assert.equal(
      r.auditAnnotations.error,
      'Failed to parse policy: [metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "bogus": must be one of privileged, baseline, restricted, metadata.labels[pod-security.kubernetes.io/warn]: Invalid value: "bogus": must be one of privileged, baseline, restricted]',
    );
    assert.deepEqual(metrics.errors.samples().map((s) => s.labels.fatal), ['false']);
    const { core: versionOnly } = setup({ namespaces: [ns('v', { 'pod-security.kubernetes.io/enforce-version': 'v2.0' })] });
    const v = await versionOnly.validate(podAttrs('v', privilegedPod()));
    assert.equal(v.allowed, true, 'a bad version alone keeps the default level (privileged)');
    assert.match(v.auditAnnotations.error ?? '', /pod-security.kubernetes.io\/enforce-version\]: Invalid value: "v2.0": must be "latest" or "v1.x"/);
  });

  it('a missing namespace is an internal error', async () => {
    const { core, metrics } = setup();
    const r = await core.validate(podAttrs('nowhere', plainPod()));
    assert.equal(r.error?.code, 500);
    assert.equal(r.error?.status.message, 'Internal error occurred: failed to lookup namespace "nowhere"');
    assert.deepEqual(metrics.errors.samples()[0]?.labels, { fatal: 'true', request_operation: 'create', resource: 'pod', subresource: '' });
  });

  it('updates are checked only when containers, images or seccomp annotations change; ignored subresources pass', async () => {
    const { core } = setup({ namespaces: [ns('r', restricted)] });
    const old = privilegedPod();
    const relabelled = { ...privilegedPod(), metadata: { name: 'p', labels: { a: 'b' } } };
    assert.equal((await core.validate(podAttrs('r', relabelled, { operation: 'UPDATE', oldObject: old }))).allowed, true);
    const newImage = privilegedPod();
    (newImage.spec as { containers: Array<{ image: string }> }).containers[0]!.image = 'nginx:2';
    assert.equal((await core.validate(podAttrs('r', newImage, { operation: 'UPDATE', oldObject: old }))).allowed, false);
    assert.equal((await core.validate(podAttrs('r', privilegedPod(), { operation: 'UPDATE', oldObject: old, subresource: 'status' }))).allowed, true);
    assert.equal((await core.validate(podAttrs('r', privilegedPod(), { subresource: 'binding' }))).allowed, true);
  });

  it('an added ephemeral container is checked (pods/ephemeralcontainers)', async () => {
    const { core } = setup({ namespaces: [ns('b', { 'pod-security.kubernetes.io/enforce': 'baseline' })] });
    const old = plainPod();
    const debug = { ...plainPod(), spec: { ...(plainPod().spec as object), ephemeralContainers: [{ name: 'debugger', image: 'busybox', securityContext: { privileged: true } }] } };
    const r = await core.validate(podAttrs('b', debug, { operation: 'UPDATE', oldObject: old, subresource: 'ephemeralcontainers' }));
    assert.equal(r.error?.status.message, 'pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged (container "debugger" must not set securityContext.privileged=true)');
    assert.equal(isSignificantPodUpdate(debug, debug), false);
    assert.equal(isSignificantPodUpdate({ metadata: { annotations: { 'container.seccomp.security.alpha.kubernetes.io/c': 'x' } }, spec: plainPod().spec }, plainPod()), true);
  });
});

describe('PodSecurity on pod controllers', () => {
  const deployment = (privileged: boolean): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx', securityContext: { privileged } }] } } },
  });

  it('never refuses: warn and audit only, on the template', async () => {
    const { core } = setup({ namespaces: [ns('r', { ...restricted, 'pod-security.kubernetes.io/warn': 'baseline', 'pod-security.kubernetes.io/audit': 'restricted' })] });
    const attrs = (object: KubeObject, resource = { group: 'apps', name: 'deployments' }): PodSecurityAttributes => ({ ...podAttrs('r', object), resource, name: 'web' });
    const r = await core.validate(attrs(deployment(true)));
    assert.equal(r.allowed, true);
    assert.deepEqual(r.warnings, ['would violate PodSecurity "baseline:latest": privileged (container "web" must not set securityContext.privileged=true)']);
    assert.match(r.auditAnnotations['audit-violations'] ?? '', /^would violate PodSecurity "restricted:latest": privileged/);
    assert.equal(r.auditAnnotations['enforce-policy'], undefined);
    const cron: KubeObject = { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'web' }, spec: { jobTemplate: { spec: { template: (deployment(true).spec as { template: unknown }).template } } } };
    assert.equal((await core.validate(attrs(cron, { group: 'batch', name: 'cronjobs' }))).warnings.length, 1);
    const rc: KubeObject = { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'web' }, spec: {} };
    assert.deepEqual((await core.validate(attrs(rc, { group: '', name: 'replicationcontrollers' }))).warnings, [], 'no template, nothing to check');
    assert.deepEqual((await core.validate({ ...attrs(deployment(true)), subresource: 'scale' })).warnings, []);
  });
});

describe('PodSecurity on namespaces', () => {
  const nsAttrs = (object: KubeObject, oldObject?: KubeObject): PodSecurityAttributes => ({
    operation: oldObject ? 'UPDATE' : 'CREATE',
    resource: { group: '', name: 'namespaces' },
    subresource: '',
    namespace: oldObject ? object.metadata!.name! : '',
    name: object.metadata!.name!,
    username: 'alice',
    object,
    ...(oldObject ? { oldObject } : {}),
  });

  it('refuses invalid labels with a 422, on update only when they changed', async () => {
    const { core } = setup();
    const bad = ns('x', { 'pod-security.kubernetes.io/enforce': 'foo', 'pod-security.kubernetes.io/audit-version': 'v1.x' });
    const r = await core.validate(nsAttrs(bad));
    assert.equal(r.error?.code, 422);
    assert.equal(
      r.error?.status.message,
      'Namespace "x" is invalid: [metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "foo": must be one of privileged, baseline, restricted, metadata.labels[pod-security.kubernetes.io/audit-version]: Invalid value: "v1.x": must be "latest" or "v1.x"]',
    );
    assert.deepEqual(r.error?.status.details?.causes?.[0], { reason: 'FieldValueInvalid', message: 'Invalid value: "foo": must be one of privileged, baseline, restricted', field: 'metadata.labels[pod-security.kubernetes.io/enforce]' });
    const relabelled = { ...bad, metadata: { ...bad.metadata, labels: { ...bad.metadata!.labels, team: 'a' } } };
    assert.equal((await core.validate(nsAttrs(relabelled, bad))).allowed, true, 'the same bad labels do not block other changes');
    assert.equal((await core.validate(nsAttrs(ns('x', { 'pod-security.kubernetes.io/enforce': 'bar' }), bad))).error?.code, 422);
  });

  it('tightening enforce warns about existing pods, grouped by reasons; relaxing does not', async () => {
    const owner = (uid: string) => [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid, controller: true }];
    const withOwner = (pod: KubeObject, uid: string): KubeObject => ({ ...pod, metadata: { ...pod.metadata, ownerReferences: owner(uid) } });
    const pods = [privilegedPod('b'), privilegedPod('a'), plainPod('ok'), privilegedPod('z', { hostNetwork: true }), withOwner(privilegedPod('c'), 'u1'), withOwner(privilegedPod('d'), 'u1')];
    const { core } = setup({ pods });
    const r = await core.validate(nsAttrs(ns('team', { 'pod-security.kubernetes.io/enforce': 'baseline' }), ns('team')));
    assert.deepEqual(r.warnings, [
      'existing pods in namespace "team" violate the new PodSecurity enforce level "baseline:latest"',
      'a (and 3 other pods): privileged',
      'z: host namespaces, privileged',
    ]);
    const relaxed = await core.validate(nsAttrs(ns('team', { 'pod-security.kubernetes.io/enforce': 'baseline' }), ns('team', restricted)));
    assert.deepEqual(relaxed.warnings, []);
    const sameLevel = await core.validate(nsAttrs(ns('team', restricted), ns('team', restricted)));
    assert.deepEqual(sameLevel.warnings, []);
    const toPrivileged = await core.validate(nsAttrs(ns('team', { 'pod-security.kubernetes.io/enforce': 'privileged' }), ns('team', restricted)));
    assert.deepEqual(toPrivileged.warnings, []);
  });

  it('checks at most 3000 pods, and stops after a second', async () => {
    const many = Array.from({ length: 3002 }, (_, i) => privilegedPod(`p${String(i).padStart(4, '0')}`));
    const { core } = setup({ pods: many });
    const r = await core.validate(nsAttrs(ns('big', restricted), ns('big')));
    assert.equal(r.warnings[0], 'new PodSecurity enforce level only checked against the first 3000 of 3002 existing pods');
    assert.equal(r.warnings[2], 'p0000 (and 2999 other pods): privileged, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile');
    // Each reading of the clock moves it 400 ms: the budget (1 s from the first reading) runs out during the third pod.
    let clock = 0;
    const slow = setup({ pods: many.slice(0, 10), now: () => (clock += 400) });
    const timed = await slow.core.validate(nsAttrs(ns('big', restricted), ns('big')));
    assert.equal(timed.warnings[0], 'new PodSecurity enforce level only checked against the first 3 of 10 existing pods');
  });

  it('an exempt namespace is not dry-run; labels that will be ignored get a warning', async () => {
    const config = { apiVersion: 'pod-security.admission.config.k8s.io/v1', kind: 'PodSecurityConfiguration', exemptions: { namespaces: ['kube-system'] } };
    const { core } = setup({ config, pods: [privilegedPod()] });
    const labels = { ...restricted, 'pod-security.kubernetes.io/warn': 'baseline', 'pod-security.kubernetes.io/audit-version': 'v1.30' };
    const r = await core.validate(nsAttrs(ns('kube-system', labels), ns('kube-system')));
    assert.deepEqual(r.warnings, ['namespace "kube-system" is exempt from Pod Security, and the policy (enforce=restricted:latest, warn=baseline:latest) will be ignored']);
  });
});

describe('PodSecurity exemptions and defaults (PodSecurityConfiguration)', () => {
  const config = {
    apiVersion: 'pod-security.admission.config.k8s.io/v1',
    kind: 'PodSecurityConfiguration',
    defaults: { enforce: 'baseline', 'enforce-version': 'v1.30', warn: 'restricted' },
    exemptions: { usernames: ['system:serviceaccount:kube-system:ci'], runtimeClasses: ['kata'], namespaces: ['ops'] },
  };

  it('defaults apply to unlabelled namespaces', async () => {
    const { core } = setup({ config, namespaces: [ns('plain')] });
    const r = await core.validate(podAttrs('plain', privilegedPod()));
    assert.match(r.error?.status.message ?? '', /violates PodSecurity "baseline:v1.30": privileged/);
    const ok = await core.validate(podAttrs('plain', plainPod()));
    assert.equal(ok.allowed, true);
    assert.match(ok.warnings[0] ?? '', /^would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false/);
  });

  it('exempt users, namespaces and runtime classes pass, with the exemption audited', async () => {
    const { core, metrics } = setup({ config, namespaces: [ns('plain', restricted), ns('ops', restricted)] });
    const user = await core.validate(podAttrs('plain', privilegedPod(), { username: 'system:serviceaccount:kube-system:ci' }));
    assert.deepEqual(user, { allowed: true, warnings: [], auditAnnotations: { exempt: 'user' } });
    assert.deepEqual((await core.validate(podAttrs('ops', privilegedPod()))).auditAnnotations, { exempt: 'namespace' });
    assert.deepEqual((await core.validate(podAttrs('plain', privilegedPod('p', { runtimeClassName: 'kata' })))).auditAnnotations, { exempt: 'runtimeClass' });
    assert.equal((await core.validate(podAttrs('plain', privilegedPod('p', { runtimeClassName: 'runc' })))).allowed, false);
    assert.deepEqual(metrics.exemptions.samples(), [{ labels: { request_operation: 'create', resource: 'pod', subresource: '' }, value: 3 }]);
  });

  it('refuses a bad configuration with kube’s field errors', () => {
    assert.throws(
      () =>
        loadPodSecurityConfiguration({
          apiVersion: 'pod-security.admission.config.k8s.io/v1beta1',
          kind: 'PodSecurityConfiguration',
          defaults: { enforce: 'strict', 'warn-version': 'v2' },
        }),
      (e: Error) => e.message === 'PodSecurity configuration error: [Enforce.Level: must be one of privileged, baseline, restricted, Warn.Version: must be "latest" or "v1.x"]',
    );
    assert.throws(
      () =>
        loadPodSecurityConfiguration({
          apiVersion: 'pod-security.admission.config.k8s.io/v1beta1',
          kind: 'PodSecurityConfiguration',
          exemptions: { namespaces: ['Bad_NS', 'ok', 'ok'], usernames: [''] },
        }),
      (e: Error) =>
        e.message ===
        'PodSecurity invalid: [exemptions.namespaces[0]: Invalid value: "Bad_NS": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\'), exemptions.namespaces[2]: Duplicate value: "ok", exemptions.usernames[0]: Required value]',
    );
    assert.throws(() => loadPodSecurityConfiguration({ apiVersion: 'v1', kind: 'ConfigMap' }), /expected PodSecurityConfiguration/);
    const none = loadPodSecurityConfiguration(undefined);
    assert.equal(none.defaults.enforce.level, 'privileged');
    assert.equal(none.defaults.warn.version.toString(), 'latest');
  });
});

describe('PodSecurity plugin', () => {
  it('reports warnings and prefixed audit annotations to the request and throws the refusal', async () => {
    const { core } = setup({ namespaces: [ns('r', { ...restricted, 'pod-security.kubernetes.io/audit': 'restricted' })] });
    const plugin = new PodSecurityPlugin(core);
    const warnings: string[] = [];
    const annotations = new Map<string, string>();
    const attrs: AdmissionAttributes = {
      operation: 'CREATE',
      resource: { group: '', version: 'v1', kind: 'Pod', name: 'pods', namespaced: true } as AdmissionAttributes['resource'],
      subresource: '',
      namespace: 'r',
      name: 'p',
      object: privilegedPod(),
      dryRun: false,
      user: { username: 'alice', groups: [] },
      addWarning: (w) => warnings.push(w),
      addAuditAnnotation: (k, v) => annotations.set(k, v),
    };
    await assert.rejects(plugin.validate(attrs), (e: ApiError) => e.code === 403 && /violates PodSecurity/.test(e.message));
    assert.equal(annotations.get('pod-security.kubernetes.io/enforce-policy'), 'restricted:latest');
    assert.match(annotations.get('pod-security.kubernetes.io/audit-violations') ?? '', /^would violate PodSecurity "restricted:latest"/);
    assert.equal(plugin.handles('DELETE'), false);
    await plugin.validate({ ...attrs, resource: { ...attrs.resource, name: 'configmaps', kind: 'ConfigMap' } });
  });
});

describe('PodSecurity labels', () => {
  it('parses levels and versions as kube does', async () => {
    const { parseLevel, parseVersion, policyToEvaluate, compareLevels } = await import('../../src/admission/pod-security/api.js');
    assert.equal(parseLevel('baseline').error, undefined);
    assert.deepEqual(parseLevel('Baseline'), { level: 'restricted', error: 'must be one of privileged, baseline, restricted' });
    for (const ok of ['latest', 'v1.0', 'v1.9', 'v1.35', 'v1.100']) assert.equal(parseVersion(ok).error, undefined, ok);
    for (const bad of ['v1.01', 'v2.0', '1.25', 'v1', 'v1.x', 'Latest', '', 'v1.25.0']) assert.equal(parseVersion(bad).error, 'must be "latest" or "v1.x"', bad);
    assert.equal(parseVersion('v1.25').version.toString(), 'v1.25');
    assert.equal(parseVersion('bogus').version.toString(), 'latest');
    assert.deepEqual([compareLevels('privileged', 'baseline'), compareLevels('restricted', 'baseline'), compareLevels('baseline', 'baseline'), compareLevels('baseline', 'restricted')], [-1, 1, 0, -1]);
    const defaults = loadPodSecurityConfiguration(undefined).defaults;
    const { policy, errors } = policyToEvaluate({ 'pod-security.kubernetes.io/audit': 'nope', 'pod-security.kubernetes.io/audit-version': 'v1.20', 'pod-security.kubernetes.io/warn-version': 'v1.x' }, defaults);
    assert.equal(policy.audit.level, 'privileged', 'a bad audit level fails open');
    assert.equal(policy.audit.version.toString(), 'v1.20');
    assert.equal(policy.warn.version.toString(), 'latest');
    assert.deepEqual(errors.map((e) => e.field), ['metadata.labels[pod-security.kubernetes.io/audit]', 'metadata.labels[pod-security.kubernetes.io/warn-version]']);
  });
});
