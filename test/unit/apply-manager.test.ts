/**
 * kube-apiserver's field manager over our objects: what server-side apply
 * and ordinary writes leave in metadata.managedFields, the 409 conflict
 * Status, the apply body and reset rules, and the kubectl client-side-apply
 * upgrade. Cases follow apiserver's fieldmanager tests and the apply
 * integration tests (test/integration/apiserver/apply).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  LAST_APPLIED_ANNOTATION,
  deducedSchema,
  managerOrUserAgent,
  prefixFromUserAgent,
  schemaForCustomResource,
  schemaForDefinition,
  serverSideApply,
  trackUpdate,
  type ManagedFieldsEntry,
} from '../../src/apply/index.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { ApiError } from '../../src/machinery/errors.js';

const T0 = new Date('2024-05-01T10:00:00Z');
const T1 = new Date('2024-05-01T10:00:05Z');
const T2 = new Date('2024-05-01T10:00:09Z');

const deployment = schemaForDefinition('io.k8s.api.apps.v1.Deployment');
const configMap = schemaForDefinition('io.k8s.api.core.v1.ConfigMap');

function depConfig(replicas?: number, image = 'nginx:1.25'): KubeObject {
  const spec: Record<string, unknown> = {
    selector: { matchLabels: { app: 'nginx' } },
    template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image }] } },
  };
  if (replicas !== undefined) spec.replicas = replicas;
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec };
}

function applyDep(live: KubeObject | undefined, applied: KubeObject, manager: string, opts: { force?: boolean; now?: Date } = {}) {
  return serverSideApply({ live, applied, manager, force: opts.force, schema: deployment, apiVersion: 'apps/v1', kind: 'Deployment', now: opts.now ?? T0 });
}

/** The object as stored: the registry gives it a uid. */
function stored(obj: KubeObject): KubeObject {
  const copy = structuredClone(obj);
  copy.metadata = { ...copy.metadata, uid: 'uid-1' };
  return copy;
}

function updateDep(live: KubeObject, mutate: (o: KubeObject) => void, manager: string, now = T1) {
  const next = structuredClone(live);
  mutate(next);
  return trackUpdate({ live, updated: next, manager, schema: deployment, apiVersion: 'apps/v1', now });
}

function entries(obj: KubeObject): ManagedFieldsEntry[] {
  return (obj.metadata?.managedFields ?? []) as ManagedFieldsEntry[];
}

function conflictOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    return e;
  }
  assert.fail('expected an ApiError');
}

describe('server-side apply: create and ownership', () => {
  it('create-on-apply records one Apply entry (kubectl apply --server-side output)', () => {
    const r = serverSideApply({
      live: undefined,
      applied: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', labels: { a: 'b' } }, data: { key: 'value' } },
      manager: 'kubectl',
      schema: configMap,
      apiVersion: 'v1',
      kind: 'ConfigMap',
      now: T0,
    });
    assert.deepEqual(r.managedFields, [
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'v1',
        time: '2024-05-01T10:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:key': {} }, 'f:metadata': { 'f:labels': { 'f:a': {} } } },
      },
    ]);
    assert.deepEqual(r.object.data, { key: 'value' });
    assert.equal(r.changed, true);
  });

  it('a second applier with equal values shares ownership without conflict', () => {
    const one = stored(applyDep(undefined, depConfig(3), 'one').object);
    const two = applyDep(one, depConfig(3), 'two', { now: T1 });
    // Nothing changed in the object: the new entry carries no time (kube sets times only on
    // changes), and a missing time sorts first.
    assert.deepEqual(entries(two.object).map((e) => e.manager), ['two', 'one']);
    assert.deepEqual(entries(two.object)[0]?.fieldsV1, entries(one)[0]?.fieldsV1);
    assert.equal(two.changed, false);
    assert.equal(entries(two.object)[0]?.time, undefined);
  });

  it('removal by omission: an exclusively owned field goes, a shared one stays', () => {
    const one = stored(applyDep(undefined, depConfig(3), 'one').object);
    const dropped = applyDep(one, depConfig(undefined), 'one', { now: T1 });
    assert.equal(dropped.object.spec && (dropped.object.spec as Record<string, unknown>).replicas, undefined);

    const shared = stored(applyDep(one, depConfig(3), 'two', { now: T1 }).object);
    const kept = applyDep(shared, depConfig(undefined), 'one', { now: T2 });
    assert.equal((kept.object.spec as Record<string, unknown>).replicas, 3);
    assert.ok(!JSON.stringify(entries(kept.object).find((e) => e.manager === 'one')?.fieldsV1).includes('f:replicas'));
  });

  it('a field another manager took over stays when the applier drops it (TestApplyCanTransferFieldOwnershipToController)', () => {
    const applied = stored(applyDep(undefined, depConfig(3), 'test_applier').object);
    const updated = updateDep(applied, (o) => ((o.spec as Record<string, unknown>).replicas = 4), 'test_updater');
    const r = applyDep(stored(updated.object), depConfig(undefined), 'test_applier', { now: T2 });
    assert.equal((r.object.spec as Record<string, unknown>).replicas, 4);
  });

  it('list items merge by key: a second applier adds a container', () => {
    const one = stored(applyDep(undefined, depConfig(1), 'one').object);
    const cfg = depConfig(undefined);
    ((cfg.spec as { template: { spec: { containers: unknown[] } } }).template.spec.containers = [{ name: 'sidecar', image: 'busybox' }]);
    const r = applyDep(one, cfg, 'two', { now: T1 });
    const names = ((r.object.spec as { template: { spec: { containers: { name: string }[] } } }).template.spec.containers).map((c) => c.name);
    assert.deepEqual(names, ['nginx', 'sidecar']);
  });
});

describe('server-side apply: conflicts', () => {
  it('one conflict: exact message and cause', () => {
    const live = stored(applyDep(undefined, depConfig(3), 'kubectl-client-side-apply').object);
    // Recorded as an Update entry, as client-side apply writes are.
    const csa = stored(updateDep(live, (o) => ((o.spec as Record<string, unknown>).replicas = 2), 'kubectl-client-side-apply').object);
    const err = conflictOf(() => applyDep(csa, depConfig(5), 'kubectl-ssa', { now: T2 }));
    assert.equal(err.code, 409);
    assert.deepEqual(err.status, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using apps/v1', field: '.spec.replicas' }] },
      code: 409,
    });
  });

  it('several conflicts: multi-line message grouped by manager', () => {
    const live = stored(applyDep(undefined, depConfig(3), 'alpha').object);
    const err = conflictOf(() => applyDep(live, depConfig(4, 'nginx:2'), 'beta', { now: T1 }));
    assert.equal(
      err.status.message,
      'Apply failed with 2 conflicts: conflicts with "alpha":\n- .spec.replicas\n- .spec.template.spec.containers[name="nginx"].image',
    );
    assert.deepEqual(
      err.status.details?.causes?.map((c) => [c.reason, c.message, c.field]),
      [
        ['FieldManagerConflict', 'conflict with "alpha"', '.spec.replicas'],
        ['FieldManagerConflict', 'conflict with "alpha"', '.spec.template.spec.containers[name="nginx"].image'],
      ],
    );
  });

  it('list-map keys use their default: a port without protocol is the TCP item (TestDefaultMissingKeys)', () => {
    const withPort = (port: Record<string, unknown>): KubeObject => {
      const cfg = depConfig(undefined, 'nginx:latest');
      ((cfg.spec as { template: { spec: { containers: Record<string, unknown>[] } } }).template.spec.containers[0] as Record<string, unknown>).ports = [port];
      return cfg;
    };
    const live = stored(applyDep(undefined, withPort({ name: 'foo', containerPort: 80 }), 'test_applier').object);
    const err = conflictOf(() => applyDep(live, withPort({ name: 'bar', containerPort: 80, protocol: 'TCP' }), 'test_applier_conflict', { now: T1 }));
    assert.deepEqual(err.status.details?.causes?.map((c) => c.field), ['.spec.template.spec.containers[name="nginx"].ports[containerPort=80,protocol="TCP"].name']);
  });

  it('force takes the fields over', () => {
    const live = stored(applyDep(undefined, depConfig(3), 'alpha').object);
    const r = applyDep(live, depConfig(4), 'beta', { force: true, now: T1 });
    assert.equal((r.object.spec as Record<string, unknown>).replicas, 4);
    const alpha = JSON.stringify(entries(r.object).find((e) => e.manager === 'alpha')?.fieldsV1);
    const beta = JSON.stringify(entries(r.object).find((e) => e.manager === 'beta')?.fieldsV1);
    assert.ok(!alpha.includes('f:replicas'));
    assert.ok(beta.includes('f:replicas'));
  });

  it('subresource managers print with their subresource', () => {
    const live = stored(applyDep(undefined, depConfig(3), 'alpha').object);
    const scaled = trackUpdate({
      live,
      updated: { ...structuredClone(live), spec: { ...(live.spec as object), replicas: 7 } },
      manager: 'kube-controller-manager',
      schema: deployment,
      apiVersion: 'apps/v1',
      subresource: 'scale',
      now: T1,
    });
    assert.equal(entries(scaled.object).find((e) => e.subresource === 'scale')?.manager, 'kube-controller-manager');
    const err = conflictOf(() => applyDep(stored(scaled.object), depConfig(3), 'alpha', { now: T2 }));
    assert.equal(err.status.message, 'Apply failed with 1 conflict: conflict with "kube-controller-manager" with subresource "scale" using apps/v1: .spec.replicas');
  });
});

describe('server-side apply: request rules', () => {
  it('managedFields in the applied body is a 400', () => {
    const cfg = depConfig(1);
    cfg.metadata = { ...cfg.metadata, managedFields: [{ manager: 'x' }] };
    const err = conflictOf(() => applyDep(undefined, cfg, 'a'));
    assert.equal(err.code, 400);
    assert.equal(err.status.reason, 'BadRequest');
    assert.equal(err.status.message, 'metadata.managedFields must be nil');
  });

  it('another group/version/kind is a 400', () => {
    const err = conflictOf(() => applyDep(undefined, { ...depConfig(1), apiVersion: 'apps/v1beta1' }, 'a'));
    assert.equal(err.status.message, 'invalid object type: apps/v1beta1, Kind=Deployment');
    const core = conflictOf(() =>
      serverSideApply({ live: undefined, applied: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } }, manager: 'a', schema: configMap, apiVersion: 'v1', kind: 'ConfigMap' }),
    );
    assert.equal(core.status.message, 'invalid object type: /v1, Kind=Secret');
  });

  it('fields outside the schema fail the typed conversion (500, as kube)', () => {
    const cfg = depConfig(1);
    (cfg.spec as Record<string, unknown>).bogus = true;
    const err = conflictOf(() => applyDep(undefined, cfg, 'a'));
    assert.equal(err.code, 500);
    assert.equal(err.status.message, 'failed to create typed patch object (default/web; apps/v1, Kind=Deployment): .spec.bogus: field not declared in schema');
  });

  it('an object nobody manages is first owned by before-first-apply', () => {
    const live: KubeObject = { ...stored(depConfig(2)), metadata: { name: 'web', namespace: 'default', uid: 'u', labels: { team: 'x' } } };
    const r = applyDep(live, depConfig(2), 'applier', { now: T1 });
    const managers = entries(r.object).map((e) => `${e.manager}/${e.operation}`);
    assert.deepEqual(managers, ['applier/Apply', 'before-first-apply/Update']);
    const bfa = entries(r.object)[1] as ManagedFieldsEntry;
    assert.ok(JSON.stringify(bfa.fieldsV1).includes('"f:team"'));
  });

  it('reset fields (status on the main resource) are never owned', () => {
    const cfg = { ...depConfig(1), status: { replicas: 1 } };
    const r = serverSideApply({ live: undefined, applied: cfg, manager: 'a', schema: deployment, apiVersion: 'apps/v1', kind: 'Deployment', resetFields: [['status']], now: T0 });
    assert.ok(!JSON.stringify(r.managedFields).includes('f:status'));
  });
});

describe('updates (create, PUT, non-apply PATCH)', () => {
  it('a create owns everything it set; repeated updates by one manager merge into one entry', () => {
    const created = trackUpdate({ live: undefined, updated: depConfig(1), manager: 'kubectl-create', schema: deployment, apiVersion: 'apps/v1', now: T0 });
    assert.deepEqual(created.managedFields?.map((e) => [e.manager, e.operation, e.time]), [['kubectl-create', 'Update', '2024-05-01T10:00:00Z']]);
    // The zero Deployment already has spec and template: no "." for them, one for labels.
    assert.deepEqual(created.managedFields?.[0]?.fieldsV1, {
      'f:spec': {
        'f:replicas': {},
        'f:selector': {},
        'f:template': {
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
          'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
        },
      },
    });
    const live = stored(created.object);
    const u1 = updateDep(live, (o) => ((o.spec as Record<string, unknown>).paused = true), 'kubectl-edit', T1);
    const u2 = updateDep(stored(u1.object), (o) => ((o.spec as Record<string, unknown>).minReadySeconds = 5), 'kubectl-edit', T2);
    const edit = entries(u2.object).filter((e) => e.manager === 'kubectl-edit');
    assert.equal(edit.length, 1);
    assert.equal(edit[0]?.time, '2024-05-01T10:00:09Z');
    assert.deepEqual(Object.keys((edit[0]?.fieldsV1 as Record<string, Record<string, unknown>>)['f:spec'] ?? {}), ['f:minReadySeconds', 'f:paused']);
  });

  it('an update that changes nothing leaves managedFields as they were', () => {
    const live = stored(applyDep(undefined, depConfig(1), 'a').object);
    const u = updateDep(live, () => undefined, 'someone', T1);
    assert.deepEqual(u.managedFields, entries(live));
  });

  it('clients that drop managedFields keep the live ones', () => {
    const live = stored(applyDep(undefined, depConfig(1), 'a').object);
    const u = updateDep(live, (o) => delete (o.metadata as Record<string, unknown>).managedFields, 'x', T1);
    assert.deepEqual(u.managedFields, entries(live));
  });

  it('entries sort Apply first, then by time, manager, apiVersion', () => {
    const live = stored(applyDep(undefined, depConfig(1), 'zz-applier').object);
    const u1 = updateDep(live, (o) => ((o.spec as Record<string, unknown>).paused = true), 'b-updater', T2);
    const u2 = updateDep(stored(u1.object), (o) => ((o.spec as Record<string, unknown>).minReadySeconds = 3), 'a-updater', T1);
    assert.deepEqual(entries(u2.object).map((e) => e.manager), ['zz-applier', 'a-updater', 'b-updater']);
  });

  it('removed fields leave their owners', () => {
    const live = stored(applyDep(undefined, depConfig(3), 'a').object);
    const u = updateDep(live, (o) => delete (o.spec as Record<string, unknown>).replicas, 'remover');
    assert.ok(!JSON.stringify(u.managedFields).includes('f:replicas'));
    assert.deepEqual(u.managedFields?.map((e) => e.manager), ['a']);
  });

  it('reset: one empty entry clears managedFields; later updates stay untracked until an apply', () => {
    const live = stored(applyDep(undefined, depConfig(1), 'a').object);
    const reset = updateDep(live, (o) => {
      (o.metadata as Record<string, unknown>).managedFields = [{}];
      (o.metadata as Record<string, unknown>).labels = { x: 'y' };
    }, 'resetter');
    assert.equal(reset.managedFields, undefined);
    assert.equal(reset.object.metadata?.managedFields, undefined);
    const next = updateDep(stored(reset.object), (o) => ((o.spec as Record<string, unknown>).paused = true), 'later', T2);
    assert.equal(next.managedFields, undefined);
  });

  it('an empty list does not reset (SPEC); kube code would with emptyListResets', () => {
    const live = stored(applyDep(undefined, depConfig(1), 'a').object);
    const kept = updateDep(live, (o) => ((o.metadata as Record<string, unknown>).managedFields = []), 'x');
    assert.deepEqual(kept.managedFields, entries(live));
    const next = structuredClone(live);
    (next.metadata as Record<string, unknown>).managedFields = [];
    const reset = trackUpdate({ live, updated: next, manager: 'x', schema: deployment, apiVersion: 'apps/v1', emptyListResets: true });
    assert.equal(reset.managedFields, undefined);
  });

  it('subresource writes ignore managedFields sent in the body', () => {
    const live = stored(applyDep(undefined, depConfig(1), 'a').object);
    const next = structuredClone(live);
    (next.metadata as Record<string, unknown>).managedFields = [{}];
    (next as Record<string, unknown>).status = { replicas: 1 };
    const u = trackUpdate({ live, updated: next, manager: 'ctrl', schema: deployment, apiVersion: 'apps/v1', subresource: 'status', now: T1 });
    assert.deepEqual(u.managedFields?.map((e) => [e.manager, e.subresource]), [['a', undefined], ['ctrl', 'status']]);
  });

  it('more than 10 Update entries: the oldest merge into ancient-changes', () => {
    let obj = stored(applyDep(undefined, depConfig(1), 'a').object);
    for (let i = 0; i < 11; i++) {
      obj = stored(updateDep(obj, (o) => ((o.metadata as { labels?: Record<string, string> }).labels = { ...(o.metadata?.labels ?? {}), [`l${i}`]: 'v' }), `m${String(i).padStart(2, '0')}`, new Date(T0.getTime() + (i + 1) * 1000)).object);
    }
    const managers = entries(obj).map((e) => e.manager);
    assert.equal(managers.filter((m) => m !== 'a').length, 10);
    assert.ok(managers.includes('ancient-changes'));
    assert.ok(!managers.includes('m00') && !managers.includes('m01'));
  });
});

describe('kubectl client-side apply → server-side apply upgrade', () => {
  function csaObject(replicas: number): KubeObject {
    const cfg = depConfig(replicas);
    const annotation = `${JSON.stringify(cfg)}\n`;
    const created = trackUpdate({
      live: undefined,
      updated: { ...cfg, metadata: { ...cfg.metadata, annotations: { [LAST_APPLIED_ANNOTATION]: annotation } } },
      manager: 'kubectl-client-side-apply',
      schema: deployment,
      apiVersion: 'apps/v1',
      now: T0,
    });
    return stored(created.object);
  }

  it('kubectl --server-side takes over fields the annotation owns, without conflict', () => {
    const live = csaObject(3);
    const r = applyDep(live, depConfig(5), 'kubectl', { now: T1 });
    assert.equal((r.object.spec as Record<string, unknown>).replicas, 5);
    const csa = entries(r.object).find((e) => e.manager === 'kubectl-client-side-apply');
    assert.ok(!JSON.stringify(csa?.fieldsV1).includes('f:replicas'));
    // The annotation now holds the applied configuration (Go json.Encoder: sorted keys, newline).
    const ann = r.object.metadata?.annotations?.[LAST_APPLIED_ANNOTATION];
    assert.equal(ann, '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},"spec":{"replicas":5,"selector":{"matchLabels":{"app":"nginx"}},"template":{"metadata":{"labels":{"app":"nginx"}},"spec":{"containers":[{"image":"nginx:1.25","name":"nginx"}]}}}}\n');
  });

  it('other managers still conflict', () => {
    const err = conflictOf(() => applyDep(csaObject(3), depConfig(5), 'my-tool', { now: T1 }));
    assert.match(err.status.message ?? '', /^Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps\/v1: \.spec\.replicas$/);
  });

  it('fields changed since the annotation was written still conflict', () => {
    const live = csaObject(3);
    const edited = stored(updateDep(live, (o) => ((o.spec as Record<string, unknown>).replicas = 4), 'kubectl-client-side-apply', T1).object);
    const err = conflictOf(() => applyDep(edited, depConfig(5), 'kubectl', { now: T2 }));
    assert.equal(err.code, 409);
  });
});

describe('custom resources', () => {
  it('without schema: deduced, every node a member (metadata.name is never owned)', () => {
    const r = serverSideApply({
      live: undefined,
      applied: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3, tags: ['a'] } },
      manager: 'm',
      schema: deducedSchema(),
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      now: T0,
    });
    assert.deepEqual(r.managedFields?.[0]?.fieldsV1, { 'f:spec': { '.': {}, 'f:size': {}, 'f:tags': {} } });
  });

  it('with a structural schema: list-map markers apply, metadata is ObjectMeta', () => {
    const schema = schemaForCustomResource({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            items: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['id'], items: { type: 'object', properties: { id: { type: 'string' }, v: { type: 'integer' } } } },
          },
        },
      },
    });
    const r = serverSideApply({
      live: undefined,
      applied: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', labels: { a: 'b' } }, spec: { items: [{ id: 'x', v: 1 }] } },
      manager: 'm',
      schema,
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      now: T0,
    });
    assert.deepEqual(r.managedFields?.[0]?.fieldsV1, {
      'f:metadata': { 'f:labels': { 'f:a': {} } },
      'f:spec': { 'f:items': { 'k:{"id":"x"}': { '.': {}, 'f:id': {}, 'f:v': {} } } },
    });
  });
});

describe('manager names from User-Agent', () => {
  it('takes the prefix before the first slash', () => {
    assert.equal(prefixFromUserAgent('kubectl/v1.36.0 (linux/amd64) kubernetes/abc'), 'kubectl');
    assert.equal(prefixFromUserAgent('kubectl-client-side-apply/v1.36.0'), 'kubectl-client-side-apply');
    assert.equal(prefixFromUserAgent('Go-http-client/1.1'), 'Go-http-client');
    assert.equal(prefixFromUserAgent('a\u0001b/1'), 'ab');
    assert.equal(prefixFromUserAgent('x'.repeat(200)).length, 128);
    assert.equal(managerOrUserAgent('explicit', 'kubectl/1'), 'explicit');
    assert.equal(managerOrUserAgent(undefined, 'kubectl/1'), 'kubectl');
  });
});
