import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { AdmissionAttributes } from '../../src/admission/admission.js';
import { MutatingAdmissionPolicyPlugin } from '../../src/admission/policy/mutating-plugin.js';
import { ValidatingAdmissionPolicyPlugin } from '../../src/admission/policy/validating-plugin.js';
import type { Authorizer } from '../../src/authz/authorizer.js';
import { FeatureGates } from '../../src/machinery/feature-gates.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { cachedLookup } from '../../src/registry/object-lookup.js';
import { ApiServer } from '../../src/server/apiserver.js';
import { eventually, http } from '../helpers/server.js';

/**
 * The admission policy plugins over a real server's watch caches: params
 * chosen by a selector (one evaluation per param) or missing, a paramKind
 * nothing serves, cluster-scoped params, the Warn and Audit actions with
 * their header and annotations, and a mutating policy's reinvocation.
 */

const A = '/apis/admissionregistration.k8s.io/v1';

describe('admission policies on a running server', () => {
  let server: ApiServer;
  let c: { url: string; creds: { ca: string; cert: string; key: string } };
  let shutdown: AbortController;

  before(async () => {
    server = new ApiServer({});
    await server.start();
    const kc = server.adminKubeconfig();
    c = { url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } };
    shutdown = new AbortController();
  });

  after(async () => {
    shutdown.abort();
    await server?.stop();
  });

  const post = async (path: string, body: unknown, expect = 201): Promise<void> => {
    const r = await http(c, 'POST', path, { body });
    assert.equal(r.status, expect, JSON.stringify(r.json));
  };

  /** A plugin built as the server builds its own, to call with attributes that record what it adds. */
  function context() {
    const internals = server as unknown as { registry: ApiServer['registry']; authorizer: Authorizer };
    return {
      registry: internals.registry, catalog: server.catalog, authorizer: internals.authorizer, featureGates: FeatureGates.defaults(),
      logger: { info: () => undefined, error: () => undefined, v: () => false }, configuration: undefined, shutdown: shutdown.signal,
      lookup: (group: string, version: string, resource: string) => cachedLookup(() => internals.registry.storeFor(server.catalog.resource(group, version, resource)!)),
      client: () => { throw new Error('not used'); },
    };
  }

  function attrs(object: KubeObject, record: { warnings: string[]; annotations: Map<string, string> }): AdmissionAttributes {
    return {
      operation: 'CREATE', resource: server.catalog.resource('', 'v1', 'configmaps')!, subresource: '', namespace: 'default', name: object.metadata?.name ?? '',
      object, dryRun: false, user: { username: 'admin', groups: ['system:masters'] },
      addWarning: (t) => record.warnings.push(t),
      addAuditAnnotation: (k, v) => void (record.annotations.has(k) || record.annotations.set(k, v)),
    };
  }

  it('evaluates once per selected param, warns and audits as the binding says', async () => {
    await post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'limit-a', labels: { limits: 'yes' } }, data: { forbidden: 'red' } });
    await post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'limit-b', labels: { limits: 'yes' } }, data: { forbidden: 'blue' } });
    await post(`${A}/validatingadmissionpolicies`, {
      metadata: { name: 'colours' },
      spec: {
        failurePolicy: 'Fail', paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
        matchConditions: [{ name: 'has-colour', expression: "has(object.data) && 'colour' in object.data" }],
        validations: [{ expression: 'object.data.colour != params.data.forbidden', messageExpression: "'colour ' + params.data.forbidden + ' is forbidden by ' + params.metadata.name" }],
        auditAnnotations: [{ key: 'colour', valueExpression: "'checked against ' + params.metadata.name" }],
      },
    });
    await post(`${A}/validatingadmissionpolicybindings`, {
      metadata: { name: 'colours-warn' },
      spec: { policyName: 'colours', validationActions: ['Warn', 'Audit'], paramRef: { selector: { matchLabels: { limits: 'yes' } }, parameterNotFoundAction: 'Deny' } },
    });
    const plugin = new ValidatingAdmissionPolicyPlugin(context());
    await plugin.start();
    const record = { warnings: [] as string[], annotations: new Map<string, string>() };
    await eventually(async () => {
      record.warnings.splice(0);
      record.annotations.clear();
      await plugin.validate(attrs({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'paint' }, data: { colour: 'blue' } }, record));
      return record.warnings.length > 0;
    });
    assert.deepEqual(record.warnings, ["Validation failed for ValidatingAdmissionPolicy 'colours' with binding 'colours-warn': colour blue is forbidden by limit-b"]);
    assert.deepEqual(JSON.parse(record.annotations.get('validation.policy.admission.k8s.io/validation_failure')!), [
      { message: 'colour blue is forbidden by limit-b', policy: 'colours', binding: 'colours-warn', expressionIndex: 0, validationActions: ['Warn', 'Audit'] },
    ]);
    // Both params' values, joined (kube's auditAnnotationCollector).
    assert.equal(record.annotations.get('colours/colour'), 'checked against limit-a, checked against limit-b');

    // Over HTTP, the Warning header; a request the matchConditions leave out passes silently.
    const warned = await http(c, 'POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'paint' }, data: { colour: 'red' } } });
    assert.equal(warned.status, 201);
    assert.match(String(warned.headers.warning), /Validation failed for ValidatingAdmissionPolicy 'colours' with binding 'colours-warn': colour red is forbidden by limit-a/);
    const plain = await http(c, 'POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'plain' }, data: { other: 'x' } } });
    assert.equal(plain.headers.warning, undefined);
  });

  it('reports configuration errors in kube\'s words, as failurePolicy says', async () => {
    await post(`${A}/validatingadmissionpolicies`, {
      metadata: { name: 'unknown-param' },
      spec: {
        failurePolicy: 'Fail', paramKind: { apiVersion: 'example.com/v1', kind: 'Nothing' },
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['secrets'] }] },
        validations: [{ expression: 'true' }],
      },
    });
    await post(`${A}/validatingadmissionpolicybindings`, {
      metadata: { name: 'unknown-param' },
      spec: { policyName: 'unknown-param', validationActions: ['Deny'], paramRef: { name: 'x', parameterNotFoundAction: 'Allow' } },
    });
    const denied = await eventually(async () => {
      const r = await http(c, 'POST', '/api/v1/namespaces/default/secrets', { body: { metadata: { name: 's1' } } });
      return r.status !== 201 && r;
    });
    assert.equal(denied.status, 422);
    assert.equal(denied.json?.message,
      "secrets \"s1\" is forbidden: ValidatingAdmissionPolicy 'unknown-param' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Nothing'");
  });

  it('refuses an invalid MutatingAdmissionPolicy with 422 Invalid and kube\'s causes', async () => {
    const r = await http(c, 'POST', `${A}/mutatingadmissionpolicies`, {
      body: {
        metadata: { name: 'bad' },
        spec: {
          reinvocationPolicy: 'Never',
          matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['configmaps'] }] },
          mutations: [{ patchType: 'JSONPatch' }],
        },
      },
    });
    assert.equal(r.status, 422, JSON.stringify(r.json));
    assert.equal(r.json?.reason, 'Invalid');
    assert.equal(r.json?.message, 'MutatingAdmissionPolicy.admissionregistration.k8s.io "bad" is invalid: ['
      + 'spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE", '
      + 'spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch]');
  });

  it('reinvokes a mutating policy with reinvocationPolicy IfNeeded when the object changed after it', async () => {
    await post(`${A}/mutatingadmissionpolicies`, {
      metadata: { name: 'count' },
      spec: {
        failurePolicy: 'Fail', reinvocationPolicy: 'IfNeeded',
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
        mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{data: {"seen": string(size(object.data))}}' } }],
      },
    });
    await post(`${A}/mutatingadmissionpolicybindings`, { metadata: { name: 'count' }, spec: { policyName: 'count' } });
    const plugin = new MutatingAdmissionPolicyPlugin(context());
    await plugin.start();
    const record = { warnings: [] as string[], annotations: new Map<string, string>() };
    const object: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'm' }, data: { a: '1' } };
    const a = attrs(object, record);
    a.reinvocation = { isReinvoke: false, shouldReinvoke: false, values: new Map() };
    await eventually(async () => {
      await plugin.admit(a);
      return object.data !== undefined && (object.data as Record<string, string>).seen !== undefined;
    });
    // The object the handler holds is changed in place; the chain is asked for a second pass.
    assert.deepEqual(object.data, { a: '1', seen: '1' });
    assert.equal(a.reinvocation.shouldReinvoke, true);
    // Unchanged since: the second pass leaves it alone; changed by a later plugin: the policy runs again.
    a.reinvocation.isReinvoke = true;
    await plugin.admit(a);
    assert.deepEqual(object.data, { a: '1', seen: '1' });
    (object.data as Record<string, string>).b = '2';
    await plugin.admit(a);
    assert.deepEqual(object.data, { a: '1', seen: '3', b: '2' });
  });

  it('refuses invalid policies with kube\'s validation', async () => {
    const r = await http(c, 'POST', `${A}/validatingadmissionpolicies`, {
      body: { metadata: { name: 'bad' }, spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] }, validations: [{ expression: 'object.spec.' }] } },
    });
    assert.equal(r.status, 422);
    assert.ok(r.json?.message.startsWith('ValidatingAdmissionPolicy.admissionregistration.k8s.io "bad" is invalid: spec.validations[0].expression: Invalid value: "object.spec.": compilation failed: ERROR: <input>:1:13: '), r.json?.message);
  });
});
