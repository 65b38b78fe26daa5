/**
 * Field validation of POST/PUT bodies for built-in types (fieldValidation =
 * Ignore | Warn | Strict) and pruning of unknown fields. Expected texts come
 * from kube's test/integration/apiserver/field_validation_test.go and from
 * the sigs.k8s.io/json / yaml.v2 behaviour it pins down.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { load } from 'js-yaml';

import { type CheckFieldsResult, type FieldValidation, checkFields, decodeYamlWithDuplicates, strictWarnings, yamlDuplicateKeys } from '../../src/validation/fields/index.js';
import { ApiError } from '../../src/machinery/errors.js';

const DEPLOYMENT = 'io.k8s.api.apps.v1.Deployment';
const APPS_V1_DEPLOYMENT = { group: 'apps', version: 'v1', kind: 'Deployment' };

/** field_validation_test.go's invalidBodyJSON. */
const INVALID_BODY_JSON = `
	{
		"apiVersion": "apps/v1",
		"kind": "Deployment",
		"metadata": {
			"name": "dupename",
			"name": "test-deployment",
			"labels": {"app": "nginx"},
			"unknownMeta": "metaVal"
		},
		"spec": {
			"unknown1": "val1",
			"unknownDupe": "valDupe",
			"unknownDupe": "valDupe2",
			"paused": true,
			"paused": false,
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
						"unknownNested": "val1",
						"imagePullPolicy": "Always",
						"imagePullPolicy": "Never"
					}]
				}
			}
		}
	}
		`;

/** field_validation_test.go's invalidBodyYAML. */
const INVALID_BODY_YAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: dupename
  name: test-deployment
  unknownMeta: metaVal
  labels:
    app: nginx
spec:
  unknown1: val1
  unknownDupe: valDupe
  unknownDupe: valDupe2
  paused: true
  paused: false
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:latest
        unknownNested: val1
        imagePullPolicy: Always
        imagePullPolicy: Never`;

const JSON_STRICT_ERRORS = [
  'duplicate field "metadata.name"',
  'unknown field "metadata.unknownMeta"',
  'unknown field "spec.unknown1"',
  'unknown field "spec.unknownDupe"',
  'duplicate field "spec.paused"',
  // Fields both unknown and duplicated are only reported as unknown for typed resources.
  'unknown field "spec.template.spec.containers[0].unknownNested"',
  'duplicate field "spec.template.spec.containers[0].imagePullPolicy"',
];

const YAML_WARNINGS = [
  'line 5: key "name" already set in map',
  'line 12: key "unknownDupe" already set in map',
  'line 14: key "paused" already set in map',
  'line 28: key "imagePullPolicy" already set in map',
  'unknown field "metadata.unknownMeta"',
  'unknown field "spec.template.spec.containers[0].unknownNested"',
  'unknown field "spec.unknown1"',
  'unknown field "spec.unknownDupe"',
];

const YAML_STRICT_ERROR =
  'strict decoding error: yaml: unmarshal errors:\n' +
  '  line 5: key "name" already set in map\n' +
  '  line 12: key "unknownDupe" already set in map\n' +
  '  line 14: key "paused" already set in map\n' +
  '  line 28: key "imagePullPolicy" already set in map, unknown field "metadata.unknownMeta", unknown field "spec.template.spec.containers[0].unknownNested", unknown field "spec.unknown1", unknown field "spec.unknownDupe"';

function check(body: string, level: FieldValidation, opts: { yaml?: boolean; definition?: string; endpoint?: { group: string; version: string; kind: string } } = {}): CheckFieldsResult {
  const decoded = opts.yaml ? load(body, { json: true }) : JSON.parse(body);
  return checkFields({
    body: Buffer.from(body),
    contentType: opts.yaml ? 'yaml' : 'json',
    decoded,
    definition: opts.definition ?? DEPLOYMENT,
    level,
    endpoint: opts.endpoint ?? APPS_V1_DEPLOYMENT,
  });
}

function rejection(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the request to be rejected');
}

describe('field validation: kube integration test bodies (POST/PUT)', () => {
  const cases: Array<{ name: string; yaml: boolean; level: FieldValidation; error?: string; warnings?: string[] }> = [
    { name: 'strict', yaml: false, level: 'Strict', error: `strict decoding error: ${JSON_STRICT_ERRORS.join(', ')}` },
    { name: 'warn', yaml: false, level: 'Warn', warnings: JSON_STRICT_ERRORS },
    { name: 'ignore', yaml: false, level: 'Ignore', warnings: [] },
    { name: 'strict yaml', yaml: true, level: 'Strict', error: YAML_STRICT_ERROR },
    { name: 'warn yaml', yaml: true, level: 'Warn', warnings: YAML_WARNINGS },
    { name: 'ignore yaml', yaml: true, level: 'Ignore', warnings: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const body = c.yaml ? INVALID_BODY_YAML : INVALID_BODY_JSON;
      if (c.error !== undefined) {
        const err = rejection(() => check(body, c.level, { yaml: c.yaml }));
        assert.equal(err.code, 400);
        assert.equal(err.reason, 'BadRequest');
        assert.equal(err.status.message, `Deployment in version "v1" cannot be handled as a Deployment: ${c.error}`);
        return;
      }
      assert.deepEqual(check(body, c.level, { yaml: c.yaml }).warnings, c.warnings);
    });
  }

  it('prunes the unknown fields whatever the level, keeping the last duplicate', () => {
    for (const level of ['Warn', 'Ignore'] as const) {
      assert.deepEqual(check(INVALID_BODY_JSON, level).object, {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'test-deployment', labels: { app: 'nginx' } },
        spec: {
          paused: false,
          selector: { matchLabels: { app: 'nginx' } },
          template: {
            metadata: { labels: { app: 'nginx' } },
            spec: { containers: [{ name: 'nginx', image: 'nginx:latest', imagePullPolicy: 'Never' }] },
          },
        },
      });
    }
  });
});

describe('field validation: unknown fields at any depth', () => {
  const cases: Array<{ name: string; definition?: string; body: unknown; unknown: string[] }> = [
    { name: 'top level', body: { apiVersion: 'apps/v1', kind: 'Deployment', foo: 1 }, unknown: ['foo'] },
    { name: 'field names are case-sensitive', body: { Kind: 'Deployment', Spec: {} }, unknown: ['Kind', 'Spec'] },
    { name: 'metadata', body: { metadata: { name: 'x', nmae: 'y' } }, unknown: ['metadata.nmae'] },
    { name: 'nested struct', body: { spec: { strategy: { rollingUpdate: { maxSurge: 1, maxSurprise: 2 } } } }, unknown: ['spec.strategy.rollingUpdate.maxSurprise'] },
    {
      name: 'lists of structs, every element',
      body: { spec: { template: { spec: { containers: [{ name: 'a', x: 1 }, { name: 'b', ports: [{ containerPort: 80, y: 2 }] }] } } } },
      unknown: ['spec.template.spec.containers[0].x', 'spec.template.spec.containers[1].ports[0].y'],
    },
    {
      name: 'maps of structs (keys are path elements)',
      definition: 'io.k8s.api.resource.v1.ResourceSlice',
      body: { spec: { devices: [{ name: 'gpu', attributes: { model: { string: 'a100', bogus: true } } }] } },
      unknown: ['spec.devices[0].attributes.model.bogus'],
    },
    {
      name: 'maps of JSONSchemaProps in a CRD',
      definition: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
      body: { spec: { versions: [{ name: 'v1', schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', tpye: 'x' } } } } }] } },
      unknown: ['spec.versions[0].schema.openAPIV3Schema.properties.spec.tpye'],
    },
    {
      name: 'an empty struct knows no field',
      definition: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
      body: { spec: { versions: [{ name: 'v1', subresources: { status: { foo: 1 } } }] } },
      unknown: ['spec.versions[0].subresources.status.foo'],
    },
    {
      name: 'unknown fields are not descended into',
      body: { spec: { bogus: { a: 1, a2: { b: 2 } } } },
      unknown: ['spec.bogus'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const body = JSON.stringify(c.body);
      const warnings = check(body, 'Warn', { definition: c.definition }).warnings;
      assert.deepEqual(warnings, c.unknown.map((u) => `unknown field "${u}"`));
      const pruned = check(body, 'Ignore', { definition: c.definition }).object;
      for (const path of c.unknown) assert.equal(lookup(pruned, path), undefined, `${path} pruned`);
    });
  }

  it('reports a repeated unknown field once, as unknown', () => {
    assert.deepEqual(check('{"spec":{"zz":1,"zz":2,"paused":true}}', 'Warn').warnings, ['unknown field "spec.zz"']);
  });

  it('quotes paths like strconv.Quote', () => {
    const body = JSON.stringify({ metadata: { 'we"ird\nkey': 1, 'ünï': 2 } });
    assert.deepEqual(check(body, 'Warn').warnings, ['unknown field "metadata.we\\"ird\\nkey"', 'unknown field "metadata.ünï"']);
  });

  it('reports at most 100 strict errors', () => {
    const spec: Record<string, number> = {};
    for (let k = 0; k < 150; k++) spec[`u${k}`] = k;
    const warnings = check(JSON.stringify({ spec }), 'Warn').warnings;
    assert.equal(warnings.length, 100);
    assert.equal(warnings[99], 'unknown field "spec.u99"');
  });
});

describe('field validation: what is not checked or pruned', () => {
  it('keeps raw types untouched: RawExtension, FieldsV1', () => {
    const cr = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: { name: 'r', managedFields: [{ manager: 'm', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:x': {} }, dup: 1 } }] },
      data: { anything: { goes: [1, { here: true }] } },
      revision: 1,
    };
    const r = check(JSON.stringify(cr), 'Strict', { definition: 'io.k8s.api.apps.v1.ControllerRevision', endpoint: { group: 'apps', version: 'v1', kind: 'ControllerRevision' } });
    assert.deepEqual(r.warnings, []);
    assert.deepEqual(r.object, cr);
  });

  it('does not report duplicates inside raw types', () => {
    const body = '{"apiVersion":"apps/v1","kind":"ControllerRevision","revision":1,"data":{"a":1,"a":2}}';
    const r = check(body, 'Strict', { definition: 'io.k8s.api.apps.v1.ControllerRevision', endpoint: { group: 'apps', version: 'v1', kind: 'ControllerRevision' } });
    assert.deepEqual(r.warnings, []);
  });

  it('drops unknown fields inside JSONSchemaPropsOrArray silently (decoded by a nested, non-strict json.Unmarshal)', () => {
    const crd = {
      spec: { versions: [{ name: 'v1', schema: { openAPIV3Schema: { type: 'array', items: { type: 'string', tpye: 'x' }, additionalProperties: { type: 'string', foo: 1 } } } }] },
    };
    const r = check(JSON.stringify(crd), 'Warn', {
      definition: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
      endpoint: { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' },
    });
    assert.deepEqual(r.warnings, []);
    assert.deepEqual(r.object, { spec: { versions: [{ name: 'v1', schema: { openAPIV3Schema: { type: 'array', items: { type: 'string' }, additionalProperties: { type: 'string' } } } }] } });
  });

  it('returns the decoded value itself when nothing is unknown', () => {
    const body = JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x', labels: { a: 'b' } }, spec: { replicas: 2 } });
    const decoded = JSON.parse(body);
    const r = checkFields({ body, contentType: 'json', decoded, definition: DEPLOYMENT, level: 'Strict', endpoint: APPS_V1_DEPLOYMENT });
    assert.equal(r.object, decoded);
  });

  it('shares unchanged subtrees when pruning', () => {
    const decoded = { metadata: { name: 'x' }, spec: { template: { spec: { containers: [{ name: 'a' }] } }, x: 1 } };
    const r = checkFields({ body: JSON.stringify(decoded), contentType: 'json', decoded, definition: DEPLOYMENT, level: 'Ignore', endpoint: APPS_V1_DEPLOYMENT });
    const out = r.object as typeof decoded;
    assert.notEqual(out, decoded);
    assert.equal(out.metadata, decoded.metadata);
    assert.equal(out.spec.template, decoded.spec.template);
    assert.deepEqual(decoded.spec, { template: { spec: { containers: [{ name: 'a' }] } }, x: 1 }, 'input untouched');
  });

  it('keeps a __proto__ key as data in maps and drops it from structs', () => {
    const body = '{"metadata":{"labels":{"__proto__":"x"}},"__proto__":{"polluted":true}}';
    const r = check(body, 'Warn');
    assert.deepEqual(r.warnings, ['unknown field "__proto__"']);
    const out = r.object as { metadata: { labels: Record<string, string> } };
    assert.equal(Object.getOwnPropertyDescriptor(out.metadata.labels, '__proto__')?.value, 'x');
    assert.equal(Object.prototype.hasOwnProperty.call(out, '__proto__'), false);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('leaves a definition it does not know alone', () => {
    const r = check('{"a":1,"a":2}', 'Strict', { definition: 'io.example.v1.Nope' });
    assert.deepEqual(r, { object: { a: 2 }, warnings: [] });
  });
});

describe('field validation: duplicate fields', () => {
  const cases: Array<{ name: string; body: string; dups: string[] }> = [
    { name: 'top level', body: '{"kind":"Deployment","kind":"Deployment"}', dups: ['kind'] },
    { name: 'map keys (labels)', body: '{"metadata":{"labels":{"a":"1","b":"2","a":"3"}}}', dups: ['metadata.labels.a'] },
    { name: 'in list elements', body: '{"spec":{"template":{"spec":{"containers":[{"name":"a"},{"name":"b","name":"c"}]}}}}', dups: ['spec.template.spec.containers[1].name'] },
    { name: 'escaped keys compare decoded', body: '{"metadata":{"name":"a","n\\u0061me":"b"}}', dups: ['metadata.name'] },
    { name: 'three times is reported once', body: '{"spec":{"paused":true,"paused":false,"paused":true}}', dups: ['spec.paused'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(check(c.body, 'Warn').warnings, c.dups.map((d) => `duplicate field "${d}"`));
      const err = rejection(() => check(c.body, 'Strict'));
      assert.match(err.status.message ?? '', /strict decoding error: duplicate field/);
    });
  }

  it('merges a repeated struct field the way Go decodes it', () => {
    const body = '{"spec":{"replicas":1,"selector":{"matchLabels":{"a":"b"}}},"spec":{"paused":true,"bogus":1,"selector":{"matchExpressions":[]}}}';
    const r = check(body, 'Warn');
    assert.deepEqual(r.warnings, ['duplicate field "spec"', 'unknown field "spec.bogus"']);
    const want = { spec: { replicas: 1, paused: true, selector: { matchLabels: { a: 'b' }, matchExpressions: [] } } };
    assert.deepEqual(r.object, want);
    assert.deepEqual(check(body, 'Ignore').object, want, 'the non-strict decoder merges too');
  });

  it('reuses list elements when a list field repeats', () => {
    const body = '{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"x"},{"name":"b"}],"containers":[{"name":"c"}]}}}}';
    const r = check(body, 'Warn');
    assert.deepEqual(r.object, { spec: { template: { spec: { containers: [{ name: 'c', image: 'x' }] } } } });
  });

  it('keeps earlier map entries when a map field repeats', () => {
    const r = check('{"metadata":{"labels":{"a":"1"},"labels":{"b":"2"}}}', 'Warn');
    assert.deepEqual(r.object, { metadata: { labels: { a: '1', b: '2' } } });
  });
});

describe('field validation: YAML bodies', () => {
  const cases: Array<{ name: string; body: string; warnings: string[] }> = [
    {
      name: 'a nested duplicate is reported before the key holding it, at the value line',
      body: 'metadata:\n  name: a\nspec:\n  paused: true\nspec:\n  replicas: 1\n  replicas: 2\n',
      warnings: ['line 7: key "replicas" already set in map', 'line 6: key "spec" already set in map'],
    },
    {
      name: 'flow style and quoted keys',
      body: '{"metadata": {"name": "a", "name": "b"}, "kind": \'Deployment\', kind: Deployment}',
      warnings: ['line 1: key "name" already set in map', 'line 1: key "kind" already set in map'],
    },
    {
      name: 'an empty value is at the key line',
      body: 'metadata:\n  name: x\n  labels:\n  labels:\n',
      warnings: ['line 4: key "labels" already set in map'],
    },
    {
      name: 'block scalars start at their header',
      body: 'metadata:\n  annotations:\n    a: x\n    a: |\n      text\n',
      warnings: ['line 4: key "a" already set in map'],
    },
    {
      name: 'unknown fields come sorted, as Go marshals the converted map',
      body: 'spec:\n  zeta: 1\n  alpha: 2\nmetadata:\n  zz: 1\n',
      warnings: ['unknown field "metadata.zz"', 'unknown field "spec.alpha"', 'unknown field "spec.zeta"'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(check(c.body, 'Warn', { yaml: true }).warnings, c.warnings);
    });
  }

  it('compares keys as yaml.v2 resolves them (YAML 1.1)', () => {
    const body = 'metadata:\n  annotations:\n    yes: a\n    true: b\n    0x10: c\n    16: d\n    "16": e\n';
    assert.deepEqual(check(body, 'Warn', { yaml: true }).warnings, ['line 4: key true already set in map', 'line 6: key 16 already set in map']);
  });

  it('a JSON body sent as YAML is checked by the YAML rules', () => {
    const body = '{\n  "metadata": {\n    "name": "a",\n    "name": "b"\n  }\n}';
    assert.deepEqual(check(body, 'Warn', { yaml: true }).warnings, ['line 4: key "name" already set in map']);
  });

  it('checks the first document only', () => {
    const body = 'kind: Deployment\n---\nkind: a\nkind: b\n';
    const r = checkFields({ body, contentType: 'yaml', decoded: { kind: 'Deployment' }, definition: DEPLOYMENT, level: 'Warn', endpoint: APPS_V1_DEPLOYMENT });
    assert.deepEqual(r.warnings, []);
  });

  it('decodes and finds duplicates in one parse', () => {
    const { documents, duplicateKeys } = decodeYamlWithDuplicates(INVALID_BODY_YAML);
    assert.equal(documents.length, 1);
    assert.deepEqual(duplicateKeys, YAML_WARNINGS.slice(0, 4));
    const doc = documents[0] as { metadata: { name: string }; spec: { paused: boolean } };
    assert.equal(doc.metadata.name, 'test-deployment', 'a repeated key keeps its last value');
    assert.equal(doc.spec.paused, false);
    const r = checkFields({ body: INVALID_BODY_YAML, contentType: 'yaml', decoded: doc, definition: DEPLOYMENT, level: 'Warn', endpoint: APPS_V1_DEPLOYMENT, yamlDuplicateKeys: duplicateKeys });
    assert.deepEqual(r.warnings, YAML_WARNINGS);
  });

  it('does not expand merge keys or aliases', () => {
    const body = 'metadata:\n  labels: &l\n    a: x\n  annotations:\n    <<: *l\n    a: y\n  finalizers: *l\n';
    assert.deepEqual(yamlDuplicateKeys(body), []);
  });

  it('prunes YAML bodies too', () => {
    assert.deepEqual(check('metadata:\n  name: a\n  bogus: 1\nspec:\n  paused: true\n', 'Ignore', { yaml: true }).object, { metadata: { name: 'a' }, spec: { paused: true } });
  });
});

describe('field validation: warnings', () => {
  it('splits yaml.v2 errors into one warning per line, short or long prefix', () => {
    assert.deepEqual(
      strictWarnings([
        'yaml: unmarshal errors:\n  line 2: key "a" already set in map\n  line 3: key "b" already set in map',
        'unknown field "x"',
        'error converting YAML to JSON: yaml: unmarshal errors:\n  line 9: key "c" already set in map',
      ]),
      ['line 2: key "a" already set in map', 'line 3: key "b" already set in map', 'unknown field "x"', 'line 9: key "c" already set in map'],
    );
  });
});

describe('field validation: the 400 text', () => {
  it('names the body kind and version, defaulted from the endpoint', () => {
    const cases: Array<{ body: unknown; prefix: string }> = [
      { body: { spec: { x: 1 } }, prefix: 'Deployment in version "v1" cannot be handled as a Deployment' },
      { body: { apiVersion: 'apps/v1beta2', spec: { x: 1 } }, prefix: 'Deployment in version "v1beta2" cannot be handled as a Deployment' },
      { body: { apiVersion: 'apps/', kind: 'Deployment', spec: { x: 1 } }, prefix: 'Deployment in version "v1" cannot be handled as a Deployment' },
    ];
    for (const c of cases) {
      const err = rejection(() => check(JSON.stringify(c.body), 'Strict'));
      assert.equal(err.status.message, `${c.prefix}: strict decoding error: unknown field "spec.x"`);
    }
  });

  it('a core group kind', () => {
    const err = rejection(() =>
      check('{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"b"},"date":{}}', 'Strict', { definition: 'io.k8s.api.core.v1.ConfigMap', endpoint: { group: '', version: 'v1', kind: 'ConfigMap' } }),
    );
    assert.equal(err.status.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "date"');
  });
});

function lookup(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split(/\.|(?=\[)/)) {
    if (cur === undefined || cur === null) return undefined;
    const idx = /^\[(\d+)\]$/.exec(part);
    cur = idx ? (cur as unknown[])[Number(idx[1])] : (cur as Record<string, unknown>)[part];
  }
  return cur;
}

describe('null list elements and map values, as encoding/json decodes them', () => {
  it('become the zero value of structs and scalars; maps, lists and times stay null; other values are shared', () => {
    const body = JSON.stringify({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', finalizers: [null, 'a'], labels: { k: null }, ownerReferences: [null] },
      spec: { template: { spec: { containers: [null, { name: 'c', image: 'i', args: [null] }], volumes: [{ name: 'v', configMap: { items: [null] } }] } } },
    });
    for (const level of ['Ignore', 'Strict'] as const) {
      const r = check(body, level);
      const o = r.object as Record<string, any>;
      assert.deepEqual(o.metadata.finalizers, ['', 'a']);
      assert.deepEqual(o.metadata.labels, { k: '' });
      assert.deepEqual(o.metadata.ownerReferences, [{}]);
      assert.deepEqual(o.spec.template.spec.containers, [{}, { name: 'c', image: 'i', args: [''] }]);
      assert.deepEqual(o.spec.template.spec.volumes[0].configMap.items, [{}]);
    }
    const clean = JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { template: { spec: { containers: [{ name: 'c' }] } } } });
    const decoded = JSON.parse(clean);
    assert.equal(checkFields({ body: Buffer.from(clean), contentType: 'json', decoded, definition: DEPLOYMENT, level: 'Strict', endpoint: APPS_V1_DEPLOYMENT }).object, decoded, 'a body without null elements is returned as it is');
  });
});
