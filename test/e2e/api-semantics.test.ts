import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { decodeProtobufObject } from '../../src/codec/protobuf/index.js';
import { eventually, http, removeDir, startServer, type HttpResponse, type TestServer } from '../helpers/server.js';

/**
 * The API's behaviour over raw HTTPS, as kube-apiserver answers: Status
 * errors, metadata rules, status subresource, finalizers, preconditions,
 * dry run, namespace lifecycle, chunked lists, watches, media types, health.
 */

for (const backend of ['memory', 'sqlite'] as const) {
  describe(`API semantics (${backend})`, () => {
    let server: TestServer;
    const req = (method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResponse> =>
      http(server, method, path, { ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) });
    const cm = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data: { k: 'v' } });

    before(async () => {
      server = await startServer({ backend });
      assert.equal((await req('POST', '/api/v1/namespaces', { metadata: { name: 'sem' } })).status, 201);
    });
    after(async () => {
      await server?.stop();
      if (server) removeDir(server.dataDir);
    });

    describe('errors are kube-apiserver Status objects', () => {
      it('NotFound', async () => {
        const r = await req('GET', '/api/v1/namespaces/sem/configmaps/nope');
        assert.equal(r.status, 404);
        assert.deepEqual(r.json, {
          kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
          message: 'configmaps "nope" not found', reason: 'NotFound', details: { name: 'nope', kind: 'configmaps' }, code: 404,
        });
        const g = await req('GET', '/apis/apps/v1/namespaces/sem/deployments/nope');
        assert.deepEqual(g.json.details, { name: 'nope', group: 'apps', kind: 'deployments' });
        assert.equal(g.json.message, 'deployments.apps "nope" not found');
      });

      it('AlreadyExists', async () => {
        assert.equal((await req('POST', '/api/v1/namespaces/sem/configmaps', cm('dup'))).status, 201);
        const r = await req('POST', '/api/v1/namespaces/sem/configmaps', cm('dup'));
        assert.equal(r.status, 409);
        assert.equal(r.json.reason, 'AlreadyExists');
        assert.equal(r.json.message, 'configmaps "dup" already exists');
      });

      it('Invalid with field causes', async () => {
        const r = await req('POST', '/api/v1/namespaces/sem/configmaps', cm('Bad_Name', { labels: { 'bad key': 'v' } }));
        assert.equal(r.status, 422);
        assert.equal(r.json.reason, 'Invalid');
        assert.equal(r.json.details.kind, 'ConfigMap');
        assert.equal(r.json.details.name, 'Bad_Name');
        const fields = r.json.details.causes.map((c: { field: string }) => c.field);
        assert.ok(fields.includes('metadata.name'));
        assert.ok(fields.includes('metadata.labels'));
        assert.match(r.json.message, /^ConfigMap "Bad_Name" is invalid: \[metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
        const missing = await req('POST', '/api/v1/namespaces/sem/configmaps', { data: {} });
        assert.equal(missing.status, 422);
        assert.equal(missing.json.details.causes[0].message, 'Required value: name or generateName is required');
      });

      it('validates names per type (namespace label, RBAC path segment)', async () => {
        const ns = await req('POST', '/api/v1/namespaces', { metadata: { name: 'a.b' } });
        assert.equal(ns.status, 422);
        assert.match(ns.json.message, /RFC 1123 label/);
        const role = await req('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'system:Odd Name' }, rules: [] });
        assert.equal(role.status, 201, role.text);
        const badRole = await req('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'a/b' }, rules: [] });
        assert.equal(badRole.status, 422);
        assert.match(badRole.json.message, /may not contain '\/'/);
      });

      it('BadRequest for a namespace mismatch and a name mismatch', async () => {
        const r = await req('POST', '/api/v1/namespaces/sem/configmaps', cm('x', { namespace: 'other' }));
        assert.equal(r.status, 400);
        assert.equal(r.json.message, 'the namespace of the provided object does not match the namespace sent on the request');
        const u = await req('PUT', '/api/v1/namespaces/sem/configmaps/dup', cm('other'));
        assert.equal(u.status, 400);
        assert.equal(u.json.message, 'the name of the object (other) does not match the name on the URL (dup)');
        const junk = await req('POST', '/api/v1/namespaces/sem/configmaps', '{not json', { 'Content-Type': 'application/json' });
        assert.equal(junk.status, 400);
        assert.equal(junk.json.reason, 'BadRequest');
      });

      it('MethodNotAllowed, UnsupportedMediaType, RequestEntityTooLarge, NotAcceptable', async () => {
        const m = await req('POST', '/api/v1/namespaces/sem/configmaps/dup', cm('dup'));
        assert.equal(m.status, 405);
        assert.equal(m.json.reason, 'MethodNotAllowed');
        const cs = await req('POST', '/api/v1/componentstatuses', { metadata: { name: 'x' } });
        assert.equal(cs.status, 405);
        const t = await req('POST', '/api/v1/namespaces/sem/configmaps', 'x', { 'Content-Type': 'text/plain' });
        assert.equal(t.status, 415);
        assert.equal(t.json.reason, 'UnsupportedMediaType');
        const big = await req('POST', '/api/v1/namespaces/sem/configmaps', { metadata: { name: 'big' }, data: { x: 'a'.repeat(3 * 1024 * 1024 + 10) } });
        assert.equal(big.status, 413);
        assert.equal(big.json.reason, 'RequestEntityTooLarge');
        assert.equal(big.json.message, 'Request entity too large: limit is 3145728');
        const n = await req('GET', '/api/v1/namespaces/sem/configmaps', undefined, { Accept: 'text/html' });
        assert.equal(n.status, 406);
        assert.equal(n.json.reason, 'NotAcceptable');
      });

      it('unknown resources and groups are 404', async () => {
        for (const p of ['/api/v1/foos', '/apis/nope/v1/things', '/apis/batch/v1beta1/cronjobs', '/api/v1/namespaces/sem/nodes/x']) {
          const r = await req('GET', p);
          assert.equal(r.status, 404, p);
        }
      });
    });

    it('fills server metadata and generates names', async () => {
      const r = await req('POST', '/api/v1/namespaces/sem/configmaps', { metadata: { generateName: 'gen-' } });
      assert.equal(r.status, 201);
      assert.match(r.json.metadata.name, /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      assert.match(r.json.metadata.uid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.match(r.json.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.match(r.json.metadata.resourceVersion, /^[1-9]\d*$/);
      const withRv = await req('POST', '/api/v1/namespaces/sem/configmaps', cm('rv', { resourceVersion: '5' }));
      assert.equal(withRv.status, 500);
      assert.equal(withRv.json.message, 'resourceVersion should not be set on objects to be created');
    });

    it('splits status from spec and bumps generation on spec changes', async () => {
      const dep = {
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' },
        spec: { replicas: 1, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
        status: { replicas: 9 },
      };
      const c = await req('POST', '/apis/apps/v1/namespaces/sem/deployments', dep);
      assert.equal(c.status, 201, c.text);
      assert.equal(c.json.metadata.generation, 1);
      assert.deepEqual(c.json.status, {});
      const withStatus = { ...c.json, status: { replicas: 3 } };
      const s = await req('PUT', '/apis/apps/v1/namespaces/sem/deployments/d/status', withStatus);
      assert.equal(s.status, 200, s.text);
      assert.deepEqual(s.json.status, { replicas: 3 });
      assert.equal(s.json.metadata.generation, 1);
      const main = await req('PUT', '/apis/apps/v1/namespaces/sem/deployments/d', { ...s.json, spec: { ...s.json.spec, replicas: 5 }, status: { replicas: 0 } });
      assert.equal(main.status, 200, main.text);
      assert.equal(main.json.spec.replicas, 5);
      assert.deepEqual(main.json.status, { replicas: 3 });
      assert.equal(main.json.metadata.generation, 2);
      const statusSpec = await req('PUT', '/apis/apps/v1/namespaces/sem/deployments/d/status', { ...main.json, spec: { ...main.json.spec, replicas: 7 } });
      assert.equal(statusSpec.json.spec.replicas, 5);
      const got = await req('GET', '/apis/apps/v1/namespaces/sem/deployments/d/status');
      assert.equal(got.status, 200);
      assert.equal(got.json.kind, 'Deployment');
      const noop = await req('PUT', '/apis/apps/v1/namespaces/sem/deployments/d', got.json);
      assert.equal(noop.json.metadata.resourceVersion, got.json.metadata.resourceVersion, 'an unchanged update writes nothing');
    });

    it('rejects a stale resourceVersion with 409 and keeps unconditional updates working', async () => {
      const a = await req('POST', '/api/v1/namespaces/sem/configmaps', cm('occ'));
      const b = await req('PUT', '/api/v1/namespaces/sem/configmaps/occ', { ...a.json, data: { k: 'b' } });
      assert.equal(b.status, 200);
      const stale = await req('PUT', '/api/v1/namespaces/sem/configmaps/occ', { ...a.json, data: { k: 'c' } });
      assert.equal(stale.status, 409);
      assert.equal(stale.json.message, 'Operation cannot be fulfilled on configmaps "occ": the object has been modified; please apply your changes to the latest version and try again');
      const { resourceVersion: _rv, ...meta } = a.json.metadata;
      const blind = await req('PUT', '/api/v1/namespaces/sem/configmaps/occ', { ...a.json, metadata: meta, data: { k: 'd' } });
      assert.equal(blind.status, 200);
      assert.equal(blind.json.data.k, 'd');
    });

    it('PUT creates where kube allows it (events) and 404s elsewhere', async () => {
      const ev = { metadata: { name: 'e1' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'sem' }, reason: 'R', message: 'm' };
      const r = await req('PUT', '/api/v1/namespaces/sem/events/e1', ev);
      assert.equal(r.status, 201, r.text);
      const c = await req('PUT', '/api/v1/namespaces/sem/configmaps/none', cm('none'));
      assert.equal(c.status, 404);
    });

    it('deletes through finalizers: Terminating until the last one is removed', async () => {
      const c = await req('POST', '/api/v1/namespaces/sem/configmaps', cm('fin', { finalizers: ['example.com/hold'] }));
      assert.equal(c.status, 201);
      const d = await req('DELETE', '/api/v1/namespaces/sem/configmaps/fin');
      assert.equal(d.status, 200);
      assert.equal(d.json.kind, 'ConfigMap');
      assert.match(d.json.metadata.deletionTimestamp, /Z$/);
      assert.equal(d.json.metadata.deletionGracePeriodSeconds, 0);
      const again = await req('DELETE', '/api/v1/namespaces/sem/configmaps/fin');
      assert.equal(again.status, 200);
      assert.equal(again.json.metadata.deletionTimestamp, d.json.metadata.deletionTimestamp);
      const still = await req('GET', '/api/v1/namespaces/sem/configmaps/fin');
      assert.equal(still.status, 200);
      const cleared = await req('PATCH', '/api/v1/namespaces/sem/configmaps/fin', { metadata: { finalizers: null } }, { 'Content-Type': 'application/merge-patch+json' });
      assert.equal(cleared.status, 200, cleared.text);
      assert.equal((await req('GET', '/api/v1/namespaces/sem/configmaps/fin')).status, 404);
    });

    it('returns a Status or the deleted object as kube does per type', async () => {
      await req('POST', '/api/v1/namespaces/sem/configmaps', cm('gone'));
      const d = await req('DELETE', '/api/v1/namespaces/sem/configmaps/gone');
      assert.equal(d.status, 200);
      assert.equal(d.json.kind, 'Status');
      assert.equal(d.json.status, 'Success');
      assert.equal(d.json.details.name, 'gone');
      assert.equal(d.json.details.kind, 'configmaps');
      assert.match(d.json.details.uid, /^[0-9a-f-]{36}$/);
      await req('POST', '/api/v1/namespaces/sem/serviceaccounts', { metadata: { name: 'bot' } });
      const sa = await req('DELETE', '/api/v1/namespaces/sem/serviceaccounts/bot');
      assert.equal(sa.json.kind, 'ServiceAccount');
      const pod = { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } };
      assert.equal((await req('POST', '/api/v1/namespaces/sem/pods', pod)).status, 201);
      const p = await req('DELETE', '/api/v1/namespaces/sem/pods/p');
      assert.equal(p.json.kind, 'Pod');
      assert.equal((await req('GET', '/api/v1/namespaces/sem/pods/p')).status, 404, 'an unscheduled pod goes at once');
    });

    it('checks delete preconditions', async () => {
      const c = await req('POST', '/api/v1/namespaces/sem/configmaps', cm('pre'));
      const uid = await req('DELETE', '/api/v1/namespaces/sem/configmaps/pre', { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-it' } });
      assert.equal(uid.status, 409);
      assert.equal(uid.json.message, `Operation cannot be fulfilled on configmaps "pre": Precondition failed: UID in precondition: not-it, UID in object meta: ${c.json.metadata.uid}`);
      const rv = await req('DELETE', '/api/v1/namespaces/sem/configmaps/pre', { preconditions: { resourceVersion: '1' } });
      assert.equal(rv.status, 409, rv.text);
      const bad = await req('DELETE', '/api/v1/namespaces/sem/configmaps/pre', { propagationPolicy: 'Sometimes' });
      assert.equal(bad.status, 422);
      const ok = await req('DELETE', '/api/v1/namespaces/sem/configmaps/pre', { preconditions: { uid: c.json.metadata.uid, resourceVersion: c.json.metadata.resourceVersion } });
      assert.equal(ok.status, 200);
    });

    it('dry run stores nothing and consumes no resourceVersion', async () => {
      const before = await req('GET', '/api/v1/namespaces/sem/configmaps');
      const c = await req('POST', '/api/v1/namespaces/sem/configmaps?dryRun=All', cm('dry'));
      assert.equal(c.status, 201);
      assert.equal(c.json.metadata.name, 'dry');
      assert.equal(c.json.metadata.resourceVersion, undefined);
      assert.equal((await req('GET', '/api/v1/namespaces/sem/configmaps/dry')).status, 404);
      await req('POST', '/api/v1/namespaces/sem/configmaps', cm('keep'));
      const after1 = await req('GET', '/api/v1/namespaces/sem/configmaps');
      const d = await req('DELETE', '/api/v1/namespaces/sem/configmaps/keep?dryRun=All');
      assert.equal(d.status, 200);
      assert.equal((await req('GET', '/api/v1/namespaces/sem/configmaps/keep')).status, 200);
      const after2 = await req('GET', '/api/v1/namespaces/sem/configmaps');
      assert.equal(after2.json.metadata.resourceVersion, after1.json.metadata.resourceVersion);
      assert.equal(Number(after1.json.metadata.resourceVersion), Number(before.json.metadata.resourceVersion) + 1);
      const bad = await req('POST', '/api/v1/namespaces/sem/configmaps?dryRun=Some', cm('x'));
      assert.equal(bad.status, 422);
      assert.match(bad.json.message, /Unsupported value/);
    });

    it('enforces the namespace lifecycle', async () => {
      const missing = await req('POST', '/api/v1/namespaces/ghost/configmaps', cm('x'));
      assert.equal(missing.status, 404);
      assert.equal(missing.json.message, 'namespaces "ghost" not found');
      await req('POST', '/api/v1/namespaces', { metadata: { name: 'ending' } });
      await req('POST', '/api/v1/namespaces/ending/configmaps', cm('held', { finalizers: ['example.com/hold'] }));
      const del = await req('DELETE', '/api/v1/namespaces/ending');
      assert.equal(del.status, 200);
      assert.equal(del.json.status.phase, 'Terminating');
      const forbidden = await req('POST', '/api/v1/namespaces/ending/configmaps', cm('late'));
      assert.equal(forbidden.status, 403);
      assert.equal(forbidden.json.message, 'configmaps "late" is forbidden: unable to create new content in namespace ending because it is being terminated');
      assert.equal(forbidden.json.details.causes[0].reason, 'NamespaceTerminating');
      const conditions = await eventually(async () => {
        const ns = await req('GET', '/api/v1/namespaces/ending');
        const c = ns.json.status.conditions as Array<{ type: string; status: string; message: string }> | undefined;
        return c?.find((x) => x.type === 'NamespaceFinalizersRemaining' && x.status === 'True') ? c : undefined;
      });
      assert.equal(conditions.find((c) => c.type === 'NamespaceContentRemaining')!.message, 'Some resources are remaining: configmaps has 1 resource instances');
      assert.equal(conditions.find((c) => c.type === 'NamespaceFinalizersRemaining')!.message, 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances');
      await req('PATCH', '/api/v1/namespaces/ending/configmaps/held', [{ op: 'remove', path: '/metadata/finalizers' }], { 'Content-Type': 'application/json-patch+json' });
      await eventually(async () => (await req('GET', '/api/v1/namespaces/ending')).status === 404);
      const sys = await req('DELETE', '/api/v1/namespaces/default');
      assert.equal(sys.status, 403);
      assert.equal(sys.json.message, 'namespaces "default" is forbidden: this namespace may not be deleted');
    });

    it('gives every namespace a default ServiceAccount and kube-root-ca.crt', async () => {
      await eventually(async () => (await req('GET', '/api/v1/namespaces/sem/serviceaccounts/default')).status === 200);
      const ca = await eventually(async () => {
        const r = await req('GET', '/api/v1/namespaces/sem/configmaps/kube-root-ca.crt');
        return r.status === 200 ? r : undefined;
      });
      assert.match(ca.json.data['ca.crt'], /^-----BEGIN CERTIFICATE-----/);
      assert.equal(ca.json.data['ca.crt'], server.creds.ca);
      await req('DELETE', '/api/v1/namespaces/sem/serviceaccounts/default');
      await eventually(async () => (await req('GET', '/api/v1/namespaces/sem/serviceaccounts/default')).status === 200);
    });

    it('lists across namespaces and in chunks with a stable snapshot', async () => {
      await req('POST', '/api/v1/namespaces', { metadata: { name: 'chunks' } });
      for (let i = 0; i < 12; i++) await req('POST', '/api/v1/namespaces/chunks/configmaps', cm(`c${String(i).padStart(2, '0')}`, { labels: { n: String(i % 2) } }));
      const first = await req('GET', '/api/v1/namespaces/chunks/configmaps?limit=5');
      assert.equal(first.json.items.length, 5);
      assert.ok(first.json.metadata.continue);
      await req('POST', '/api/v1/namespaces/chunks/configmaps', cm('c99'));
      const names: string[] = first.json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
      let page = first;
      while (page.json.metadata.continue) {
        page = await req('GET', `/api/v1/namespaces/chunks/configmaps?limit=5&continue=${encodeURIComponent(page.json.metadata.continue)}`);
        assert.equal(page.status, 200, page.text);
        assert.equal(page.json.metadata.resourceVersion, first.json.metadata.resourceVersion);
        names.push(...page.json.items.map((i: { metadata: { name: string } }) => i.metadata.name));
      }
      assert.ok(!names.includes('c99'), 'later writes are not in the snapshot');
      assert.ok(names.includes('kube-root-ca.crt') || names.length === 12);
      assert.equal(first.json.metadata.remainingItemCount, names.length - 5);
      const filtered = await req('GET', '/api/v1/namespaces/chunks/configmaps?labelSelector=n%3D1&limit=2');
      assert.equal(filtered.json.items.length, 2);
      assert.equal(filtered.json.metadata.remainingItemCount, undefined);
      const all = await req('GET', '/api/v1/configmaps?fieldSelector=metadata.namespace%3Dchunks');
      assert.ok(all.json.items.every((i: { metadata: { namespace: string } }) => i.metadata.namespace === 'chunks'));
      assert.equal(all.json.kind, 'ConfigMapList');
      assert.equal(all.json.items[0].kind, undefined, 'list items carry no TypeMeta');
      const bad = await req('GET', '/api/v1/configmaps?fieldSelector=spec.nothing%3Dx');
      assert.equal(bad.status, 400);
      assert.equal(bad.json.message, '"spec.nothing" is not a known field selector: only "metadata.name", "metadata.namespace"');
      const badPod = await req('GET', '/api/v1/pods?fieldSelector=spec.nothing%3Dx');
      assert.equal(badPod.json.message, 'field label not supported: spec.nothing');
      const setBased = await req('GET', '/api/v1/namespaces/chunks/configmaps?labelSelector=n%20in%20(0),!missing');
      assert.equal(setBased.json.items.length, 6);
      const badRv = await req('GET', '/api/v1/configmaps?limit=1&continue=abc&resourceVersion=5');
      assert.equal(badRv.status, 400);
    });

    it('deletes a collection with a selector', async () => {
      const r = await req('DELETE', '/api/v1/namespaces/chunks/configmaps?labelSelector=n%3D0');
      assert.equal(r.status, 200);
      assert.equal(r.json.kind, 'ConfigMapList');
      assert.equal(r.json.items.length, 6);
      const left = await req('GET', '/api/v1/namespaces/chunks/configmaps?labelSelector=n');
      assert.equal(left.json.items.length, 6);
    });

    it('watches a collection and a single object, with selectors and timeoutSeconds', async () => {
      const start = await req('GET', '/api/v1/namespaces/sem/configmaps');
      const rv = start.json.metadata.resourceVersion;
      const events = watchLines(server, `/api/v1/namespaces/sem/configmaps?watch=1&resourceVersion=${rv}&labelSelector=w%3Dyes&timeoutSeconds=5`);
      const single = watchLines(server, `/api/v1/namespaces/sem/configmaps/w1?watch=true&resourceVersion=${rv}&timeoutSeconds=5`);
      await new Promise((r) => setTimeout(r, 200));
      const c = await req('POST', '/api/v1/namespaces/sem/configmaps', cm('w1', { labels: { w: 'yes' } }));
      await req('POST', '/api/v1/namespaces/sem/configmaps', cm('w2', { labels: { w: 'no' } }));
      const u = await req('PUT', '/api/v1/namespaces/sem/configmaps/w1', { ...c.json, metadata: { ...c.json.metadata, labels: { w: 'no' } } });
      await req('PUT', '/api/v1/namespaces/sem/configmaps/w1', { ...u.json, metadata: { ...u.json.metadata, labels: { w: 'yes' } } });
      await req('DELETE', '/api/v1/namespaces/sem/configmaps/w1');
      const got = await events.done;
      assert.deepEqual(got.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED w1', 'DELETED w1', 'ADDED w1', 'DELETED w1']);
      const one = await single.done;
      assert.deepEqual(one.map((e) => e.type), ['ADDED', 'MODIFIED', 'MODIFIED', 'DELETED']);
      assert.ok(Number(one[3]!.object.metadata.resourceVersion) > Number(one[2]!.object.metadata.resourceVersion), 'DELETED carries the delete revision');
      const initial = await watchLines(server, '/api/v1/namespaces/sem/configmaps?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3Dw2').done;
      assert.deepEqual(initial.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED w2']);
    });

    it('speaks YAML, honours Accept weights and pretty', async () => {
      const y = await req('GET', '/api/v1/namespaces/sem/configmaps/w2', undefined, { Accept: 'application/yaml' });
      assert.equal(y.headers['content-type'], 'application/yaml');
      assert.match(y.text, /^apiVersion: v1\ndata:\n {2}k: v\nkind: ConfigMap\n/);
      const pref = await req('GET', '/api/v1/namespaces/sem/configmaps/w2', undefined, { Accept: 'application/json;q=0.5, application/yaml' });
      assert.equal(pref.headers['content-type'], 'application/yaml');
      const created = await req('POST', '/api/v1/namespaces/sem/configmaps', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  a: "1"\n', { 'Content-Type': 'application/yaml' });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.data.a, '1');
      const pretty = await req('GET', '/api/v1/namespaces/sem/configmaps/w2?pretty=true');
      assert.match(pretty.text, /^\{\n {2}"/);
      const table = await req('GET', '/api/v1/namespaces/sem/configmaps/w2', undefined, { Accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' });
      assert.equal(table.json.kind, 'Table');
      assert.deepEqual(table.json.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Data', 'Age']);
      const meta = await req('GET', '/api/v1/namespaces/sem/configmaps', undefined, { Accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' });
      assert.equal(meta.json.kind, 'PartialObjectMetadataList');
      assert.equal(meta.json.items[0].kind, 'PartialObjectMetadata');
      assert.equal(meta.json.items[0].data, undefined);
    });

    it('answers access reviews from the authorizer', async () => {
      const sar = (user: string, groups: string[]) => ({
        apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview',
        spec: { user, groups, resourceAttributes: { namespace: 'sem', verb: 'list', resource: 'pods' } },
      });
      const anon = await req('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', sar('system:anonymous', ['system:unauthenticated']));
      assert.equal(anon.status, 201, anon.text);
      assert.equal(anon.json.status.allowed, false);
      const admin = await req('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', sar('jane', ['system:authenticated']));
      assert.equal(admin.json.status.allowed, true);
      const noUser = await req('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { spec: { resourceAttributes: { verb: 'get' } } });
      assert.equal(noUser.status, 422);
      assert.match(noUser.json.message, /spec\.user: Invalid value: "": at least one of user or group must be specified/);
      const local = await req('POST', '/apis/authorization.k8s.io/v1/namespaces/sem/localsubjectaccessreviews', {
        spec: { user: 'jane', resourceAttributes: { namespace: 'other', verb: 'get', resource: 'pods' } },
      });
      assert.equal(local.status, 422);
      assert.match(local.json.message, /must match metadata\.namespace/);
      // TokenReview is built now (authentication's issue): an unknown token is reviewed as not authenticated.
      const token = await req('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { spec: { token: 'x' } });
      assert.equal(token.status, 201);
      // as kube's Go struct writes it: authenticated has omitempty, user is a value struct (always written)
      assert.deepEqual(token.json.status, { user: {}, error: 'invalid bearer token' });
    });

    it('serves protobuf objects and lists that decode to the JSON ones', async () => {
      const pb = { Accept: 'application/vnd.kubernetes.protobuf' };
      const jsonList = await req('GET', '/api/v1/namespaces/sem/configmaps');
      const rawList = await rawGet(server, '/api/v1/namespaces/sem/configmaps', pb);
      assert.equal(rawList.contentType, 'application/vnd.kubernetes.protobuf');
      const list = decodeProtobufObject(rawList.body);
      assert.equal(list.kind, 'ConfigMapList');
      assert.deepEqual(list.object.items, jsonList.json.items);
      const name = jsonList.json.items[0].metadata.name;
      const one = decodeProtobufObject((await rawGet(server, `/api/v1/namespaces/sem/configmaps/${name}`, pb)).body);
      assert.deepEqual(one.object, (await req('GET', `/api/v1/namespaces/sem/configmaps/${name}`)).json);
    });

    it('exposes watch cache metrics at /metrics to authenticated users', async () => {
      await req('GET', '/api/v1/namespaces/sem/configmaps');
      const m = await req('GET', '/metrics');
      assert.equal(m.status, 200);
      assert.match(m.headers['content-type'] as string, /^text\/plain/);
      assert.match(m.text, /^apiserver_storage_objects\{resource="configmaps"\} \d+$/m);
      assert.match(m.text, /^capstan_watch_cache_history_events\{group="",resource="configmaps"\} \d+$/m);
      assert.match(m.text, /^capstan_watch_cache_oldest_event_age_seconds\{group="",resource="configmaps"\} [\d.]+$/m);
      assert.match(m.text, /^process_resident_memory_bytes \d+/m);
      assert.equal((await http(server, 'GET', '/metrics', { anonymous: true })).status, 403);
    });

    it('serves /version and health checks', async () => {
      const v = await req('GET', '/version');
      assert.match(v.json.gitVersion, /^v1\.36\.\d+\+capstan/);
      assert.equal(v.json.major, '1');
      assert.equal(v.json.minor, '36');
      const live = await http(server, 'GET', '/livez', { anonymous: true });
      assert.equal(live.status, 200);
      assert.equal(live.text, 'ok');
      const verbose = await req('GET', '/readyz?verbose');
      assert.match(verbose.text, /^\[\+\]ping ok\n/m);
      assert.match(verbose.text, /\[\+\]etcd ok\n/);
      assert.match(verbose.text, /readyz check passed\n$/);
      const excluded = await req('GET', '/readyz?verbose&exclude=etcd');
      assert.match(excluded.text, /\[\+\]etcd excluded: ok\n/);
      assert.equal((await req('GET', '/livez/ping')).text, 'ok');
      assert.equal((await req('GET', '/livez/nope')).status, 404);
      const anon = await http(server, 'GET', '/api/v1/namespaces', { anonymous: true });
      assert.equal(anon.status, 403);
      assert.equal(anon.json.message, 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope');
    });
  });
}

/** A GET whose body stays bytes (for protobuf). */
function rawGet(server: TestServer, path: string, headers: Record<string, string>): Promise<{ contentType: string; body: Buffer }> {
  const u = new URL(path, server.url);
  return new Promise((resolve, reject) => {
    const r = httpsRequest(
      { method: 'GET', hostname: u.hostname, port: u.port, path: u.pathname + u.search, headers, ca: server.creds.ca, cert: server.creds.cert, key: server.creds.key, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ contentType: String(res.headers['content-type']), body: Buffer.concat(chunks) }));
      },
    );
    r.on('error', reject);
    r.end();
  });
}

interface WatchEventLine {
  type: string;
  object: { metadata: { name: string; resourceVersion: string } };
}

/** Collects the events of a watch until the server ends it. */
function watchLines(server: TestServer, path: string): { done: Promise<WatchEventLine[]> } {
  const u = new URL(path, server.url);
  const done = new Promise<WatchEventLine[]>((resolve, reject) => {
    const r = httpsRequest(
      { method: 'GET', hostname: u.hostname, port: u.port, path: u.pathname + u.search, ca: server.creds.ca, cert: server.creds.cert, key: server.creds.key, agent: false },
      (res) => {
        let buf = '';
        res.on('data', (d: Buffer) => (buf += d.toString()));
        res.on('end', () => resolve(buf.split('\n').filter(Boolean).map((l) => JSON.parse(l) as WatchEventLine)));
      },
    );
    r.on('error', reject);
    r.end();
  });
  return { done };
}
