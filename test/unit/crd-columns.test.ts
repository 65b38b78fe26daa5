import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateJsonPath, JsonPathError, parseJsonPath, printJsonPathValue } from '../../src/apiextensions/jsonpath.js';
import { customTable } from '../../src/registry/custom-table.js';
import type { KubeObject } from '../../src/machinery/object.js';

/**
 * additionalPrinterColumns as kube-apiserver evaluates them: client-go's
 * JSONPath (missing keys allowed), the first result, typed per column
 * (apiextensions-apiserver pkg/registry/customresource/tableconvertor).
 */

const OBJ: KubeObject = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w1', creationTimestamp: '2026-01-01T00:00:00Z', labels: { 'app.kubernetes.io/name': 'web' } },
  spec: { color: 'blue', replicas: 3, ratio: 1.5, ready: true, tags: ['a', 'b'], nested: { x: 1 } },
  status: {
    conditions: [
      { type: 'Synced', status: 'False' },
      { type: 'Ready', status: 'True', count: 2 },
    ],
  },
};

const find = (path: string, obj: unknown = OBJ): unknown[] => evaluateJsonPath(parseJsonPath(path), obj);

describe('JSONPath', () => {
  const cases: Array<[string, unknown[]]> = [
    ['.spec.color', ['blue']],
    ['.spec.missing', []],
    ['.spec.tags[0]', ['a']],
    ['.spec.tags[-1]', ['b']],
    ['.spec.tags[*]', ['a', 'b']],
    ['.spec.tags[0:1]', ['a']],
    ['.status.conditions[?(@.type=="Ready")].status', ['True']],
    ['.status.conditions[?(@.count>1)].type', ['Ready']],
    ['.status.conditions[?(@.count)].type', ['Ready']],
    ['.metadata.labels.app\\.kubernetes\\.io/name', ['web']],
    [".metadata.labels['app.kubernetes.io/name']", ['web']],
    ['..count', [2]],
    ['.spec.nested.*', [1]],
  ];
  for (const [path, want] of cases) it(path, () => assert.deepEqual(find(path), want));

  it('refuses what client-go cannot parse', () => {
    assert.throws(() => parseJsonPath('.spec.tags[x]'), JsonPathError);
    assert.throws(() => parseJsonPath('.status.conditions[?(@.type=="Ready"'), JsonPathError);
  });

  it('prints values as Go prints the decoded JSON', () => {
    assert.equal(printJsonPathValue(['a', 'b']), '[a b]');
    assert.equal(printJsonPathValue({ b: 1, a: 'x' }), 'map[a:x b:1]');
    assert.equal(printJsonPathValue(2), '2');
  });
});

describe('custom resource tables', () => {
  const now = Date.parse('2026-01-01T00:05:00Z');

  it('types each cell as its column says', () => {
    const table = customTable([
      { name: 'Color', type: 'string', jsonPath: '.spec.color' },
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', priority: 1 },
      { name: 'Ratio', type: 'integer', jsonPath: '.spec.ratio' },
      { name: 'RatioN', type: 'number', jsonPath: '.spec.ratio' },
      { name: 'Ready', type: 'boolean', jsonPath: '.spec.ready' },
      { name: 'Tags', type: 'string', jsonPath: '.spec.tags' },
      { name: 'Count', type: 'string', jsonPath: '.spec.replicas' },
      { name: 'Wrong', type: 'integer', jsonPath: '.spec.color' },
      { name: 'Missing', type: 'string', jsonPath: '.spec.nothing' },
      { name: 'Created', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      { name: 'Bad', type: 'date', jsonPath: '.spec.color' },
    ]);
    assert.deepEqual(
      table.columns.map((c) => [c.name, c.type, c.format, c.priority]),
      [
        ['Name', 'string', 'name', 0],
        ['Color', 'string', '', 0],
        ['Replicas', 'integer', '', 1],
        ['Ratio', 'integer', '', 0],
        ['RatioN', 'number', '', 0],
        ['Ready', 'boolean', '', 0],
        ['Tags', 'string', '', 0],
        ['Count', 'string', '', 0],
        ['Wrong', 'integer', '', 0],
        ['Missing', 'string', '', 0],
        ['Created', 'date', '', 0],
        ['Bad', 'date', '', 0],
      ],
    );
    assert.deepEqual(table.cells(OBJ, now), ['w1', 'blue', 3, 1, 1.5, true, '[a b]', '3', null, null, '5m', '<invalid>']);
  });

  it('shows Age when the version has no columns', () => {
    const table = customTable([]);
    assert.deepEqual(table.columns.map((c) => [c.name, c.type]), [['Name', 'string'], ['Age', 'date']]);
    assert.deepEqual(table.cells(OBJ, now), ['w1', '5m']);
  });
});
