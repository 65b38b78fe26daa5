import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { PriorityAdmission } from '../../src/admission/priority.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { attrs, fixedLister, fixedLookup, pod, rejection } from '../helpers/admission.js';

/** plugin/pkg/admission/priority/admission_test.go's cases, on Capstan's plugin. */

const pc = (name: string, value: number, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'scheduling.k8s.io/v1',
  kind: 'PriorityClass',
  metadata: { name },
  value,
  preemptionPolicy: 'PreemptLowerPriority',
  ...extra,
});

const plugin = (classes: KubeObject[]): PriorityAdmission => new PriorityAdmission(fixedLister(classes), fixedLookup(classes));
type Spec = Record<string, unknown>;

describe('Priority admission', () => {
  it('resolves priorityClassName, the global default, or priority 0 with PreemptLowerPriority', async () => {
    const cases: Array<[string, KubeObject[], Spec, Spec]> = [
      ['named class', [pc('high', 1000, { preemptionPolicy: 'Never' })], { priorityClassName: 'high' }, { priorityClassName: 'high', priority: 1000, preemptionPolicy: 'Never' }],
      ['no class, no default', [pc('high', 1000)], {}, { priority: 0, preemptionPolicy: 'PreemptLowerPriority' }],
      ['global default', [pc('dflt', 50, { globalDefault: true })], {}, { priorityClassName: 'dflt', priority: 50, preemptionPolicy: 'PreemptLowerPriority' }],
      ['two defaults (a race): the lower value', [pc('a', 70, { globalDefault: true }), pc('b', 60, { globalDefault: true })], {}, { priorityClassName: 'b', priority: 60, preemptionPolicy: 'PreemptLowerPriority' }],
      ['system class', [pc('system-node-critical', 2000001000)], { priorityClassName: 'system-node-critical' }, { priorityClassName: 'system-node-critical', priority: 2000001000, preemptionPolicy: 'PreemptLowerPriority' }],
      ['matching priority given', [pc('high', 1000)], { priorityClassName: 'high', priority: 1000 }, { priorityClassName: 'high', priority: 1000, preemptionPolicy: 'PreemptLowerPriority' }],
    ];
    for (const [name, classes, spec, want] of cases) {
      const p = pod({ ...spec });
      await plugin(classes).admit(attrs('', 'pods', 'CREATE', p));
      assert.deepEqual(p.spec, want, name);
    }
  });

  it('refuses unknown classes and pods bringing other values, with kube\'s messages', async () => {
    const cases: Array<[Spec, string]> = [
      [{ priorityClassName: 'nope' }, 'no PriorityClass with name nope was found'],
      [{ priorityClassName: 'high', priority: 5 }, 'the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name'],
      [{ priority: 5 }, 'the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name'],
      [{ priorityClassName: 'high', preemptionPolicy: 'Never' }, 'the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name'],
    ];
    for (const [spec, why] of cases) {
      const err = await rejection(plugin([pc('high', 1000)]).admit(attrs('', 'pods', 'CREATE', pod(spec))));
      assert.equal(err.code, 403);
      assert.equal(err.message, `pods "p" is forbidden: ${why}`);
    }
  });

  it('keeps the priority create set on updates that drop it', async () => {
    const old = pod({ priorityClassName: 'high', priority: 1000, preemptionPolicy: 'Never' });
    const next = pod({ priorityClassName: 'high' });
    await plugin([]).admit(attrs('', 'pods', 'UPDATE', next, { name: 'p', oldObject: old }));
    assert.deepEqual(next.spec, { priorityClassName: 'high', priority: 1000, preemptionPolicy: 'Never' });
  });

  it('allows only one globalDefault PriorityClass', async () => {
    const existing = [pc('dflt', 50, { globalDefault: true })];
    const err = await rejection(plugin(existing).validate(attrs('scheduling.k8s.io', 'priorityclasses', 'CREATE', pc('other', 10, { globalDefault: true }))));
    assert.equal(err.code, 403);
    assert.equal(err.message, 'priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass dflt is already marked as default. Only one default can exist');
    const marking = await rejection(plugin(existing).validate(attrs('scheduling.k8s.io', 'priorityclasses', 'UPDATE', pc('other', 10, { globalDefault: true }), { name: 'other', oldObject: pc('other', 10) })));
    assert.equal(marking.code, 403);
    // The default itself may be updated; classes that are not default pass.
    await plugin(existing).validate(attrs('scheduling.k8s.io', 'priorityclasses', 'UPDATE', pc('dflt', 50, { globalDefault: true }), { name: 'dflt', oldObject: existing[0] }));
    await plugin(existing).validate(attrs('scheduling.k8s.io', 'priorityclasses', 'CREATE', pc('plain', 10)));
    await plugin([]).validate(attrs('scheduling.k8s.io', 'priorityclasses', 'CREATE', pc('first', 10, { globalDefault: true })));
  });
});
