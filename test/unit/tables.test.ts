/**
 * Server-side printing against kube-apiserver 1.36's printers
 * (pkg/printers/internalversion printers.go and printers_test.go, the
 * apiextensions default convertor and kube-aggregator's APIService table):
 * column names, types and priorities (priority 1 = `-o wide`), and the exact
 * cells for objects in their served JSON form.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { KubeObject } from '../../src/machinery/object.js';
import { DEFAULT_TABLE, humanDuration, tableConvertorFor } from '../../src/registry/tables.js';
import { type TableConvertor } from '../../src/codec/table-convertor.js';
import { formatLabelSelector, labelSelectorString } from '../../src/registry/tables/format.js';
import { quantityString } from '../../src/api/quantity.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

/** An RFC 3339 timestamp `ms` before NOW. */
function ago(ms: number): string {
  return new Date(NOW - ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function microAgo(ms: number): string {
  return new Date(NOW - ms).toISOString().replace(/Z$/, '123Z');
}

function table(group: string, resource: string): TableConvertor {
  return tableConvertorFor(group, resource);
}

function cells(group: string, resource: string, obj: KubeObject): unknown[] {
  return table(group, resource).cells(obj, NOW);
}

/** Column names with the priority-1 (wide) ones marked by a trailing "*". */
function columnNames(group: string, resource: string): string[] {
  return table(group, resource).columns.map((c) => (c.priority === 1 ? `${c.name}*` : c.name));
}

interface Case {
  name: string;
  obj: KubeObject;
  cells: unknown[];
}

function runCases(group: string, resource: string, cases: Case[], width?: number): void {
  for (const c of cases) {
    it(c.name, () => {
      const got = cells(group, resource, c.obj);
      assert.deepEqual(width === undefined ? got : got.slice(0, width), c.cells);
    });
  }
}

const meta = (name: string, extra: Record<string, unknown> = {}): KubeObject['metadata'] => ({ name, ...extra });

describe('humanDuration', () => {
  const cases: [number, string][] = [
    [-1900, '0s'],
    [-2500, '<invalid>'],
    [0, '0s'],
    [119 * S, '119s'],
    [2 * M, '2m'],
    [9 * M + 59 * S, '9m59s'],
    [10 * M + 30 * S, '10m'],
    [179 * M, '179m'],
    [3 * H, '3h'],
    [7 * H + 59 * M, '7h59m'],
    [47 * H, '47h'],
    [2 * D + 5 * H, '2d5h'],
    [8 * D, '8d'],
    [729 * D, '729d'],
    [2 * 365 * D + 10 * D, '2y10d'],
    [10 * 365 * D, '10y'],
  ];
  for (const [ms, want] of cases) it(`${ms}ms → ${want}`, () => assert.equal(humanDuration(ms), want));
});

describe('quantity canonical form', () => {
  const cases: [unknown, string][] = [
    ['10Gi', '10Gi'],
    ['1.5Gi', '1536Mi'],
    ['1024Mi', '1Gi'],
    ['2048Ki', '2Mi'],
    ['1.5Ki', '1536'],
    ['0.5Ki', '512'],
    ['2000', '2k'],
    ['0.5', '500m'],
    ['1000m', '1'],
    ['1500m', '1500m'],
    ['100m', '100m'],
    ['512', '512'],
    ['1e3', '1e3'],
    ['1.5e3', '1500'],
    ['0', '0'],
    ['0Gi', '0'],
    ['-2000', '-2k'],
    [5, '5'],
    [undefined, '0'],
    ['0.0000000001', '1n'],
  ];
  for (const [input, want] of cases) it(`${String(input)} → ${want}`, () => assert.equal(quantityString(input), want));
});

describe('label selectors', () => {
  it('sorts requirements by key and set values', () => {
    const sel = {
      matchLabels: { b: '2', a: '1' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['prod', 'dev'] },
        { key: 'tier', operator: 'NotIn', values: ['cache'] },
        { key: 'c', operator: 'Exists' },
        { key: 'd', operator: 'DoesNotExist' },
      ],
    };
    assert.equal(formatLabelSelector(sel), 'a=1,b=2,c,!d,env in (dev,prod),tier notin (cache)');
  });
  it('shows <none> for nil and empty selectors, <error> for bad ones', () => {
    assert.equal(formatLabelSelector(undefined), '<none>');
    assert.equal(formatLabelSelector({}), '<none>');
    assert.equal(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }), '<error>');
    assert.equal(formatLabelSelector({ matchLabels: { 'bad key': 'x' } }), '<error>');
    assert.equal(labelSelectorString({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }), null);
  });
});

describe('default table (Name, Created At)', () => {
  for (const [group, resource] of [
    ['apiextensions.k8s.io', 'customresourcedefinitions'],
    ['rbac.authorization.k8s.io', 'roles'],
    ['rbac.authorization.k8s.io', 'clusterroles'],
    ['', 'limitranges'],
    ['storage.k8s.io', 'csistoragecapacities'],
  ] as const) {
    it(`${group}/${resource}`, () => assert.equal(table(group, resource), DEFAULT_TABLE));
  }
  it('columns and RFC 3339 cells', () => {
    assert.deepEqual(
      DEFAULT_TABLE.columns.map((c) => [c.name, c.type, c.format]),
      [
        ['Name', 'string', 'name'],
        ['Created At', 'date', ''],
      ],
    );
    assert.match(DEFAULT_TABLE.columns[0]?.description ?? '', /^Name must be unique within a namespace/);
    assert.deepEqual(DEFAULT_TABLE.cells({ metadata: meta('crd', { creationTimestamp: '2024-05-06T07:08:09Z' }) }, NOW), ['crd', '2024-05-06T07:08:09Z']);
    assert.deepEqual(DEFAULT_TABLE.cells({ metadata: meta('x') }, NOW), ['x', '0001-01-01T00:00:00Z']);
  });
});

describe('pods', () => {
  it('columns', () => {
    assert.deepEqual(columnNames('', 'pods'), ['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP*', 'Node*', 'Nominated Node*', 'Readiness Gates*']);
    const restarts = table('', 'pods').columns[3];
    assert.equal(restarts?.type, 'string');
    assert.match(table('', 'pods').columns[5]?.description ?? '', /^podIP address allocated to the pod/);
  });
  const two = [{}, {}];
  const running = { running: { startedAt: ago(H) } };
  runCases(
    '',
    'pods',
    [
      {
        name: 'name, containers, restarts and readiness',
        obj: { metadata: meta('test1'), spec: { containers: two }, status: { phase: 'podPhase', containerStatuses: [{ ready: true, restartCount: 3, state: running }, { restartCount: 3 }] } },
        cells: ['test1', '1/2', 'podPhase', '6', '<unknown>'],
      },
      {
        name: 'a waiting container overrides the phase',
        obj: {
          metadata: meta('test2'),
          spec: { containers: two },
          status: { phase: 'podPhase', containerStatuses: [{ ready: true, restartCount: 3, state: running }, { state: { waiting: { reason: 'ContainerWaitingReason' } }, restartCount: 3 }] },
        },
        cells: ['test2', '1/2', 'ContainerWaitingReason', '6', '<unknown>'],
      },
      {
        name: 'the first container wins',
        obj: {
          metadata: meta('test3'),
          spec: { containers: two },
          status: {
            phase: 'podPhase',
            containerStatuses: [
              { state: { waiting: { reason: 'ContainerWaitingReason' } }, restartCount: 3 },
              { state: { terminated: { reason: 'ContainerTerminatedReason', exitCode: 0 } }, restartCount: 3 },
            ],
          },
        },
        cells: ['test3', '0/2', 'ContainerWaitingReason', '6', '<unknown>'],
      },
      {
        name: 'status.reason replaces the phase',
        obj: { metadata: meta('test5'), spec: { containers: two }, status: { reason: 'podReason', phase: 'podPhase', containerStatuses: [{ ready: true, restartCount: 3, state: running }, { ready: true, restartCount: 3 }] } },
        cells: ['test5', '1/2', 'podReason', '6', '<unknown>'],
      },
      {
        name: 'Completed beside a running container without Ready: NotReady',
        obj: {
          metadata: meta('test6'),
          spec: { containers: two },
          status: { phase: 'Running', containerStatuses: [{ ready: true, restartCount: 3, state: { terminated: { reason: 'Completed', exitCode: 0 } } }, { ready: true, restartCount: 3, state: running }] },
        },
        cells: ['test6', '1/2', 'NotReady', '6', '<unknown>'],
      },
      {
        name: 'Completed beside a running container with Ready: Running',
        obj: {
          metadata: meta('test6'),
          spec: { containers: two },
          status: {
            phase: 'Running',
            conditions: [{ type: 'Ready', status: 'True' }],
            containerStatuses: [{ ready: true, restartCount: 3, state: { terminated: { reason: 'Completed', exitCode: 0 } } }, { ready: true, restartCount: 3, state: running }],
          },
        },
        cells: ['test6', '1/2', 'Running', '6', '<unknown>'],
      },
      {
        name: 'Completed beside a failed container: the failure shows',
        obj: {
          metadata: meta('job-pod'),
          spec: { containers: [{}, {}, {}] },
          status: {
            phase: 'Running',
            containerStatuses: [
              { state: { terminated: { reason: 'Completed', exitCode: 0 } } },
              { state: { terminated: { reason: 'Error', exitCode: 2 } } },
              { ready: true, state: running },
            ],
          },
        },
        cells: ['job-pod', '1/3', 'Error', '0', '<unknown>'],
      },
      {
        name: 'Init:0/1 with an init container restarting',
        obj: {
          metadata: meta('test7'),
          spec: { initContainers: [{}], containers: [{}] },
          status: {
            phase: 'podPhase',
            initContainerStatuses: [{ ready: false, restartCount: 3, state: running, lastState: { terminated: { exitCode: 1, finishedAt: ago(10 * S) } } }],
            containerStatuses: [{ ready: false, restartCount: 0, state: { waiting: {} } }],
          },
        },
        cells: ['test7', '0/1', 'Init:0/1', '3 (10s ago)', '<unknown>'],
      },
      {
        name: 'Init:1/2 after a completed init container',
        obj: {
          metadata: meta('test10'),
          spec: { initContainers: [{}, {}], containers: [{}] },
          status: {
            phase: 'podPhase',
            initContainerStatuses: [
              { restartCount: 2, state: { terminated: { exitCode: 0 } }, lastState: { terminated: { exitCode: 1, finishedAt: ago(2 * M) } } },
              { restartCount: 3, state: running, lastState: { terminated: { exitCode: 1, finishedAt: ago(10 * S) } } },
            ],
            containerStatuses: [{ state: { waiting: {} } }],
          },
        },
        cells: ['test10', '0/1', 'Init:1/2', '5 (10s ago)', '<unknown>'],
      },
      {
        name: 'a failed init container',
        obj: {
          metadata: meta('initfail'),
          spec: { initContainers: [{}], containers: [{}] },
          status: { phase: 'Pending', initContainerStatuses: [{ state: { terminated: { exitCode: 3 } } }], containerStatuses: [{ state: { waiting: { reason: 'PodInitializing' } } }] },
        },
        cells: ['initfail', '0/1', 'Init:ExitCode:3', '0', '<unknown>'],
      },
      {
        name: 'an init container in CrashLoopBackOff',
        obj: {
          metadata: meta('initcrash'),
          spec: { initContainers: [{}], containers: [{}] },
          status: { phase: 'Pending', initContainerStatuses: [{ restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, finishedAt: ago(30 * S) } } }] },
        },
        cells: ['initcrash', '0/1', 'Init:CrashLoopBackOff', '4 (30s ago)', '<unknown>'],
      },
      {
        name: 'CrashLoopBackOff with the last restart',
        obj: {
          metadata: meta('crash', { creationTimestamp: ago(5 * M) }),
          spec: { containers: [{}] },
          status: { phase: 'Running', containerStatuses: [{ restartCount: 5, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, finishedAt: ago(5 * M) } } }] },
        },
        cells: ['crash', '0/1', 'CrashLoopBackOff', '5 (5m ago)', '5m'],
      },
      {
        name: 'restarts counted across containers, the latest restart shown',
        obj: {
          metadata: meta('test14'),
          spec: { containers: two },
          status: {
            phase: 'Running',
            containerStatuses: [
              { ready: true, restartCount: 6, state: running, lastState: { terminated: { finishedAt: ago(5 * D) } } },
              { ready: true, restartCount: 3, state: running, lastState: { terminated: { finishedAt: ago(20 * D) } } },
            ],
          },
        },
        cells: ['test14', '2/2', 'Running', '9 (5d ago)', '<unknown>'],
      },
      {
        name: 'SchedulingGated',
        obj: { metadata: meta('test15'), spec: { containers: two }, status: { phase: 'podPhase', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] } },
        cells: ['test15', '0/2', 'SchedulingGated', '0', '<unknown>'],
      },
      {
        name: 'Succeeded pods show Completed',
        obj: { metadata: meta('test16'), spec: { containers: [{}] }, status: { phase: 'Succeeded', containerStatuses: [{ state: { terminated: { reason: 'Completed', exitCode: 0 } } }] } },
        cells: ['test16', '0/1', 'Completed', '0', '<unknown>'],
      },
      {
        name: 'Succeeded pods being deleted stay Completed',
        obj: {
          metadata: meta('test18', { deletionTimestamp: ago(10 * S) }),
          spec: { containers: [{}] },
          status: { phase: 'Succeeded', containerStatuses: [{ state: { terminated: { reason: 'Completed', exitCode: 0 } } }] },
        },
        cells: ['test18', '0/1', 'Completed', '0', '<unknown>'],
      },
      {
        name: 'running pods being deleted are Terminating',
        obj: { metadata: meta('test19', { deletionTimestamp: ago(10 * S) }), spec: { containers: [{}] }, status: { phase: 'Running', containerStatuses: [{ state: running }] } },
        cells: ['test19', '0/1', 'Terminating', '0', '<unknown>'],
      },
      {
        name: 'pods on a lost node being deleted are Unknown',
        obj: { metadata: meta('lost', { deletionTimestamp: ago(10 * S) }), spec: { containers: [{}] }, status: { phase: 'Running', reason: 'NodeLost' } },
        cells: ['lost', '0/1', 'Unknown', '0', '<unknown>'],
      },
      {
        name: 'a signal-terminated container',
        obj: { metadata: meta('sig'), spec: { containers: [{}] }, status: { phase: 'Running', containerStatuses: [{ state: { terminated: { exitCode: 137, signal: 9 } } }] } },
        cells: ['sig', '0/1', 'Signal:9', '0', '<unknown>'],
      },
    ],
    5,
  );
  runCases('', 'pods', [
    {
      name: 'sidecars count towards READY once started',
      obj: {
        metadata: meta('test2'),
        spec: { initContainers: [{ name: 'sidecar-1', restartPolicy: 'Always' }, { name: 'sidecar-2', restartPolicy: 'Always' }], containers: [{}] },
        status: {
          phase: 'Running',
          initContainerStatuses: [
            { name: 'sidecar-1', ready: false, restartCount: 3, started: true, state: running, lastState: { terminated: { finishedAt: ago(10 * S) } } },
            { name: 'sidecar-2', ready: false, started: true, state: running },
          ],
          containerStatuses: [{ ready: true, state: running }],
          conditions: [{ type: 'Initialized', status: 'True' }],
        },
      },
      cells: ['test2', '1/3', 'Running', '3 (10s ago)', '<unknown>', '<none>', '<none>', '<none>', '<none>'],
    },
    {
      name: 'sidecar not yet started: Init:0/2',
      obj: {
        metadata: meta('test1'),
        spec: { initContainers: [{ name: 'sidecar-1', restartPolicy: 'Always' }, { name: 'sidecar-2', restartPolicy: 'Always' }], containers: [{}] },
        status: {
          phase: 'Pending',
          initContainerStatuses: [
            { name: 'sidecar-1', restartCount: 3, started: false, state: running, lastState: { terminated: { finishedAt: ago(10 * S) } } },
            { name: 'sidecar-2', started: false, state: { waiting: {} } },
          ],
          containerStatuses: [{ state: { waiting: {} } }],
          conditions: [{ type: 'Initialized', status: 'False' }],
        },
      },
      cells: ['test1', '0/3', 'Init:0/2', '3 (10s ago)', '<unknown>', '<none>', '<none>', '<none>', '<none>'],
    },
    {
      name: 'wide: IP, node, nominated node, readiness gates',
      obj: {
        metadata: meta('test1'),
        spec: { containers: two, nodeName: 'test1', readinessGates: [{ conditionType: 'condition1' }, { conditionType: 'condition2' }, { conditionType: 'condition3' }] },
        status: {
          conditions: [
            { type: 'condition1', status: 'False' },
            { type: 'condition2', status: 'True' },
          ],
          phase: 'podPhase',
          podIPs: [{ ip: '1.1.1.1' }],
          containerStatuses: [{ ready: true, restartCount: 3, state: running }, { restartCount: 3 }],
          nominatedNodeName: 'node1',
        },
      },
      cells: ['test1', '1/2', 'podPhase', '6', '<unknown>', '1.1.1.1', 'test1', 'node1', '1/3'],
    },
    {
      name: 'wide: podIP alone, nothing else set',
      obj: { metadata: meta('test2'), spec: { containers: [{}] }, status: { phase: 'Pending', podIP: '10.0.0.7' } },
      cells: ['test2', '0/1', 'Pending', '0', '<unknown>', '10.0.0.7', '<none>', '<none>', '<none>'],
    },
  ]);
  it('row conditions for finished pods', () => {
    const t = table('', 'pods');
    assert.deepEqual(t.conditions?.({ status: { phase: 'Succeeded' } }), [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]);
    assert.deepEqual(t.conditions?.({ status: { phase: 'Failed' } }), [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }]);
    assert.equal(t.conditions?.({ status: { phase: 'Running' } }), undefined);
  });
});

describe('podtemplates', () => {
  it('columns', () => assert.deepEqual(columnNames('', 'podtemplates'), ['Name', 'Containers', 'Images', 'Pod Labels']));
  runCases('', 'podtemplates', [
    {
      name: 'containers and pod labels',
      obj: {
        metadata: meta('pt1'),
        template: { metadata: { labels: { b: 'y', a: 'x' } }, spec: { containers: [{ name: 'c1', image: 'i1' }, { name: 'c2', image: 'i2' }] } },
      },
      cells: ['pt1', 'c1,c2', 'i1,i2', 'a=x,b=y'],
    },
    { name: 'no labels', obj: { metadata: meta('pt2'), template: { spec: { containers: [{ name: 'c', image: 'i' }] } } }, cells: ['pt2', 'c', 'i', '<none>'] },
  ]);
});

const podTemplate = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }, { name: 'sidecar', image: 'busybox' }] } };

describe('replicationcontrollers', () => {
  it('columns', () =>
    assert.deepEqual(columnNames('', 'replicationcontrollers'), ['Name', 'Desired', 'Current', 'Ready', 'Age', 'Containers*', 'Images*', 'Selector*']));
  runCases('', 'replicationcontrollers', [
    {
      name: 'replicas and selector map',
      obj: { metadata: meta('rc1', { creationTimestamp: ago(3 * H) }), spec: { replicas: 5, selector: { app: 'web' }, template: podTemplate }, status: { replicas: 5, readyReplicas: 2 } },
      cells: ['rc1', 5, 5, 2, '3h', 'nginx,sidecar', 'nginx:1.27,busybox', 'app=web'],
    },
  ]);
});

describe('replicasets', () => {
  it('columns', () => assert.deepEqual(columnNames('apps', 'replicasets'), ['Name', 'Desired', 'Current', 'Ready', 'Age', 'Containers*', 'Images*', 'Selector*']));
  it('types', () => assert.deepEqual(table('apps', 'replicasets').columns.map((c) => c.type), ['string', 'integer', 'integer', 'integer', 'string', 'string', 'string', 'string']));
  runCases('apps', 'replicasets', [
    {
      name: 'label selector',
      obj: {
        metadata: meta('rs1', { creationTimestamp: ago(90 * S) }),
        spec: { replicas: 3, selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['fe', 'be'] }] }, template: podTemplate },
        status: { replicas: 3, readyReplicas: 3 },
      },
      cells: ['rs1', 3, 3, 3, '90s', 'nginx,sidecar', 'nginx:1.27,busybox', 'app=web,tier in (be,fe)'],
    },
    { name: 'no status yet', obj: { metadata: meta('rs2'), spec: { replicas: 0, template: { spec: {} } } }, cells: ['rs2', 0, 0, 0, '<unknown>', '', '', '<none>'] },
  ]);
});

describe('deployments', () => {
  it('columns', () => assert.deepEqual(columnNames('apps', 'deployments'), ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers*', 'Images*', 'Selector*']));
  it('descriptions', () => {
    const cols = table('apps', 'deployments').columns;
    assert.equal(cols[1]?.description, 'Number of the pod with ready state');
    assert.equal(cols[2]?.description, 'Total number of non-terminating pods targeted by this deployment that have the desired template spec.');
  });
  runCases('apps', 'deployments', [
    {
      name: 'ready/desired and wide cells',
      obj: {
        metadata: meta('web', { creationTimestamp: ago(10 * D) }),
        spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: podTemplate },
        status: { replicas: 3, readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
      },
      cells: ['web', '2/3', 3, 2, '10d', 'nginx,sidecar', 'nginx:1.27,busybox', 'app=web'],
    },
    {
      name: 'an invalid selector',
      obj: { metadata: meta('bad'), spec: { replicas: 1, selector: { matchExpressions: [{ key: 'a', operator: 'Bogus' }] }, template: { spec: {} } }, status: {} },
      cells: ['bad', '0/1', 0, 0, '<unknown>', '', '', '<invalid>'],
    },
  ]);
});

describe('statefulsets', () => {
  it('columns', () => assert.deepEqual(columnNames('apps', 'statefulsets'), ['Name', 'Ready', 'Age', 'Containers*', 'Images*']));
  runCases('apps', 'statefulsets', [
    { name: 'ready/desired', obj: { metadata: meta('db', { creationTimestamp: ago(2 * H) }), spec: { replicas: 3, template: podTemplate }, status: { readyReplicas: 1 } }, cells: ['db', '1/3', '120m', 'nginx,sidecar', 'nginx:1.27,busybox'] },
  ]);
});

describe('daemonsets', () => {
  it('columns', () =>
    assert.deepEqual(columnNames('apps', 'daemonsets'), [
      'Name',
      'Desired',
      'Current',
      'Ready',
      'Up-to-date',
      'Available',
      'Node Selector',
      'Age',
      'Containers*',
      'Images*',
      'Selector*',
    ]));
  runCases('apps', 'daemonsets', [
    {
      name: 'counts and node selector',
      obj: {
        metadata: meta('ds1', { creationTimestamp: ago(6 * M) }),
        spec: { selector: { matchLabels: { app: 'agent' } }, template: { spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'agent', image: 'agent:1' }] } } },
        status: { desiredNumberScheduled: 3, currentNumberScheduled: 2, numberReady: 1, updatedNumberScheduled: 2, numberAvailable: 1 },
      },
      cells: ['ds1', 3, 2, 1, 2, 1, 'kubernetes.io/os=linux', '6m', 'agent', 'agent:1', 'app=agent'],
    },
  ]);
});

describe('jobs', () => {
  it('columns', () => assert.deepEqual(columnNames('batch', 'jobs'), ['Name', 'Status', 'Completions', 'Duration', 'Age', 'Containers*', 'Images*', 'Selector*']));
  const template = { spec: { containers: [{ name: 'fake-job-container1', image: 'fake-job-image1' }, { name: 'fake-job-container2', image: 'fake-job-image2' }] } };
  runCases('batch', 'jobs', [
    {
      name: 'running, created in the near future',
      obj: {
        metadata: meta('job1', { creationTimestamp: new Date(NOW + 1900).toISOString() }),
        spec: { completions: 2, template, selector: { matchLabels: { 'job-label': 'job-lable-value' } } },
        status: { succeeded: 1 },
      },
      cells: ['job1', 'Running', '1/2', '', '0s', 'fake-job-container1,fake-job-container2', 'fake-job-image1,fake-job-image2', 'job-label=job-lable-value'],
    },
    {
      name: 'complete, with a duration',
      obj: {
        metadata: meta('job2', { creationTimestamp: ago(10 * 365 * D) }),
        spec: { completions: 1, parallelism: 1, template },
        status: { succeeded: 1, startTime: ago(40 * M), completionTime: ago(9 * M), conditions: [{ type: 'Complete', status: 'True' }] },
      },
      cells: ['job2', 'Complete', '1/1', '31m', '10y', 'fake-job-container1,fake-job-container2', 'fake-job-image1,fake-job-image2', '<none>'],
    },
    {
      name: 'still running: the duration so far; no completions, parallelism 3',
      obj: { metadata: meta('job3'), spec: { parallelism: 3, template }, status: { startTime: ago(90 * S), succeeded: 1 } },
      cells: ['job3', 'Running', '1/1 of 3', '90s', '<unknown>', 'fake-job-container1,fake-job-container2', 'fake-job-image1,fake-job-image2', '<none>'],
    },
    {
      name: 'failed wins over terminating',
      obj: { metadata: meta('job4', { deletionTimestamp: ago(S) }), spec: { completions: 1, template }, status: { conditions: [{ type: 'Failed', status: 'True' }] } },
      cells: ['job4', 'Failed', '0/1', '', '<unknown>', 'fake-job-container1,fake-job-container2', 'fake-job-image1,fake-job-image2', '<none>'],
    },
  ]);
  for (const [cond, want] of [
    ['Suspended', 'Suspended'],
    ['FailureTarget', 'FailureTarget'],
    ['SuccessCriteriaMet', 'SuccessCriteriaMet'],
  ] as const) {
    it(`status ${want}`, () => assert.equal(cells('batch', 'jobs', { metadata: meta('j'), spec: {}, status: { conditions: [{ type: cond, status: 'True' }] } })[1], want));
  }
  it('Terminating', () => assert.equal(cells('batch', 'jobs', { metadata: meta('j', { deletionTimestamp: ago(S) }), spec: {}, status: {} })[1], 'Terminating'));
});

describe('cronjobs', () => {
  it('columns', () =>
    assert.deepEqual(columnNames('batch', 'cronjobs'), ['Name', 'Schedule', 'Timezone', 'Suspend', 'Active', 'Last Schedule', 'Age', 'Containers*', 'Images*', 'Selector*']));
  runCases('batch', 'cronjobs', [
    {
      name: 'never scheduled',
      obj: {
        metadata: meta('cj1', { creationTimestamp: ago(10 * M) }),
        spec: { schedule: '*/5 * * * *', suspend: false, jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }] } } } } },
        status: {},
      },
      cells: ['cj1', '*/5 * * * *', '<none>', 'False', 0, '<none>', '10m', 'c', 'i', '<none>'],
    },
    {
      name: 'time zone, active jobs, last schedule',
      obj: {
        metadata: meta('cj2', { creationTimestamp: ago(3 * D) }),
        spec: { schedule: '0 * * * *', timeZone: 'Etc/UTC', suspend: true, jobTemplate: { spec: { template: { spec: { containers: [] } } } } },
        status: { active: [{ name: 'a' }, { name: 'b' }], lastScheduleTime: ago(15 * M) },
      },
      cells: ['cj2', '0 * * * *', 'Etc/UTC', 'True', 2, '15m', '3d', '', '', '<none>'],
    },
  ]);
});

describe('services', () => {
  it('columns', () => assert.deepEqual(columnNames('', 'services'), ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector*']));
  runCases('', 'services', [
    {
      name: 'load balancer with several ingress points (no clipping server-side)',
      obj: {
        metadata: meta('service4'),
        spec: { clusterIPs: ['1.5.6.7'], type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP' }, { port: 8090, protocol: 'UDP' }, { port: 8000, protocol: 'TCP' }], selector: { foo: 'bar' } },
        status: { loadBalancer: { ingress: [{ ip: '2.3.4.5' }, { ip: '3.4.5.6' }, { ip: '5.6.7.8', hostname: 'host5678' }] } },
      },
      cells: ['service4', 'LoadBalancer', '1.5.6.7', '2.3.4.5,3.4.5.6,5.6.7.8', '80/TCP,8090/UDP,8000/TCP', '<unknown>', 'foo=bar'],
    },
    {
      name: 'pending load balancer',
      obj: {
        metadata: meta('service2'),
        spec: { clusterIPs: ['1.3.4.5'], type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP' }, { port: 8090, protocol: 'UDP' }, { port: 8000, protocol: 'TCP' }, { port: 7777, protocol: 'SCTP' }] },
      },
      cells: ['service2', 'LoadBalancer', '1.3.4.5', '<pending>', '80/TCP,8090/UDP,8000/TCP,7777/SCTP', '<unknown>', '<none>'],
    },
    {
      name: 'node ports',
      obj: {
        metadata: meta('np', { creationTimestamp: ago(5 * D) }),
        spec: { type: 'NodePort', clusterIP: '10.96.0.20', clusterIPs: ['10.96.0.20'], ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }, { port: 443, nodePort: 30443, protocol: 'TCP' }], selector: { app: 'web' } },
      },
      cells: ['np', 'NodePort', '10.96.0.20', '<none>', '80:30080/TCP,443:30443/TCP', '5d', 'app=web'],
    },
    {
      name: 'cluster IP with external IPs',
      obj: { metadata: meta('ext'), spec: { type: 'ClusterIP', clusterIP: '10.0.0.1', externalIPs: ['1.2.3.4', '5.6.7.8'], ports: [{ port: 53, protocol: 'UDP' }] } },
      cells: ['ext', 'ClusterIP', '10.0.0.1', '1.2.3.4,5.6.7.8', '53/UDP', '<unknown>', '<none>'],
    },
    {
      name: 'headless without ports',
      obj: { metadata: meta('headless'), spec: { type: 'ClusterIP', clusterIP: 'None', clusterIPs: ['None'] } },
      cells: ['headless', 'ClusterIP', 'None', '<none>', '<none>', '<unknown>', '<none>'],
    },
    {
      name: 'external name',
      obj: { metadata: meta('alias'), spec: { type: 'ExternalName', externalName: 'example.com' } },
      cells: ['alias', 'ExternalName', '<none>', 'example.com', '<none>', '<unknown>', '<none>'],
    },
    {
      name: 'load balancer with external IPs too',
      obj: { metadata: meta('lb'), spec: { type: 'LoadBalancer', clusterIPs: ['10.0.0.9'], externalIPs: ['9.9.9.9'], ports: [{ port: 80, nodePort: 31000, protocol: 'TCP' }] }, status: { loadBalancer: { ingress: [{ hostname: 'lb.example.com' }] } } },
      cells: ['lb', 'LoadBalancer', '10.0.0.9', 'lb.example.com,9.9.9.9', '80:31000/TCP', '<unknown>', '<none>'],
    },
  ]);
});

describe('endpoints', () => {
  it('columns', () => assert.deepEqual(columnNames('', 'endpoints'), ['Name', 'Endpoints', 'Age']));
  runCases('', 'endpoints', [
    { name: 'no subsets', obj: { metadata: meta('e0') }, cells: ['e0', '<none>', '<unknown>'] },
    {
      name: 'addresses × ports, IPv6 bracketed',
      obj: { metadata: meta('e1'), subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }], ports: [{ port: 8080 }] }] },
      cells: ['e1', '10.0.0.1:8080,[fd00::1]:8080', '<unknown>'],
    },
    {
      name: 'more than three',
      obj: { metadata: meta('e2'), subsets: [{ addresses: [{ ip: '1.1.1.1' }, { ip: '2.2.2.2' }, { ip: '3.3.3.3' }], ports: [{ port: 80 }, { port: 443 }] }] },
      cells: ['e2', '1.1.1.1:80,2.2.2.2:80,3.3.3.3:80 + 3 more...', '<unknown>'],
    },
    { name: 'headless without ports', obj: { metadata: meta('e3'), subsets: [{ addresses: [{ ip: '10.1.1.1' }] }] }, cells: ['e3', '10.1.1.1', '<unknown>'] },
    { name: 'only not-ready addresses', obj: { metadata: meta('e4'), subsets: [{ notReadyAddresses: [{ ip: '10.1.1.1' }], ports: [{ port: 80 }] }] }, cells: ['e4', '', '<unknown>'] },
  ]);
});

describe('nodes', () => {
  it('columns', () =>
    assert.deepEqual(columnNames('', 'nodes'), ['Name', 'Status', 'Roles', 'Age', 'Version', 'Internal-IP*', 'External-IP*', 'OS-Image*', 'Kernel-Version*', 'Container-Runtime*']));
  const tail = ['<none>', '<none>', '<unknown>', '<unknown>', '<unknown>'];
  runCases('', 'nodes', [
    { name: 'Ready', obj: { metadata: meta('foo1'), status: { conditions: [{ type: 'Ready', status: 'True' }] } }, cells: ['foo1', 'Ready', '<none>', '<unknown>', '', ...tail] },
    {
      name: 'Ready,SchedulingDisabled',
      obj: { metadata: meta('foo2'), spec: { unschedulable: true }, status: { conditions: [{ type: 'Ready', status: 'True' }] } },
      cells: ['foo2', 'Ready,SchedulingDisabled', '<none>', '<unknown>', '', ...tail],
    },
    { name: 'NotReady', obj: { metadata: meta('foo4'), status: { conditions: [{ type: 'Ready', status: 'False' }] } }, cells: ['foo4', 'NotReady', '<none>', '<unknown>', '', ...tail] },
    {
      name: 'Unknown without a Ready condition',
      obj: { metadata: meta('foo8'), spec: { unschedulable: true }, status: { conditions: [{ type: 'InvalidValue', status: 'True' }] } },
      cells: ['foo8', 'Unknown,SchedulingDisabled', '<none>', '<unknown>', '', ...tail],
    },
    {
      name: 'roles from labels',
      obj: {
        metadata: meta('foo10', {
          labels: { 'node-role.kubernetes.io/master': '', 'node-role.kubernetes.io/control-plane': '', 'node-role.kubernetes.io/proxy': '', 'kubernetes.io/role': 'node' },
        }),
      },
      cells: ['foo10', 'Unknown', 'control-plane,master,node,proxy', '<unknown>', '', ...tail],
    },
    {
      name: 'wide: first addresses of each type, system info',
      obj: {
        metadata: meta('foo3', { creationTimestamp: ago(40 * D) }),
        status: {
          conditions: [{ type: 'Ready', status: 'True' }],
          addresses: [
            { type: 'ExternalIP', address: '2.2.2.2' },
            { type: 'InternalIP', address: '3.3.3.3' },
            { type: 'ExternalIP', address: '4.4.4.4' },
          ],
          nodeInfo: { kubeletVersion: 'v1.36.0', osImage: 'Debian GNU/Linux 12 (bookworm)', kernelVersion: '6.1.0-18-amd64', containerRuntimeVersion: 'containerd://2.0.0', architecture: 'amd64' },
        },
      },
      cells: ['foo3', 'Ready', '<none>', '40d', 'v1.36.0', '3.3.3.3', '2.2.2.2', 'Debian GNU/Linux 12 (bookworm)', '6.1.0-18-amd64 (amd64)', 'containerd://2.0.0'],
    },
  ]);
});

describe('events', () => {
  it('columns', () =>
    assert.deepEqual(columnNames('', 'events'), ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject*', 'Source*', 'Message', 'First Seen*', 'Count*', 'Name*']));
  it('events.k8s.io has the same columns', () => assert.deepEqual(columnNames('events.k8s.io', 'events'), columnNames('', 'events')));
  runCases('', 'events', [
    {
      name: 'a core event',
      obj: {
        metadata: meta('event1'),
        involvedObject: { kind: 'Pod', name: 'web-0', fieldPath: 'spec.containers{nginx}' },
        source: { component: 'kubelet', host: 'Node1' },
        reason: 'Event Reason',
        message: '  Message Data\n',
        firstTimestamp: ago(3 * D),
        lastTimestamp: ago(2 * D),
        count: 6,
        type: 'Normal',
      },
      cells: ['2d', 'Normal', 'Event Reason', 'pod/web-0', 'spec.containers{nginx}', 'kubelet, Node1', 'Message Data', '3d', 6, 'event1'],
    },
    {
      name: 'a new-style event with a series and no involved name',
      obj: {
        metadata: meta('event2'),
        involvedObject: { kind: 'Node' },
        reportingComponent: 'scheduler',
        reportingInstance: '',
        eventTime: microAgo(10 * M),
        series: { count: 4, lastObservedTime: microAgo(30 * S) },
        reason: 'Scheduled',
        message: 'hi',
        type: 'Warning',
      },
      cells: ['30s', 'Warning', 'Scheduled', 'node', '', 'scheduler', 'hi', '10m', 4, 'event2'],
    },
    {
      name: 'a singleton without count or timestamps',
      obj: { metadata: meta('event3'), involvedObject: { kind: 'Pod', name: 'p' }, reason: 'R', type: 'Normal' },
      cells: ['<unknown>', 'Normal', 'R', 'pod/p', '', '', '', '<unknown>', 1, 'event3'],
    },
  ]);
  runCases('events.k8s.io', 'events', [
    {
      name: 'an events.k8s.io/v1 event prints through the core shape',
      obj: {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: meta('event4'),
        eventTime: microAgo(5 * M),
        reportingController: 'kubelet',
        reportingInstance: 'node-1',
        action: 'Pulling',
        reason: 'Pulling',
        regarding: { kind: 'Pod', name: 'web-1', fieldPath: 'spec.containers{app}' },
        note: 'Pulling image "nginx"',
        type: 'Normal',
      },
      cells: ['5m', 'Normal', 'Pulling', 'pod/web-1', 'spec.containers{app}', 'kubelet, node-1', 'Pulling image "nginx"', '5m', 1, 'event4'],
    },
  ]);
});

describe('namespaces, configmaps, secrets, serviceaccounts', () => {
  it('columns', () => {
    assert.deepEqual(columnNames('', 'namespaces'), ['Name', 'Status', 'Age']);
    assert.deepEqual(columnNames('', 'configmaps'), ['Name', 'Data', 'Age']);
    assert.deepEqual(columnNames('', 'secrets'), ['Name', 'Type', 'Data', 'Age']);
    assert.deepEqual(columnNames('', 'serviceaccounts'), ['Name', 'Age']);
  });
  it('cells', () => {
    assert.deepEqual(cells('', 'namespaces', { metadata: meta('kube-system', { creationTimestamp: ago(30 * D) }), status: { phase: 'Active' } }), ['kube-system', 'Active', '30d']);
    assert.deepEqual(cells('', 'configmaps', { metadata: meta('cm', { creationTimestamp: ago(S) }), data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }), ['cm', 3, '1s']);
    assert.deepEqual(cells('', 'configmaps', { metadata: meta('empty') }), ['empty', 0, '<unknown>']);
    assert.deepEqual(cells('', 'secrets', { metadata: meta('s'), type: 'kubernetes.io/tls', data: { 'tls.crt': 'x', 'tls.key': 'y' } }), ['s', 'kubernetes.io/tls', 2, '<unknown>']);
    assert.deepEqual(cells('', 'serviceaccounts', { metadata: meta('default', { creationTimestamp: ago(2 * H) }), secrets: [{ name: 'a' }] }), ['default', '120m']);
  });
});

describe('persistentvolumes and claims', () => {
  it('columns', () => {
    assert.deepEqual(columnNames('', 'persistentvolumes'), [
      'Name',
      'Capacity',
      'Access Modes',
      'Reclaim Policy',
      'Status',
      'Claim',
      'StorageClass',
      'VolumeAttributesClass',
      'Reason',
      'Age',
      'VolumeMode*',
    ]);
    assert.deepEqual(columnNames('', 'persistentvolumeclaims'), ['Name', 'Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'VolumeAttributesClass', 'Age', 'VolumeMode*']);
  });
  runCases('', 'persistentvolumes', [
    {
      name: 'bound volume',
      obj: {
        metadata: meta('pv1', { creationTimestamp: ago(H) }),
        spec: {
          capacity: { storage: '1.5Gi' },
          accessModes: ['ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOnce'],
          persistentVolumeReclaimPolicy: 'Retain',
          claimRef: { namespace: 'default', name: 'data' },
          storageClassName: 'fast',
          volumeMode: 'Filesystem',
        },
        status: { phase: 'Bound' },
      },
      cells: ['pv1', '1536Mi', 'RWO,RWX', 'Retain', 'Bound', 'default/data', 'fast', '<unset>', '', '60m', 'Filesystem'],
    },
    {
      name: 'terminating, beta class annotation, failure reason',
      obj: {
        metadata: meta('pv2', { deletionTimestamp: ago(S), annotations: { 'volume.beta.kubernetes.io/storage-class': 'legacy' } }),
        spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOncePod'], persistentVolumeReclaimPolicy: 'Delete', storageClassName: 'fast', volumeAttributesClassName: 'gold' },
        status: { phase: 'Failed', reason: 'RecyclerFailed' },
      },
      cells: ['pv2', '10Gi', 'RWOP', 'Delete', 'Terminating', '', 'legacy', 'gold', 'RecyclerFailed', '<unknown>', '<unset>'],
    },
  ]);
  runCases('', 'persistentvolumeclaims', [
    {
      name: 'bound claim shows the volume capacity',
      obj: {
        metadata: meta('data', { creationTimestamp: ago(5 * M) }),
        spec: { volumeName: 'pv1', storageClassName: 'fast', volumeMode: 'Block', resources: { requests: { storage: '1Gi' } } },
        status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '2048Mi' } },
      },
      cells: ['data', 'Bound', 'pv1', '2Gi', 'RWO', 'fast', '<unset>', '5m', 'Block'],
    },
    {
      name: 'pending claim',
      obj: { metadata: meta('wait'), spec: { resources: { requests: { storage: '1Gi' } } }, status: { phase: 'Pending' } },
      cells: ['wait', 'Pending', '', '', '', '', '<unset>', '<unknown>', '<unset>'],
    },
  ]);
});

describe('resourcequotas and componentstatuses', () => {
  it('columns', () => {
    assert.deepEqual(columnNames('', 'resourcequotas'), ['Name', 'Request', 'Limit', 'Age']);
    assert.deepEqual(columnNames('', 'componentstatuses'), ['Name', 'Status', 'Message', 'Error']);
  });
  it('quota usage split into requests and limits', () => {
    const rq = {
      metadata: meta('compute', { creationTimestamp: ago(D) }),
      status: {
        hard: { pods: '10', 'limits.memory': '2Gi', cpu: '1', 'requests.memory': '1Gi', 'limits.cpu': '2' },
        used: { pods: '2', 'limits.memory': '1024Mi', cpu: '500m', 'requests.memory': '512Mi' },
      },
    };
    assert.deepEqual(cells('', 'resourcequotas', rq), ['compute', 'cpu: 500m/1, pods: 2/10, requests.memory: 512Mi/1Gi', 'limits.cpu: 0/2, limits.memory: 1Gi/2Gi', '24h']);
  });
  it('component status', () => {
    assert.deepEqual(cells('', 'componentstatuses', { metadata: meta('etcd-0'), conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }] }), ['etcd-0', 'Healthy', 'ok', '']);
    assert.deepEqual(cells('', 'componentstatuses', { metadata: meta('x') }), ['x', 'Unknown', '', '']);
  });
});

describe('networking', () => {
  it('columns', () => {
    assert.deepEqual(columnNames('networking.k8s.io', 'ingresses'), ['Name', 'Class', 'Hosts', 'Address', 'Ports', 'Age']);
    assert.deepEqual(columnNames('networking.k8s.io', 'ingressclasses'), ['Name', 'Controller', 'Parameters', 'Age']);
    assert.deepEqual(columnNames('networking.k8s.io', 'networkpolicies'), ['Name', 'Pod-Selector', 'Age']);
    assert.deepEqual(columnNames('discovery.k8s.io', 'endpointslices'), ['Name', 'AddressType', 'Ports', 'Endpoints', 'Age']);
    assert.deepEqual(columnNames('networking.k8s.io', 'servicecidrs'), ['Name', 'CIDRs', 'Age']);
    assert.deepEqual(columnNames('networking.k8s.io', 'ipaddresses'), ['Name', 'ParentRef']);
  });
  runCases('networking.k8s.io', 'ingresses', [
    {
      name: 'default backend only',
      obj: {
        metadata: meta('test1', { creationTimestamp: ago(10 * 365 * D) }),
        spec: { ingressClassName: 'foo', defaultBackend: { service: { name: 'default-backend', port: { number: 80 } } } },
        status: { loadBalancer: { ingress: [{ ip: '2.3.4.5', hostname: 'localhost.localdomain' }] } },
      },
      cells: ['test1', 'foo', '*', '2.3.4.5', '80', '10y'],
    },
    {
      name: 'hosts, TLS, no class',
      obj: {
        metadata: meta('web'),
        spec: { tls: [{ hosts: ['a.example.com'] }], rules: [{ host: 'a.example.com' }, { host: 'b.example.com' }, {}, { host: 'c.example.com' }, { host: 'd.example.com' }] },
        status: { loadBalancer: { ingress: [{ hostname: 'lb.example.com' }, { ip: '1.1.1.1' }] } },
      },
      cells: ['web', '<none>', 'a.example.com,b.example.com,c.example.com + 2 more...', '1.1.1.1,lb.example.com', '80, 443', '<unknown>'],
    },
  ]);
  runCases('networking.k8s.io', 'ingressclasses', [
    {
      name: 'parameters with API group',
      obj: { metadata: meta('test1', { creationTimestamp: ago(10 * 365 * D) }), spec: { controller: 'example.com/controller', parameters: { apiGroup: 'example.com', kind: 'customgroup', name: 'example' } } },
      cells: ['test1', 'example.com/controller', 'customgroup.example.com/example', '10y'],
    },
    {
      name: 'parameters without group',
      obj: { metadata: meta('test1', { creationTimestamp: ago(10 * 365 * D) }), spec: { controller: 'example.com/controller', parameters: { kind: 'customgroup', name: 'example' } } },
      cells: ['test1', 'example.com/controller', 'customgroup/example', '10y'],
    },
    {
      name: 'no parameters, default class',
      obj: { metadata: meta('test2', { creationTimestamp: ago(11 * 365 * D), annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } }), spec: { controller: 'example.com/controller2' } },
      cells: ['test2 (default)', 'example.com/controller2', '<none>', '11y'],
    },
  ]);
  runCases('networking.k8s.io', 'networkpolicies', [
    { name: 'empty pod selector', obj: { metadata: meta('deny-all'), spec: { podSelector: {} } }, cells: ['deny-all', '<none>', '<unknown>'] },
    { name: 'pod selector', obj: { metadata: meta('allow'), spec: { podSelector: { matchLabels: { role: 'db' } } } }, cells: ['allow', 'role=db', '<unknown>'] },
  ]);
  runCases('discovery.k8s.io', 'endpointslices', [
    {
      name: 'ports and endpoints',
      obj: {
        metadata: meta('web-abc', { creationTimestamp: ago(2 * M) }),
        addressType: 'IPv4',
        ports: [{ port: 80, name: 'http' }, { name: 'metrics' }, {}, { port: 9090 }],
        endpoints: [{ addresses: ['10.0.0.1'] }, { addresses: ['10.0.0.2', '10.0.0.3'] }, { addresses: ['10.0.0.4'] }],
      },
      cells: ['web-abc', 'IPv4', '80,metrics,* + 1 more...', '10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...', '2m'],
    },
    { name: 'empty', obj: { metadata: meta('e'), addressType: 'IPv6', endpoints: [] }, cells: ['e', 'IPv6', '<unset>', '<unset>', '<unknown>'] },
  ]);
  runCases('networking.k8s.io', 'servicecidrs', [
    { name: 'dual stack', obj: { metadata: meta('kubernetes'), spec: { cidrs: ['10.96.0.0/12', 'fd00::/108'] } }, cells: ['kubernetes', '10.96.0.0/12,fd00::/108', '<unknown>'] },
  ]);
  runCases('networking.k8s.io', 'ipaddresses', [
    {
      name: 'parent service (cells include the age, beyond the declared columns)',
      obj: { metadata: meta('10.96.0.10', { creationTimestamp: ago(M) }), spec: { parentRef: { group: '', resource: 'services', namespace: 'kube-system', name: 'kube-dns' } } },
      cells: ['10.96.0.10', 'services/kube-system/kube-dns', '60s'],
    },
    { name: 'grouped parent, cluster-scoped', obj: { metadata: meta('10.0.0.1'), spec: { parentRef: { group: 'Example.com', resource: 'Gateways', name: 'gw' } } }, cells: ['10.0.0.1', 'gateways.example.com/gw', '<unknown>'] },
    { name: 'no parent', obj: { metadata: meta('10.0.0.2'), spec: {} }, cells: ['10.0.0.2', '<none>', '<unknown>'] },
  ]);
});

describe('rbac bindings', () => {
  const wide = ['Name', 'Role', 'Age', 'Users*', 'Groups*', 'ServiceAccounts*'];
  it('columns', () => {
    assert.deepEqual(columnNames('rbac.authorization.k8s.io', 'rolebindings'), wide);
    assert.deepEqual(columnNames('rbac.authorization.k8s.io', 'clusterrolebindings'), wide);
    assert.equal(table('rbac.authorization.k8s.io', 'clusterrolebindings').columns[3]?.description, 'Users in the clusterRoleBinding');
  });
  const subjects = [
    { kind: 'User', name: 'alice' },
    { kind: 'Group', name: 'devs' },
    { kind: 'ServiceAccount', namespace: 'ci', name: 'builder' },
    { kind: 'User', name: 'bob' },
    { kind: 'ServiceAccount', namespace: 'kube-system', name: 'default' },
  ];
  runCases('rbac.authorization.k8s.io', 'rolebindings', [
    {
      name: 'subjects by kind',
      obj: { metadata: meta('rb', { creationTimestamp: ago(4 * H) }), roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'edit' }, subjects },
      cells: ['rb', 'Role/edit', '4h', 'alice, bob', 'devs', 'ci/builder, kube-system/default'],
    },
  ]);
  runCases('rbac.authorization.k8s.io', 'clusterrolebindings', [
    { name: 'no subjects', obj: { metadata: meta('crb'), roleRef: { kind: 'ClusterRole', name: 'view' } }, cells: ['crb', 'ClusterRole/view', '<unknown>', '', '', ''] },
  ]);
});

describe('admission configuration', () => {
  it('columns', () => {
    assert.deepEqual(columnNames('admissionregistration.k8s.io', 'mutatingwebhookconfigurations'), ['Name', 'Webhooks', 'Age']);
    assert.deepEqual(columnNames('admissionregistration.k8s.io', 'validatingwebhookconfigurations'), ['Name', 'Webhooks', 'Age']);
    assert.deepEqual(columnNames('admissionregistration.k8s.io', 'validatingadmissionpolicies'), ['Name', 'Validations', 'ParamKind', 'Age']);
    assert.deepEqual(columnNames('admissionregistration.k8s.io', 'validatingadmissionpolicybindings'), ['Name', 'PolicyName', 'ParamRef', 'Age']);
    assert.deepEqual(columnNames('admissionregistration.k8s.io', 'mutatingadmissionpolicies'), ['Name', 'Mutations', 'ParamKind', 'Age']);
  });
  it('cells', () => {
    assert.deepEqual(cells('admissionregistration.k8s.io', 'validatingwebhookconfigurations', { metadata: meta('v'), webhooks: [{}, {}] }), ['v', 2, '<unknown>']);
    assert.deepEqual(cells('admissionregistration.k8s.io', 'mutatingwebhookconfigurations', { metadata: meta('m') }), ['m', 0, '<unknown>']);
    assert.deepEqual(
      cells('admissionregistration.k8s.io', 'validatingadmissionpolicies', { metadata: meta('p'), spec: { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'true' }] } }),
      ['p', 1, 'v1/ConfigMap', '<unknown>'],
    );
    assert.deepEqual(cells('admissionregistration.k8s.io', 'validatingadmissionpolicies', { metadata: meta('q'), spec: {} }), ['q', 0, '<unset>', '<unknown>']);
  });
  runCases('admissionregistration.k8s.io', 'validatingadmissionpolicybindings', [
    { name: 'named param with namespace', obj: { metadata: meta('b1'), spec: { policyName: 'p', paramRef: { name: 'cfg', namespace: 'ns' } } }, cells: ['b1', 'p', 'ns/cfg', '<unknown>'] },
    { name: 'named param without namespace', obj: { metadata: meta('b2'), spec: { policyName: 'p', paramRef: { name: 'cfg' } } }, cells: ['b2', 'p', '*/cfg', '<unknown>'] },
    {
      name: 'param selector in its Go form',
      obj: { metadata: meta('b3'), spec: { policyName: 'p', paramRef: { selector: { matchLabels: { b: '2', a: '1' }, matchExpressions: [{ key: 'k', operator: 'In', values: ['x', 'y'] }] } } } },
      cells: ['b3', 'p', '&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:k,Operator:In,Values:[x y],},},}', '<unknown>'],
    },
    { name: 'no param', obj: { metadata: meta('b4'), spec: { policyName: 'p' } }, cells: ['b4', 'p', '<unset>', '<unknown>'] },
  ]);
});

describe('flow control', () => {
  it('columns', () => {
    assert.deepEqual(columnNames('flowcontrol.apiserver.k8s.io', 'flowschemas'), ['Name', 'PriorityLevel', 'MatchingPrecedence', 'DistinguisherMethod', 'Age', 'MissingPL']);
    assert.deepEqual(columnNames('flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations'), ['Name', 'Type', 'NominalConcurrencyShares', 'Queues', 'HandSize', 'QueueLengthLimit', 'Age']);
  });
  it('flow schema cells and list order', () => {
    const fs = (name: string, precedence: number, extra: Record<string, unknown> = {}): KubeObject => ({
      metadata: meta(name),
      spec: { priorityLevelConfiguration: { name: 'workload-low' }, matchingPrecedence: precedence, ...extra },
    });
    assert.deepEqual(cells('flowcontrol.apiserver.k8s.io', 'flowschemas', fs('a', 9000, { distinguisherMethod: { type: 'ByUser' } })), ['a', 'workload-low', 9000, 'ByUser', '<unknown>', '?']);
    assert.deepEqual(
      cells('flowcontrol.apiserver.k8s.io', 'flowschemas', { ...fs('b', 100), status: { conditions: [{ type: 'Dangling', status: 'False' }] } }),
      ['b', 'workload-low', 100, '<none>', '<unknown>', 'False'],
    );
    const compare = table('flowcontrol.apiserver.k8s.io', 'flowschemas').compare;
    assert.ok(compare);
    const sorted = [fs('z', 1000), fs('b', 500), fs('a', 1000)].sort(compare).map((o) => o.metadata?.name);
    assert.deepEqual(sorted, ['b', 'a', 'z']);
  });
  it('priority level cells', () => {
    assert.deepEqual(cells('flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations', { metadata: meta('exempt'), spec: { type: 'Exempt', exempt: {} } }), [
      'exempt',
      'Exempt',
      '<none>',
      '<none>',
      '<none>',
      '<none>',
      '<unknown>',
    ]);
    assert.deepEqual(
      cells('flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations', {
        metadata: meta('global-default'),
        spec: { type: 'Limited', limited: { nominalConcurrencyShares: 20, limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } } } },
      }),
      ['global-default', 'Limited', 20, 128, 6, 50, '<unknown>'],
    );
    assert.deepEqual(
      cells('flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations', { metadata: meta('catch-all'), spec: { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' } } } }),
      ['catch-all', 'Limited', 5, '<none>', '<none>', '<none>', '<unknown>'],
    );
  });
});

describe('scheduling, node, coordination, certificates', () => {
  it('columns', () => {
    assert.deepEqual(columnNames('scheduling.k8s.io', 'priorityclasses'), ['Name', 'Value', 'Global-Default', 'Age', 'PreemptionPolicy']);
    assert.deepEqual(columnNames('node.k8s.io', 'runtimeclasses'), ['Name', 'Handler', 'Age']);
    assert.deepEqual(columnNames('coordination.k8s.io', 'leases'), ['Name', 'Holder', 'Age']);
    assert.deepEqual(columnNames('certificates.k8s.io', 'certificatesigningrequests'), ['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition']);
    assert.equal(table('node.k8s.io', 'runtimeclasses').columns[1]?.description, '');
  });
  it('cells', () => {
    assert.deepEqual(
      cells('scheduling.k8s.io', 'priorityclasses', { metadata: meta('system-cluster-critical', { creationTimestamp: ago(D) }), value: 2000000000, globalDefault: false, preemptionPolicy: 'PreemptLowerPriority' }),
      ['system-cluster-critical', 2000000000, false, '24h', 'PreemptLowerPriority'],
    );
    assert.deepEqual(cells('node.k8s.io', 'runtimeclasses', { metadata: meta('gvisor'), handler: 'runsc' }), ['gvisor', 'runsc', '<unknown>']);
    assert.deepEqual(cells('coordination.k8s.io', 'leases', { metadata: meta('kube-scheduler'), spec: { holderIdentity: 'node-1_abc' } }), ['kube-scheduler', 'node-1_abc', '<unknown>']);
    assert.deepEqual(cells('coordination.k8s.io', 'leases', { metadata: meta('free'), spec: {} }), ['free', '', '<unknown>']);
  });
  runCases('certificates.k8s.io', 'certificatesigningrequests', [
    {
      name: 'approved and issued',
      obj: {
        metadata: meta('csr-1', { creationTimestamp: ago(3 * M) }),
        spec: { signerName: 'kubernetes.io/kube-apiserver-client', username: 'alice', expirationSeconds: 86400 },
        status: { conditions: [{ type: 'Approved', status: 'True' }], certificate: 'LS0t' },
      },
      cells: ['csr-1', '3m', 'kubernetes.io/kube-apiserver-client', 'alice', '24h', 'Approved,Issued'],
    },
    {
      name: 'denied and failed',
      obj: { metadata: meta('csr-2'), spec: { username: 'bob' }, status: { conditions: [{ type: 'Failed' }, { type: 'Approved' }, { type: 'Denied' }] } },
      cells: ['csr-2', '<unknown>', '<none>', 'bob', '<none>', 'Denied,Failed'],
    },
    { name: 'pending', obj: { metadata: meta('csr-3'), spec: { signerName: 'x/y', username: 'c' } }, cells: ['csr-3', '<unknown>', 'x/y', 'c', '<none>', 'Pending'] },
  ]);
});

describe('apiservices (kube-aggregator)', () => {
  it('columns', () => assert.deepEqual(columnNames('apiregistration.k8s.io', 'apiservices'), ['Name', 'Service', 'Available', 'Age']));
  runCases('apiregistration.k8s.io', 'apiservices', [
    { name: 'local', obj: { metadata: meta('v1.apps', { creationTimestamp: ago(7 * D) }), spec: { group: 'apps', version: 'v1' }, status: { conditions: [{ type: 'Available', status: 'True', reason: 'Local' }] } }, cells: ['v1.apps', 'Local', 'True', '7d'] },
    {
      name: 'unavailable service',
      obj: { metadata: meta('v1beta1.metrics.k8s.io'), spec: { service: { namespace: 'kube-system', name: 'metrics-server' } }, status: { conditions: [{ type: 'Available', status: 'False', reason: 'MissingEndpoints' }] } },
      cells: ['v1beta1.metrics.k8s.io', 'kube-system/metrics-server', 'False (MissingEndpoints)', '<unknown>'],
    },
    { name: 'no condition yet', obj: { metadata: meta('v1.x.io'), spec: { service: { namespace: 'ns', name: 'svc' } } }, cells: ['v1.x.io', 'ns/svc', 'Unknown', '<unknown>'] },
  ]);
});

describe('storage', () => {
  it('columns', () => {
    assert.deepEqual(columnNames('storage.k8s.io', 'storageclasses'), ['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age']);
    assert.deepEqual(columnNames('storage.k8s.io', 'volumeattributesclasses'), ['Name', 'DriverName', 'Age']);
    assert.deepEqual(columnNames('storage.k8s.io', 'volumeattachments'), ['Name', 'Attacher', 'PV', 'Node', 'Attached', 'Age']);
    assert.deepEqual(columnNames('storage.k8s.io', 'csidrivers'), ['Name', 'AttachRequired', 'PodInfoOnMount', 'StorageCapacity', 'TokenRequests', 'RequiresRepublish', 'Modes', 'Age']);
    assert.deepEqual(columnNames('storage.k8s.io', 'csinodes'), ['Name', 'Drivers', 'Age']);
    assert.equal(table('storage.k8s.io', 'volumeattachments').columns[1]?.format, 'name');
  });
  it('cells', () => {
    assert.deepEqual(
      cells('storage.k8s.io', 'storageclasses', { metadata: meta('standard', { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }), provisioner: 'rancher.io/local-path' }),
      ['standard (default)', 'rancher.io/local-path', 'Delete', 'Immediate', false, '<unknown>'],
    );
    assert.deepEqual(
      cells('storage.k8s.io', 'storageclasses', { metadata: meta('fast'), provisioner: 'csi.example.com', reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer', allowVolumeExpansion: true }),
      ['fast', 'csi.example.com', 'Retain', 'WaitForFirstConsumer', true, '<unknown>'],
    );
    assert.deepEqual(cells('storage.k8s.io', 'volumeattributesclasses', { metadata: meta('gold'), driverName: 'csi.example.com' }), ['gold', 'csi.example.com', '<unknown>']);
    assert.deepEqual(
      cells('storage.k8s.io', 'volumeattachments', { metadata: meta('csi-123'), spec: { attacher: 'csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv1' } }, status: { attached: true } }),
      ['csi-123', 'csi.example.com', 'pv1', 'node-1', true, '<unknown>'],
    );
    assert.deepEqual(cells('storage.k8s.io', 'csidrivers', { metadata: meta('d1'), spec: {} }), ['d1', true, false, false, '<unset>', false, '<none>', '<unknown>']);
    assert.deepEqual(
      cells('storage.k8s.io', 'csidrivers', {
        metadata: meta('d2'),
        spec: { attachRequired: false, podInfoOnMount: true, storageCapacity: true, tokenRequests: [{ audience: 'a' }, { audience: 'b' }], requiresRepublish: true, volumeLifecycleModes: ['Persistent', 'Ephemeral'] },
      }),
      ['d2', false, true, true, 'a,b', true, 'Persistent,Ephemeral', '<unknown>'],
    );
    assert.deepEqual(cells('storage.k8s.io', 'csinodes', { metadata: meta('node-1'), spec: { drivers: [{ name: 'a' }, { name: 'b' }] } }), ['node-1', 2, '<unknown>']);
  });
});

describe('resource.k8s.io', () => {
  it('columns', () => {
    assert.deepEqual(columnNames('resource.k8s.io', 'deviceclasses'), ['Name', 'Age']);
    assert.deepEqual(columnNames('resource.k8s.io', 'resourceclaims'), ['Name', 'State', 'Age']);
    assert.deepEqual(columnNames('resource.k8s.io', 'resourceclaimtemplates'), ['Name', 'Age']);
    assert.deepEqual(columnNames('resource.k8s.io', 'resourceslices'), ['Name', 'Node', 'Driver', 'Pool', 'Age']);
  });
  it('cells', () => {
    assert.deepEqual(cells('resource.k8s.io', 'deviceclasses', { metadata: meta('gpu.example.com', { creationTimestamp: ago(M) }) }), ['gpu.example.com', '60s']);
    assert.deepEqual(cells('resource.k8s.io', 'resourceclaims', { metadata: meta('c1'), spec: {}, status: {} }), ['c1', 'pending', '<unknown>']);
    assert.deepEqual(cells('resource.k8s.io', 'resourceclaims', { metadata: meta('c2'), status: { allocation: {}, reservedFor: [{ resource: 'pods', name: 'p' }] } }), ['c2', 'allocated,reserved', '<unknown>']);
    assert.deepEqual(cells('resource.k8s.io', 'resourceclaims', { metadata: meta('c3', { deletionTimestamp: ago(S) }), status: {} }), ['c3', 'deleted', '<unknown>']);
    assert.deepEqual(cells('resource.k8s.io', 'resourceclaims', { metadata: meta('c4', { deletionTimestamp: ago(S) }), status: { allocation: {} } }), ['c4', 'deleted,allocated', '<unknown>']);
    assert.deepEqual(
      cells('resource.k8s.io', 'resourceslices', { metadata: meta('node-1-gpu'), spec: { nodeName: 'node-1', driver: 'gpu.example.com', pool: { name: 'node-1', generation: 1, resourceSliceCount: 1 } } }),
      ['node-1-gpu', 'node-1', 'gpu.example.com', 'node-1', '<unknown>'],
    );
  });
});

describe('workload extras', () => {
  it('columns', () => {
    assert.deepEqual(columnNames('apps', 'controllerrevisions'), ['Name', 'Controller', 'Revision', 'Age']);
    assert.deepEqual(columnNames('autoscaling', 'horizontalpodautoscalers'), ['Name', 'Reference', 'Targets', 'MinPods', 'MaxPods', 'Replicas', 'Age']);
    assert.deepEqual(columnNames('policy', 'poddisruptionbudgets'), ['Name', 'Min Available', 'Max Unavailable', 'Allowed Disruptions', 'Age']);
  });
  it('controller revisions', () => {
    const owner = (apiVersion: string, kind: string): KubeObject => ({
      metadata: meta('web-6d4cf56db6', { ownerReferences: [{ apiVersion, kind, name: 'web', uid: 'u', controller: true }] }),
      revision: 3,
    });
    assert.deepEqual(cells('apps', 'controllerrevisions', owner('apps/v1', 'StatefulSet')), ['web-6d4cf56db6', 'statefulset.apps/web', 3, '<unknown>']);
    assert.deepEqual(cells('apps', 'controllerrevisions', owner('v1', 'Pod')), ['web-6d4cf56db6', 'pod/web', 3, '<unknown>']);
    assert.deepEqual(cells('apps', 'controllerrevisions', { metadata: meta('orphan'), revision: 1 }), ['orphan', '<none>', 1, '<unknown>']);
  });
  it('pod disruption budgets', () => {
    assert.deepEqual(cells('policy', 'poddisruptionbudgets', { metadata: meta('pdb1'), spec: { minAvailable: 2 }, status: { disruptionsAllowed: 1 } }), ['pdb1', '2', 'N/A', 1, '<unknown>']);
    assert.deepEqual(cells('policy', 'poddisruptionbudgets', { metadata: meta('pdb2'), spec: { maxUnavailable: '25%' }, status: {} }), ['pdb2', 'N/A', '25%', 0, '<unknown>']);
  });
  runCases('autoscaling', 'horizontalpodautoscalers', [
    {
      name: 'v2: resource utilization, average value, pods and external metrics',
      obj: {
        apiVersion: 'autoscaling/v2',
        metadata: meta('web', { creationTimestamp: ago(H) }),
        spec: {
          scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
          minReplicas: 2,
          maxReplicas: 10,
          metrics: [
            { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
            { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1024Mi' } } },
            { type: 'External', external: { metric: { name: 'q' }, target: { type: 'Value', value: '10' } } },
          ],
        },
        status: {
          currentReplicas: 3,
          currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 45, averageValue: '100m' } } }],
        },
      },
      cells: ['web', 'Deployment/web', 'cpu: 45%/80%, memory: <unknown>/1Gi + 1 more...', '2', 10, 3, '60m'],
    },
    {
      name: 'v2: no metrics, no min',
      obj: { apiVersion: 'autoscaling/v2', metadata: meta('bare'), spec: { scaleTargetRef: { kind: 'ReplicaSet', name: 'rs' }, maxReplicas: 3 }, status: {} },
      cells: ['bare', 'ReplicaSet/rs', '<none>', '<unset>', 3, 0, '<unknown>'],
    },
    {
      name: 'v2: pods and object metrics',
      obj: {
        metadata: meta('po'),
        spec: {
          scaleTargetRef: { kind: 'Deployment', name: 'd' },
          minReplicas: 1,
          maxReplicas: 5,
          metrics: [
            { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '100' } } },
            { type: 'Object', object: { metric: { name: 'hits' }, target: { type: 'AverageValue', averageValue: '2k' } } },
          ],
        },
        status: {
          currentReplicas: 1,
          currentMetrics: [
            { type: 'Pods', pods: { metric: { name: 'rps' }, current: { averageValue: '1500m' } } },
            { type: 'Object', object: { metric: { name: 'hits' }, current: { value: '5' } } },
          ],
        },
      },
      cells: ['po', 'Deployment/d', '1500m/100, <unknown>/2k (avg)', '1', 5, 1, '<unknown>'],
    },
    {
      name: 'v1: the CPU target converts into a resource metric',
      obj: {
        apiVersion: 'autoscaling/v1',
        kind: 'HorizontalPodAutoscaler',
        metadata: meta('v1hpa'),
        spec: { scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, minReplicas: 1, maxReplicas: 4, targetCPUUtilizationPercentage: 50 },
        status: { currentReplicas: 2, desiredReplicas: 2, currentCPUUtilizationPercentage: 12 },
      },
      cells: ['v1hpa', 'Deployment/web', 'cpu: 12%/50%', '1', 4, 2, '<unknown>'],
    },
  ]);
});

describe('descriptions come from the 1.36 API docs', () => {
  it('a few spot checks', () => {
    const svc = table('', 'services').columns;
    assert.match(svc[2]?.description ?? '', /^clusterIP is the IP address of the service/);
    assert.equal(table('apps', 'replicasets').columns[1]?.description, 'Replicas is the number of desired pods. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset');
    assert.equal(table('', 'events').columns[3]?.description, 'The object that this event is about.');
    assert.equal(
      table('rbac.authorization.k8s.io', 'rolebindings').columns[1]?.description,
      'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
    );
    for (const [group, resource] of [
      ['', 'pods'],
      ['apps', 'daemonsets'],
      ['batch', 'cronjobs'],
      ['', 'persistentvolumes'],
      ['storage.k8s.io', 'csidrivers'],
      ['flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations'],
      ['resource.k8s.io', 'resourceslices'],
      ['autoscaling', 'horizontalpodautoscalers'],
    ] as const) {
      for (const c of table(group, resource).columns) assert.notEqual(c.description, '', `${group}/${resource} ${c.name}`);
    }
  });
});
