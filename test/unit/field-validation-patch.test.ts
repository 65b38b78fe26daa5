/**
 * Field validation of PATCH requests, as handlers/patch.go does it: the
 * patch body's own strict errors (json patch ops, duplicate keys), then the
 * unknown fields of the patched object (JSON decoder for json/merge patches,
 * the unstructured converter for strategic merge patches), combined into
 * warnings or a 422. Server-side apply: yaml.v2 duplicate keys of the body.
 * Expected texts: kube's test/integration/apiserver/field_validation_test.go.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { type FieldValidation, type PatchKind, checkApplyPatch, checkPatchedObject, patchBodyStrictErrors } from '../../src/validation/fields/index.js';
import { ApiError } from '../../src/machinery/errors.js';

const DEPLOYMENT = 'io.k8s.api.apps.v1.Deployment';

const MERGE_PATCH_BODY = `
{
	"spec": {
		"unknown1": "val1",
		"unknownDupe": "valDupe",
		"unknownDupe": "valDupe2",
		"paused": true,
		"paused": false,
		"template": {
			"spec": {
				"containers": [{
					"name": "nginx",
					"image": "nginx:latest",
					"unknownNested": "val1",
					"imagePullPolicy": "Always",
					"imagePullPolicy": "Never"
				}]
			}
		}
	}
}
	`;

const JSON_PATCH_BODY = `
			[
				{"op": "add", "path": "/spec/unknown1", "value": "val1", "foo":"bar"},
				{"op": "add", "path": "/spec/unknown2", "path": "/spec/unknown3", "value": "val1"},
				{"op": "add", "path": "/spec/unknownDupe", "value": "valDupe"},
				{"op": "add", "path": "/spec/unknownDupe", "value": "valDupe2"},
				{"op": "add", "path": "/spec/paused", "value": true},
				{"op": "add", "path": "/spec/paused", "value": false},
				{"op": "add", "path": "/spec/template/spec/containers/0/unknownNested", "value": "val1"},
				{"op": "add", "path": "/spec/template/spec/containers/0/imagePullPolicy", "value": "Always"},
				{"op": "add", "path": "/spec/template/spec/containers/0/imagePullPolicy", "value": "Never"}
			]
			`;

const NONCONFLICTING_MERGE_PATCH_BODY = `
{
	"spec": {
		"paused": true,
		"paused": false,
		"template": {
			"spec": {
				"containers": [{
					"name": "nginx",
					"image": "nginx:latest",
					"imagePullPolicy": "Always",
					"imagePullPolicy": "Never"
				}]
			}
		}
	}
}
			`;

/** The Deployment the integration test creates, after each patch (what the patch engines produce). */
function current(): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'test-deployment', namespace: 'default' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'nginx' } },
      template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:latest', imagePullPolicy: 'Always' }] } },
    },
  };
}

function patchedBy(extraSpec: Record<string, unknown>, container: Record<string, unknown>): Record<string, unknown> {
  const obj = current() as { spec: Record<string, unknown> & { template: { spec: { containers: unknown[] } } } };
  Object.assign(obj.spec, extraSpec);
  obj.spec.template.spec.containers = [container];
  return obj;
}

const MERGE_PATCHED = patchedBy({ unknown1: 'val1', unknownDupe: 'valDupe2', paused: false }, { name: 'nginx', image: 'nginx:latest', unknownNested: 'val1', imagePullPolicy: 'Never' });
const JSON_PATCHED = patchedBy(
  { unknown1: 'val1', unknown3: 'val1', unknownDupe: 'valDupe2', paused: false },
  { name: 'nginx', image: 'nginx:latest', unknownNested: 'val1', imagePullPolicy: 'Never' },
);
const NONCONFLICTING_PATCHED = patchedBy({ paused: false }, { name: 'nginx', image: 'nginx:latest', imagePullPolicy: 'Never' });

const MERGE_ERRORS = [
  'duplicate field "spec.unknownDupe"',
  'duplicate field "spec.paused"',
  'duplicate field "spec.template.spec.containers[0].imagePullPolicy"',
  'unknown field "spec.template.spec.containers[0].unknownNested"',
  'unknown field "spec.unknown1"',
  'unknown field "spec.unknownDupe"',
];
const JSON_PATCH_ERRORS = [
  'json patch unknown field "[0].foo"',
  'json patch duplicate field "[1].path"',
  'unknown field "spec.template.spec.containers[0].unknownNested"',
  'unknown field "spec.unknown1"',
  'unknown field "spec.unknown3"',
  'unknown field "spec.unknownDupe"',
];
const NONCONFLICTING_ERRORS = ['duplicate field "spec.paused"', 'duplicate field "spec.template.spec.containers[0].imagePullPolicy"'];

function runPatch(kind: PatchKind, body: string, patched: unknown, level: FieldValidation): { warnings: string[]; error?: ApiError; object?: unknown } {
  try {
    const bodyErrors = patchBodyStrictErrors(kind, body, level);
    const r = checkPatchedObject({ kind, level, definition: DEPLOYMENT, patched, patch: JSON.parse(body), bodyErrors });
    return { warnings: r.warnings, object: r.object };
  } catch (err) {
    assert.ok(err instanceof ApiError);
    return { warnings: [], error: err };
  }
}

describe('patch field validation: kube integration test cases', () => {
  const cases: Array<{ name: string; kind: PatchKind; body: string; patched: unknown; errors: string[] }> = [
    { name: 'merge-patch', kind: 'merge', body: MERGE_PATCH_BODY, patched: MERGE_PATCHED, errors: MERGE_ERRORS },
    { name: 'json-patch', kind: 'json', body: JSON_PATCH_BODY, patched: JSON_PATCHED, errors: JSON_PATCH_ERRORS },
    { name: 'nonconflicting-merge-patch', kind: 'merge', body: NONCONFLICTING_MERGE_PATCH_BODY, patched: NONCONFLICTING_PATCHED, errors: NONCONFLICTING_ERRORS },
    { name: 'smp', kind: 'strategic', body: MERGE_PATCH_BODY, patched: MERGE_PATCHED, errors: MERGE_ERRORS },
    { name: 'nonconflicting-smp', kind: 'strategic', body: NONCONFLICTING_MERGE_PATCH_BODY, patched: NONCONFLICTING_PATCHED, errors: NONCONFLICTING_ERRORS },
  ];
  for (const c of cases) {
    it(`${c.name}-strict-validation`, () => {
      const r = runPatch(c.kind, c.body, c.patched, 'Strict');
      assert.ok(r.error, 'rejected');
      assert.equal(r.error.code, 422);
      assert.equal(r.error.reason, 'Invalid');
      const message = r.error.status.message ?? '';
      assert.ok(message.startsWith(' "" is invalid: patch: Invalid value: "'), message);
      assert.ok(message.endsWith(`: strict decoding error: ${c.errors.join(', ')}`), message);
      assert.deepEqual(r.error.status.details?.causes?.map((x) => [x.reason, x.field]), [['FieldValueInvalid', 'patch']]);
    });
    it(`${c.name}-warn-validation`, () => {
      assert.deepEqual(runPatch(c.kind, c.body, c.patched, 'Warn').warnings, c.errors);
    });
    it(`${c.name}-ignore-validation`, () => {
      const r = runPatch(c.kind, c.body, c.patched, 'Ignore');
      assert.equal(r.error, undefined);
      assert.deepEqual(r.warnings, []);
    });
  }

  it('prunes the unknown fields of the patched object', () => {
    const r = runPatch('merge', MERGE_PATCH_BODY, MERGE_PATCHED, 'Ignore');
    assert.deepEqual(r.object, patchedBy({ paused: false }, { name: 'nginx', image: 'nginx:latest', imagePullPolicy: 'Never' }));
  });
});

describe('patch field validation: 422 texts', () => {
  it('json/merge patches quote the patched JSON (Go encoding, sorted keys by default)', () => {
    const r = runPatch('merge', '{"spec":{"x":1}}', { apiVersion: 'apps/v1', spec: { x: 1, paused: true }, kind: 'Deployment' }, 'Strict');
    assert.equal(r.error?.status.message, ' "" is invalid: patch: Invalid value: "{\\"apiVersion\\":\\"apps/v1\\",\\"kind\\":\\"Deployment\\",\\"spec\\":{\\"paused\\":true,\\"x\\":1}}": strict decoding error: unknown field "spec.x"');
  });

  it('uses the patched JSON the patch engine produced when given', () => {
    const patchedJson = '{"spec":{"x":1,"paused":true}}';
    assert.throws(
      () => checkPatchedObject({ kind: 'json', level: 'Strict', definition: DEPLOYMENT, patched: JSON.parse(patchedJson), patchedJson }),
      (err: ApiError) => err.status.message === ` "" is invalid: patch: Invalid value: ${JSON.stringify(patchedJson)}: strict decoding error: unknown field "spec.x"`,
    );
  });

  it('strategic merge patches print the patch with %+v', () => {
    const r = runPatch('strategic', '{"spec":{"x":1,"template":{"spec":{"containers":[{"name":"a","y":[1,2.5,true,null]}]}}}}', { spec: { x: 1 } }, 'Strict');
    assert.equal(
      r.error?.status.message,
      ' "" is invalid: patch: Invalid value: "map[spec:map[template:map[spec:map[containers:[map[name:a y:[1 2.5 true <nil>]]]]] x:1]]": strict decoding error: unknown field "spec.x"',
    );
  });

  it('a value that does not decode is a 422 at every level (JSON decoder texts for json/merge)', () => {
    for (const level of ['Ignore', 'Warn', 'Strict'] as const) {
      const r = runPatch('merge', '{"spec":{"replicas":"two"}}', { spec: { replicas: 'two' } }, level);
      assert.equal(r.error?.code, 422);
      assert.equal(r.error?.status.message, ' "" is invalid: patch: Invalid value: "{\\"spec\\":{\\"replicas\\":\\"two\\"}}": json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32');
    }
  });

  it('strategic merge patch results go through the unstructured converter', () => {
    const cases: Array<[unknown, string]> = [
      [{ spec: { replicas: 'two' } }, 'unrecognized type: int32'],
      [{ spec: { replicas: 1.5 } }, 'cannot convert float64 to int32'],
      [{ metadata: { name: 5 } }, 'cannot convert int64 to string'],
      [{ spec: { paused: 'yes' } }, 'unrecognized type: bool'],
      [{ spec: 'x' }, 'cannot restore struct from: string'],
      [{ metadata: { labels: [] } }, 'cannot restore map from slice'],
      [{ spec: { template: { spec: { containers: {} } } } }, 'cannot restore slice from map'],
      [{ spec: { template: { spec: { containers: [{ resources: { limits: { cpu: 'half' } } }] } } } }, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
      [{ metadata: { creationTimestamp: 'now' } }, 'parsing time "now" as "2006-01-02T15:04:05Z07:00": cannot parse "now" as "2006"'],
    ];
    for (const [patched, want] of cases) {
      const r = runPatch('strategic', '{}', patched, 'Ignore');
      assert.equal(r.error?.status.message, ` "" is invalid: patch: Invalid value: "map[]": ${want}`);
    }
    assert.equal(runPatch('strategic', '{}', { spec: { replicas: 2.0, minReadySeconds: 3 } }, 'Strict').error, undefined);
  });

  it('strategic merge patch unknown fields are sorted and list indexes kept', () => {
    const patched = { zeta: 1, spec: { template: { spec: { containers: [{ name: 'a' }, { name: 'b', q: 1 }] } }, b: 1, a: 2 } };
    assert.deepEqual(runPatch('strategic', '{}', patched, 'Warn').warnings, [
      'unknown field "spec.a"',
      'unknown field "spec.b"',
      'unknown field "spec.template.spec.containers[1].q"',
      'unknown field "zeta"',
    ]);
  });
});

describe('patch body decoding (Warn/Strict)', () => {
  const cases: Array<{ kind: PatchKind; body: string; want: string[] | string }> = [
    { kind: 'json', body: '[]', want: [] },
    { kind: 'json', body: '[{"op":"add","path":"/a","value":{"b":1,"b":2}}]', want: ['json patch duplicate field "[0].value.b"'] },
    { kind: 'json', body: '{}', want: 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp' },
    { kind: 'json', body: '[{"op":1}]', want: 'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string' },
    { kind: 'json', body: '[1]', want: 'error decoding patch: json: cannot unmarshal number into Go value of type handlers.jsonPatchOp' },
    { kind: 'merge', body: '{"a":', want: 'error decoding patch: unexpected end of JSON input' },
    { kind: 'merge', body: '[]', want: 'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}' },
    { kind: 'merge', body: '{"a":[{"b":1,"b":2}],"a":null}', want: ['duplicate field "a[0].b"', 'duplicate field "a"'] },
    { kind: 'strategic', body: '[]', want: 'json: cannot unmarshal array into Go value of type map[string]interface {}' },
    { kind: 'strategic', body: '{"$patch":"replace","$patch":"delete"}', want: ['duplicate field "$patch"'] },
  ];
  for (const c of cases) {
    it(`${c.kind} ${c.body}`, () => {
      if (Array.isArray(c.want)) {
        assert.deepEqual(patchBodyStrictErrors(c.kind, c.body, 'Strict'), c.want);
        return;
      }
      assert.throws(
        () => patchBodyStrictErrors(c.kind, c.body, 'Warn'),
        (err: ApiError) => err.code === 400 && err.reason === 'BadRequest' && err.status.message === c.want,
      );
    });
  }

  it('Ignore does not decode the body strictly', () => {
    assert.deepEqual(patchBodyStrictErrors('merge', '{"a":1,"a":2}', 'Ignore'), []);
  });
});

describe('server-side apply: duplicate keys of the body (read as YAML)', () => {
  /** field_validation_test.go's applyInvalidBody. */
  const APPLY_INVALID_BODY = `{
		"apiVersion": "apps/v1",
		"kind": "Deployment",
		"metadata": {
			"name": "test",
			"labels": {"app": "nginx"}
		},
		"spec": {
			"paused": false,
			"paused": true,
			"selector": {
				"matchLabels": {
					"app": "nginx"
				}
			},
			"template": {
				"metadata": {
					"labels": {
						"app": "nginx"
					}
				},
				"spec": {
					"containers": [{
						"name":  "nginx",
						"image": "nginx:latest",
						"imagePullPolicy": "Never",
						"imagePullPolicy": "Always"
					}]
				}
			}
		}
	}`;

  it('strict', () => {
    assert.throws(
      () => checkApplyPatch(APPLY_INVALID_BODY, 'Strict'),
      (err: ApiError) =>
        err.code === 400 &&
        err.status.message ===
          'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 10: key "paused" already set in map\n  line 27: key "imagePullPolicy" already set in map',
    );
  });

  it('warn', () => {
    assert.deepEqual(checkApplyPatch(APPLY_INVALID_BODY, 'Warn'), ['line 10: key "paused" already set in map', 'line 27: key "imagePullPolicy" already set in map']);
  });

  it('ignore', () => {
    assert.deepEqual(checkApplyPatch(APPLY_INVALID_BODY, 'Ignore'), []);
  });
});
