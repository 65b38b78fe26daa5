/**
 * The admission chain's configuration (kube 1.36's order and default-on set,
 * --enable/--disable-admission-plugins, --admission-control-config-file),
 * its behaviour (reinvocation, metrics, non-Status errors) and the generic
 * built-in plugins, with kube's texts.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

import { ApiCatalog } from '../../src/api/catalog.js';
import type { ResourceInfo } from '../../src/api/types.js';
import { AdmissionChain, type AdmissionAttributes, type AdmissionOperation, type AdmissionPlugin } from '../../src/admission/admission.js';
import { readAdmissionConfiguration } from '../../src/admission/admission-config.js';
import { AlwaysAdmit } from '../../src/admission/always-admit.js';
import { AlwaysDeny } from '../../src/admission/always-deny.js';
import { DenyServiceExternalIPs } from '../../src/admission/deny-service-external-ips.js';
import { EventRateLimit, eventRateLimitConfiguration } from '../../src/admission/event-rate-limit.js';
import { LimitPodHardAntiAffinityTopology } from '../../src/admission/limit-pod-hard-anti-affinity-topology.js';
import { AdmissionMetrics } from '../../src/admission/metrics.js';
import { NamespaceAutoProvision } from '../../src/admission/namespace-auto-provision.js';
import { NamespaceExists } from '../../src/admission/namespace-exists.js';
import { DEFAULT_ON_ADMISSION_PLUGINS, ORDERED_ADMISSION_PLUGINS } from '../../src/admission/plugins.js';
import type { ApiClient } from '../../src/machinery/client.js';
import { ApiError, alreadyExists } from '../../src/machinery/errors.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { enabledAdmissionPlugins } from '../../src/server/admission-setup.js';
import { FlagError } from '../../src/server/flags.js';
import { configFromFlags } from '../../src/server/options.js';

const catalog = ApiCatalog.load();
const resource = (group: string, version: string, name: string): ResourceInfo => catalog.resource(group, version, name)!;

function attrs(over: Partial<AdmissionAttributes> & { resource: ResourceInfo }): AdmissionAttributes {
  return { operation: 'CREATE', subresource: '', namespace: '', name: '', dryRun: false, ...over };
}

async function rejects(p: Promise<unknown>, code: number, message: string, reason?: string): Promise<ApiError> {
  let caught: unknown;
  try {
    await p;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof ApiError, `expected an ApiError, got ${String(caught)}`);
  assert.equal(caught.code, code);
  assert.equal(caught.status.message, message);
  assert.equal(caught.reason, reason);
  return caught;
}

function flagError(argv: string[], message: string): void {
  assert.throws(
    () => configFromFlags(argv),
    (err: unknown) => err instanceof FlagError && err.message === message,
  );
}

describe('kube 1.36 plugin order and default-on set', () => {
  it('lists AllOrderedPlugins with webhooks, policies, ResourceQuota and AlwaysDeny last', () => {
    assert.equal(ORDERED_ADMISSION_PLUGINS.length, 41);
    assert.deepEqual(ORDERED_ADMISSION_PLUGINS.slice(0, 5), ['AlwaysAdmit', 'NamespaceAutoProvision', 'NamespaceLifecycle', 'NamespaceExists', 'LimitPodHardAntiAffinityTopology']);
    assert.deepEqual(ORDERED_ADMISSION_PLUGINS.slice(-11, -6), ['PodTopologyLabels', 'PodGroupWorkloadExists', 'NodeDeclaredFeatureValidator', 'JobValidation', 'PodResizeValidator']);
    assert.deepEqual(ORDERED_ADMISSION_PLUGINS.slice(-6), ['MutatingAdmissionPolicy', 'MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook', 'ResourceQuota', 'AlwaysDeny']);
    assert.ok(ORDERED_ADMISSION_PLUGINS.indexOf('StorageObjectInUseProtection') + 1 === ORDERED_ADMISSION_PLUGINS.indexOf('PodGroupProtection'));
  });

  it('has kube default-on set (27 plugins), default-off ones excluded', () => {
    assert.equal(DEFAULT_ON_ADMISSION_PLUGINS.size, 27);
    for (const name of ['PodGroupProtection', 'PodGroupWorkloadExists', 'NodeDeclaredFeatureValidator', 'JobValidation', 'PodResizeValidator', 'NamespaceLifecycle', 'ResourceQuota']) assert.ok(DEFAULT_ON_ADMISSION_PLUGINS.has(name), name);
    for (const name of ['AlwaysAdmit', 'AlwaysDeny', 'NamespaceAutoProvision', 'NamespaceExists', 'NodeRestriction', 'EventRateLimit', 'DenyServiceExternalIPs', 'LimitPodHardAntiAffinityTopology', 'AlwaysPullImages']) {
      assert.ok(!DEFAULT_ON_ADMISSION_PLUGINS.has(name), name);
    }
  });

  it('enables in kube order whatever the flag order; disabling wins over the default', () => {
    const names = enabledAdmissionPlugins({ enablePlugins: ['AlwaysDeny', 'EventRateLimit', 'NamespaceAutoProvision'] });
    assert.deepEqual(names.filter((n) => ['AlwaysDeny', 'EventRateLimit', 'NamespaceAutoProvision', 'NamespaceLifecycle'].includes(n)), ['NamespaceAutoProvision', 'NamespaceLifecycle', 'EventRateLimit', 'AlwaysDeny']);
    assert.ok(!enabledAdmissionPlugins({ disablePlugins: ['NamespaceLifecycle'] }).includes('NamespaceLifecycle'));
    // kube's enabledPluginNames: enabling wins (the flags refuse the overlap; an embedder's config may have it).
    assert.ok(enabledAdmissionPlugins({ enablePlugins: ['AlwaysDeny'], disablePlugins: ['AlwaysDeny'] }).includes('AlwaysDeny'));
  });

  it('runs NodeRestriction with the Node authorizer unless disabled', () => {
    assert.ok(!enabledAdmissionPlugins(undefined).includes('NodeRestriction'));
    assert.ok(enabledAdmissionPlugins(undefined, { nodeAuthorizer: true }).includes('NodeRestriction'));
    assert.ok(!enabledAdmissionPlugins({ disablePlugins: ['NodeRestriction'] }, { nodeAuthorizer: true }).includes('NodeRestriction'));
    assert.ok(enabledAdmissionPlugins({ enablePlugins: ['NodeRestriction'] }).includes('NodeRestriction'));
  });
});

describe('--enable-admission-plugins / --disable-admission-plugins / --admission-control-config-file', () => {
  it('passes the lists and resolves the file against the working directory', () => {
    const { config } = configFromFlags(['--enable-admission-plugins=AlwaysDeny,EventRateLimit', '--disable-admission-plugins', 'NamespaceLifecycle', '--admission-control-config-file=adm.yaml'], '/work/x');
    assert.deepEqual(config.admission, { enablePlugins: ['AlwaysDeny', 'EventRateLimit'], disablePlugins: ['NamespaceLifecycle'], configFile: '/work/x/adm.yaml' });
    assert.equal(configFromFlags([]).config.admission, undefined);
  });

  it('refuses unknown names with kube texts', () => {
    flagError(['--enable-admission-plugins=Nope'], 'enable-admission-plugins plugin "Nope" is unknown');
    flagError(['--disable-admission-plugins=Nope'], 'disable-admission-plugins plugin "Nope" is unknown');
    flagError(['--enable-admission-plugins=Nope,AlwaysDeny', '--disable-admission-plugins=Other'], '[enable-admission-plugins plugin "Nope" is unknown, disable-admission-plugins plugin "Other" is unknown]');
  });

  it('refuses a plugin both enabled and disabled', () => {
    flagError(['--enable-admission-plugins=NamespaceExists,AlwaysDeny', '--disable-admission-plugins=NamespaceExists,AlwaysDeny'], '[AlwaysDeny NamespaceExists] in enable-admission-plugins and disable-admission-plugins overlapped');
  });

  it('refuses a kube plugin Capstan has not built, naming those it has', () => {
    assert.throws(
      () => configFromFlags(['--enable-admission-plugins=ImagePolicyWebhook']),
      (err: unknown) => err instanceof FlagError && /^--enable-admission-plugins: "ImagePolicyWebhook" is not supported by this server yet \(supported: .*AlwaysDeny/.test(err.message),
    );
  });
});

describe('AdmissionConfiguration file (kube ReadAdmissionConfiguration)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-admcfg-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string): string => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  it('reads inline configurations and relative paths in YAML, for each accepted version', () => {
    file('erl.yaml', 'apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits:\n- type: Server\n  qps: 1\n  burst: 2\n');
    for (const apiVersion of ['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1alpha1', 'apiserver.k8s.io/v1alpha1']) {
      const path = file('adm.yaml', `apiVersion: ${apiVersion}\nkind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n  path: erl.yaml\n- name: Other\n  configuration:\n    a: 1\n`);
      const got = readAdmissionConfiguration(['EventRateLimit', 'Other', 'Absent'], path);
      assert.deepEqual(got.get('EventRateLimit'), { apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1', kind: 'Configuration', limits: [{ type: 'Server', qps: 1, burst: 2 }] });
      assert.deepEqual(got.get('Other'), { a: 1 });
      assert.ok(!got.has('Absent'));
    }
  });

  it('reads JSON and only the enabled plugins', () => {
    const path = file('adm.json', JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration', plugins: [{ name: 'A', configuration: { x: true } }, { name: 'B', path: 'missing.yaml' }] }));
    assert.deepEqual([...readAdmissionConfiguration(['A'], path)], [['A', { x: true }]]);
    assert.throws(() => readAdmissionConfiguration(['B'], path), { message: `Couldn't open admission plugin configuration ${join(dir, 'missing.yaml')}: open ${join(dir, 'missing.yaml')}: no such file or directory` });
  });

  it('answers with kube texts for a missing file, kind, version or an unknown type', () => {
    const missing = join(dir, 'nope.yaml');
    assert.throws(() => readAdmissionConfiguration([], missing), { message: `failed to read plugin config: unable to read admission control configuration from "${missing}" [open ${missing}: no such file or directory]` });
    const noKind = 'apiVersion: apiserver.config.k8s.io/v1\nplugins: []\n';
    assert.throws(() => readAdmissionConfiguration([], file('a.yaml', noKind)), { message: `failed to read plugin config: Object 'Kind' is missing in '${noKind}'` });
    const noVersion = 'kind: AdmissionConfiguration\n';
    assert.throws(() => readAdmissionConfiguration([], file('b.yaml', noVersion)), { message: `failed to read plugin config: Object 'apiVersion' is missing in '${noVersion}'` });
    assert.throws(() => readAdmissionConfiguration([], file('c.yaml', 'apiVersion: v1\nkind: AdmissionConfiguration\n')), { message: 'failed to read plugin config: no kind "AdmissionConfiguration" is registered for version "v1"' });
  });

  it('takes a legacy imagePolicy / podNodeSelectorPluginConfig file as those plugins\' configuration', () => {
    const path = file('legacy.yaml', 'podNodeSelectorPluginConfig:\n  clusterDefaultNodeSelector: a=b\n');
    const got = readAdmissionConfiguration(['PodNodeSelector', 'NamespaceLifecycle'], path);
    assert.deepEqual([...got.keys()], ['PodNodeSelector']);
    assert.deepEqual(got.get('PodNodeSelector'), { podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'a=b' } });
  });
});

describe('AdmissionChain', () => {
  const pods = resource('', 'v1', 'pods');

  it('reinvokes the mutating phase once when a plugin asks', async () => {
    const seen: string[] = [];
    const asking: AdmissionPlugin = {
      name: 'Asking',
      async admit(a) {
        seen.push(`asking:${a.reinvocation!.isReinvoke}`);
        if (!a.reinvocation!.isReinvoke) {
          a.reinvocation!.values.set('Asking', 1);
          a.reinvocation!.shouldReinvoke = true;
        }
      },
    };
    const other: AdmissionPlugin = { name: 'Other', async admit(a) { seen.push(`other:${a.reinvocation!.isReinvoke}:${String(a.reinvocation!.values.get('Asking'))}`); } };
    await new AdmissionChain([asking, other]).admit(attrs({ resource: pods }));
    assert.deepEqual(seen, ['asking:false', 'other:false:1', 'asking:true', 'other:true:1']);
    const once: string[] = [];
    await new AdmissionChain([{ name: 'P', async admit() { once.push('p'); } }]).admit(attrs({ resource: pods }));
    assert.deepEqual(once, ['p']);
  });

  it('skips plugins that do not handle the operation or the phase', async () => {
    const calls: string[] = [];
    const createOnly: AdmissionPlugin = { name: 'C', handles: (op: AdmissionOperation) => op === 'CREATE', async validate() { calls.push('C'); } };
    const chain = new AdmissionChain([createOnly, { name: 'M', async admit() { calls.push('M'); } }]);
    await chain.validate(attrs({ resource: pods, operation: 'DELETE' }));
    await chain.validate(attrs({ resource: pods }));
    assert.deepEqual(calls, ['C']);
  });

  it('answers an error that is not an ApiError as kube ErrorToAPIStatus: 500, no reason, the error text', async () => {
    const logged: string[] = [];
    const chain = new AdmissionChain([{ name: 'Broken', async validate() { throw new Error('plugin lost its way'); } }], { logger: { info() {}, error: (m) => logged.push(m), v: () => false } });
    const err = await rejects(chain.validate(attrs({ resource: pods })), 500, 'plugin lost its way', undefined);
    assert.equal(err.status.details, undefined);
    assert.equal(logged.length, 1);
    assert.equal(logged[0], 'apiserver received an error that is not an metav1.Status: plugin lost its way');
    // A bug (Go's panic) is left to the handlers' 500 InternalError, logged with its stack there.
    const bug = new TypeError('x is undefined');
    await assert.rejects(new AdmissionChain([{ name: 'Buggy', async admit() { throw bug; } }]).admit(attrs({ resource: pods })), (err: unknown) => err === bug);
  });

  it('records kube step and controller latencies with the rejected label', async () => {
    const metrics = new AdmissionMetrics();
    const chain = new AdmissionChain([new AlwaysAdmit(), new AlwaysDeny()], { metrics });
    await assert.rejects(chain.admit(attrs({ resource: pods, name: 'p' })));
    const step = metrics.step.all();
    assert.deepEqual(step.map((s) => s.labels), [{ operation: 'CREATE', rejected: 'true', type: 'admit' }]);
    assert.equal(step[0]!.count, 1);
    assert.deepEqual(metrics.step.buckets, [0.005, 0.025, 0.1, 0.5, 1.0, 2.5]);
    assert.deepEqual(metrics.controller.all().map((s) => s.labels), [
      { name: 'AlwaysAdmit', operation: 'CREATE', rejected: 'false', type: 'admit' },
      { name: 'AlwaysDeny', operation: 'CREATE', rejected: 'true', type: 'admit' },
    ]);
  });
});

describe('generic plugins', () => {
  const pods = resource('', 'v1', 'pods');
  const services = resource('', 'v1', 'services');
  const events = resource('', 'v1', 'events');
  const namespaces = resource('', 'v1', 'namespaces');

  it('AlwaysDeny refuses both phases with kube text, naming the object or its generateName', async () => {
    await rejects(new AlwaysDeny().admit(attrs({ resource: pods, namespace: 'ns', name: 'p' })), 403, 'pods "p" is forbidden: admission control is denying all modifications', 'Forbidden');
    await rejects(new AlwaysDeny().validate(attrs({ resource: pods, object: { metadata: { generateName: 'web-' } } })), 403, 'pods "web-" is forbidden: admission control is denying all modifications', 'Forbidden');
    await rejects(new AlwaysDeny().admit(attrs({ resource: resource('apps', 'v1', 'deployments') })), 403, 'deployments.apps "Unknown" is forbidden: admission control is denying all modifications', 'Forbidden');
  });

  it('NamespaceExists refuses writes into a namespace that does not exist', async () => {
    const plugin = new NamespaceExists(async (_ns, name) => (name === 'here' ? { metadata: { name } } : undefined));
    await plugin.validate(attrs({ resource: pods, namespace: 'here' }));
    await plugin.validate(attrs({ resource: namespaces, name: 'gone' }));
    await rejects(plugin.validate(attrs({ resource: pods, namespace: 'gone', operation: 'UPDATE' })), 404, 'namespaces "gone" not found', 'NotFound');
    assert.equal(plugin.handles('CONNECT'), false);
  });

  it('NamespaceAutoProvision creates a missing namespace, not on dry-run, tolerating AlreadyExists', async () => {
    const created: KubeObject[] = [];
    let exists = false;
    const client = {
      async create(_ref: unknown, obj: KubeObject) {
        if (exists) throw alreadyExists({ group: '', resource: 'namespaces' }, obj.metadata!.name!);
        created.push(obj);
        return obj;
      },
    } as unknown as ApiClient;
    const plugin = new NamespaceAutoProvision(async () => undefined, client);
    await plugin.admit(attrs({ resource: pods, namespace: 'fresh', dryRun: true }));
    assert.equal(created.length, 0);
    await plugin.admit(attrs({ resource: pods, namespace: 'fresh' }));
    assert.deepEqual(created.map((o) => o.metadata?.name), ['fresh']);
    exists = true;
    await plugin.admit(attrs({ resource: pods, namespace: 'fresh' }));
    assert.equal(plugin.handles('UPDATE'), false);
  });

  it('DenyServiceExternalIPs refuses new external IPs only', async () => {
    const svc = (ips?: string[]): KubeObject => ({ metadata: { name: 's' }, spec: ips ? { externalIPs: ips } : {} });
    const plugin = new DenyServiceExternalIPs();
    await plugin.validate(attrs({ resource: services, name: 's', object: svc() }));
    await rejects(plugin.validate(attrs({ resource: services, name: 's', object: svc(['1.2.3.4']) })), 403, 'services "s" is forbidden: Use of external IPs is denied by admission control', 'Forbidden');
    await plugin.validate(attrs({ resource: services, name: 's', operation: 'UPDATE', object: svc(['1.2.3.4']), oldObject: svc(['1.2.3.4', '5.6.7.8']) }));
    await rejects(plugin.validate(attrs({ resource: services, name: 's', operation: 'UPDATE', object: svc(['9.9.9.9']), oldObject: svc(['1.2.3.4']) })), 403, 'services "s" is forbidden: Use of external IPs is denied by admission control', 'Forbidden');
    await plugin.validate(attrs({ resource: services, name: 's', subresource: 'status', object: svc(['9.9.9.9']) }));
  });

  it('LimitPodHardAntiAffinityTopology allows only the hostname topology key', async () => {
    const pod = (key: string): KubeObject => ({ metadata: { name: 'p' }, spec: { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: key, labelSelector: {} }] } } } });
    const plugin = new LimitPodHardAntiAffinityTopology();
    await plugin.validate(attrs({ resource: pods, object: pod('kubernetes.io/hostname') }));
    await rejects(
      plugin.validate(attrs({ resource: pods, object: pod('topology.kubernetes.io/zone') })),
      403,
      'pods "p" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey topology.kubernetes.io/zone but only key kubernetes.io/hostname is allowed',
      'Forbidden',
    );
  });

  describe('EventRateLimit', () => {
    const config = (limits: unknown): unknown => ({ apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1', kind: 'Configuration', limits });
    const event = (ns: string, user = 'u', involved = 'a'): AdmissionAttributes =>
      attrs({ resource: events, namespace: ns, user: { username: user, groups: [] }, object: { metadata: { name: 'e' }, source: { component: 'c' }, involvedObject: { kind: 'Pod', name: involved } } });

    it('refuses with kube 429 text once a bucket is empty, refilling with time', async () => {
      let now = 0;
      const plugin = new EventRateLimit(eventRateLimitConfiguration(config([{ type: 'Namespace', qps: 1, burst: 2 }])), () => now);
      await plugin.validate(event('a'));
      await plugin.validate(event('a'));
      await rejects(plugin.validate(event('a')), 429, 'Too many requests: Too many requests: limit reached on type Namespace for key a', 'TooManyRequests');
      await plugin.validate(event('b'));
      await plugin.validate(attrs({ ...event('a'), dryRun: true }));
      await plugin.validate(attrs({ ...event('a'), resource: pods }));
      now += 1000;
      await plugin.validate(event('a'));
      await assert.rejects(plugin.validate(event('a')));
    });

    it('aggregates several refusals and keys Server, User and SourceAndObject', async () => {
      const plugin = new EventRateLimit(eventRateLimitConfiguration(config([{ type: 'Server', qps: 1, burst: 1 }, { type: 'User', qps: 1, burst: 1 }, { type: 'SourceAndObject', qps: 1, burst: 5 }])), () => 0);
      await plugin.validate(event('a', 'alice'));
      await rejects(plugin.validate(event('b', 'alice')), 429, 'Too many requests: [Too many requests: limit reached on type Server for key , Too many requests: limit reached on type User for key alice]', 'TooManyRequests');
    });

    it('forgets a key evicted from its LRU cache', async () => {
      const plugin = new EventRateLimit(eventRateLimitConfiguration(config([{ type: 'Namespace', qps: 1, burst: 1, cacheSize: 1 }])), () => 0);
      await plugin.validate(event('a'));
      await plugin.validate(event('b'));
      await plugin.validate(event('a'));
      await assert.rejects(plugin.validate(event('a')));
    });

    it('refuses a bad configuration with kube texts', () => {
      assert.throws(() => eventRateLimitConfiguration(undefined), { message: 'limits: Invalid value: null: must not be empty' });
      assert.throws(() => eventRateLimitConfiguration(config([])), { message: 'limits: Invalid value: []: must not be empty' });
      assert.throws(() => eventRateLimitConfiguration(config([{ type: 'Server', qps: 0, burst: 1 }])), { message: 'limits[0].qps: Invalid value: 0: must be positive' });
      assert.throws(() => eventRateLimitConfiguration(config([{ type: 'Cluster', qps: 1, burst: -1 }])), {
        message: '[limits[0].type: Unsupported value: "Cluster": supported values: "Server", "Namespace", "User", "SourceAndObject", limits[0].burst: Invalid value: -1: must be positive]',
      });
      assert.throws(() => eventRateLimitConfiguration(config([{ type: 'User', qps: 1, burst: 1, cacheSize: -2 }])), { message: 'limits[0].cacheSize: Invalid value: -2: must not be negative' });
      assert.throws(() => eventRateLimitConfiguration({ kind: 'Configuration', limits: [] }), { message: `Object 'apiVersion' is missing in '{"kind":"Configuration","limits":[]}'` });
      assert.throws(() => eventRateLimitConfiguration({ apiVersion: 'v1', kind: 'Configuration' }), { message: 'no kind "Configuration" is registered for version "v1"' });
    });
  });
});

describe('--admission-control (deprecated)', () => {
  it('names the whole chain, every other plugin disabled, with pflag deprecation notice', () => {
    const { config, warnings } = configFromFlags(['--admission-control=NamespaceLifecycle,AlwaysDeny']);
    assert.deepEqual(config.admission?.enablePlugins, ['NamespaceLifecycle', 'AlwaysDeny']);
    assert.ok(config.admission?.disablePlugins?.includes('NodeRestriction'));
    assert.ok(!config.admission?.disablePlugins?.includes('AlwaysDeny'));
    assert.deepEqual(enabledAdmissionPlugins(config.admission, { nodeAuthorizer: true }), ['NamespaceLifecycle', 'AlwaysDeny']);
    assert.deepEqual(warnings, ['Flag --admission-control has been deprecated, Use --enable-admission-plugins or --disable-admission-plugins instead. Will be removed in a future version.']);
  });

  it('refuses unknown names and the newer flags beside it with kube texts', () => {
    flagError(['--admission-control=Nope'], 'admission-control plugin "Nope" is unknown');
    flagError(['--admission-control=AlwaysDeny', '--enable-admission-plugins=AlwaysAdmit'], 'admission-control and enable-admission-plugins/disable-admission-plugins flags are mutually exclusive');
  });
});
