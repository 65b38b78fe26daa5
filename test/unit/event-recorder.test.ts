import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { EventRecorder } from '../../src/controllers/event-recorder.js';
import type { ApiClient } from '../../src/machinery/client.js';

/** client-go's event correlation: repeats counted on one Event, many similar messages combined. */

function fakeClient() {
  const calls: Array<{ verb: string; name?: string; body: Record<string, unknown> }> = [];
  const client = {
    create: async (_ref: unknown, obj: Record<string, unknown>) => {
      calls.push({ verb: 'create', body: obj });
      return obj;
    },
    patch: async (ref: { name: string }, _type: string, patch: Record<string, unknown>) => {
      calls.push({ verb: 'patch', name: ref.name, body: patch });
      return patch;
    },
  } as unknown as ApiClient;
  return { client, calls };
}

describe('event recorder', () => {
  const subject = { apiVersion: 'v1', kind: 'ConfigMap', name: 'dep', namespace: 'ns', uid: 'u1' };

  it('creates an event once, then counts repeats with a strategic merge patch', async () => {
    const f = fakeClient();
    const r = new EventRecorder(f.client, 'garbage-collector-controller');
    for (let i = 0; i < 3; i++) await r.event(subject, 'Warning', 'OwnerRefInvalidNamespace', 'same');
    assert.deepEqual(f.calls.map((c) => c.verb), ['create', 'patch', 'patch']);
    const created = f.calls[0]!.body as { metadata: { name: string }; count: number; source: { component: string }; involvedObject: { uid: string } };
    assert.equal(created.count, 1);
    assert.equal(created.source.component, 'garbage-collector-controller');
    assert.equal(created.involvedObject.uid, 'u1');
    assert.equal(f.calls[1]!.name, created.metadata.name);
    assert.equal(f.calls[2]!.body.count, 3);
  });

  it('combines the tenth and later different messages about one object and reason', async () => {
    const f = fakeClient();
    const r = new EventRecorder(f.client, 'c');
    for (let i = 0; i < 12; i++) await r.event(subject, 'Warning', 'R', `m${i}`);
    const verbs = f.calls.map((c) => c.verb);
    assert.deepEqual(verbs, [...Array(10).fill('create'), 'patch', 'patch']);
    assert.equal(f.calls[9]!.body.message, '(combined from similar events): m9');
    assert.equal(f.calls[11]!.body.message, '(combined from similar events): m11');
    assert.equal(f.calls[11]!.body.count, 3);
  });
});
