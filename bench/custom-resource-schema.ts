import { CustomResourceSchema, checkCustomResourceFields } from '../src/apiextensions/schema/index.js';
import type { JsonObject } from '../src/machinery/json-value.js';

/**
 * The schema work a custom resource write pays in-process (kube's
 * unstructured coercion, defaulting and OpenAPI validation), on a widget
 * with nested objects, a list-map, a set, an embedded resource and defaults,
 * beside JSON.parse of the same body. Best of three 300 ms runs per row.
 * Run: npm run build && node dist/bench/custom-resource-schema.js
 */

export const SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'integer', minimum: 1, maximum: 10 },
        color: { type: 'string', enum: ['red', 'green', 'blue'], default: 'red' },
        name: { type: 'string', pattern: '^[a-z]+$', maxLength: 10 },
        port: { 'x-kubernetes-int-or-string': true },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer', default: 80 }, protocol: { type: 'string', default: 'TCP' } } },
        },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        nested: { type: 'object', default: {}, properties: { level: { type: 'string', default: 'info' } } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' } } },
  },
};

/** The same schema with ten x-kubernetes-validations rules (one transition rule, one messageExpression), which the object passes. */
export function withTenRules(schema: JsonObject): JsonObject {
  const out = structuredClone(schema) as { properties: { spec: JsonObject & { properties: Record<string, JsonObject> } } };
  const spec = out.properties.spec;
  spec.properties.ports = { ...spec.properties.ports, maxItems: 16 };
  spec.properties.tags = { ...spec.properties.tags, maxItems: 16, items: { type: 'string', maxLength: 16 } };
  spec['x-kubernetes-validations'] = [
    { rule: 'self.size <= 10', message: 'size too large' },
    { rule: "!has(self.color) || self.color in ['red', 'green', 'blue']" },
    { rule: "!has(self.name) || self.name.startsWith('a')" },
    { rule: 'self.ports.all(p, p.port > 0 && p.port < 65536)' },
    { rule: 'self.ports.size() <= 8' },
    { rule: 'self.tags.all(t, t.size() < 16)', messageExpression: "'tags must be short in ' + self.name" },
    { rule: 'self.size >= oldSelf.size', message: 'size may not shrink' },
    { rule: "!has(self.nested) || self.nested.level != ''" },
  ];
  spec.properties.ports = {
    ...spec.properties.ports,
    items: { ...(spec.properties.ports.items as JsonObject), 'x-kubernetes-validations': [{ rule: "self.name.startsWith('p')" }, { rule: 'self.port >= 80' }] },
  };
  return out as unknown as JsonObject;
}

export const OBJECT = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'default', labels: { app: 'w', tier: 'x' }, annotations: { note: 'x'.repeat(100) } },
  spec: {
    size: 3,
    name: 'abc',
    port: 'http',
    ports: Array.from({ length: 8 }, (_, i) => ({ name: `p${i}`, port: 8000 + i })),
    tags: ['a', 'b', 'c', 'd'],
    template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
  },
};

function opsPerSec(fn: () => void): number {
  let best = 0;
  for (let round = 0; round < 3; round++) {
    const end = performance.now() + 300;
    let n = 0;
    while (performance.now() < end) {
      fn();
      n++;
    }
    best = Math.max(best, n / 0.3);
  }
  return Math.round(best);
}

function main(): void {
const schema = new CustomResourceSchema(SCHEMA);
const ruled = new CustomResourceSchema(withTenRules(SCHEMA));
const body = JSON.stringify(OBJECT);
const endpoint = { group: 'example.com', version: 'v1', kind: 'Widget' };
const rows: [string, () => void][] = [
  ['JSON.parse of the body', () => JSON.parse(body)],
  ['field check (Strict): duplicates, ObjectMeta, pruning', () => checkCustomResourceFields(schema, { body, contentType: 'json', decoded: JSON.parse(body), level: 'Strict', endpoint })],
  ['coerce (Ignore)', () => schema.coerce(JSON.parse(body) as JsonObject, false)],
  ['default', () => schema.default(JSON.parse(body) as JsonObject)],
  ['validate (value, embedded, list types)', () => schema.validate(JSON.parse(body) as JsonObject, () => [])],
  ['validate with ten x-kubernetes-validations rules', () => ruled.validate(JSON.parse(body) as JsonObject, () => [])],
  ['validate update with ten rules (transition rule runs)', () => ruled.validateUpdate(JSON.parse(body) as JsonObject, OBJECT as JsonObject, () => [])],
  ['read path: coerce without ObjectMeta + default', () => schema.default(schema.coerce(JSON.parse(body) as JsonObject, false, { objectMeta: false }).object)],
];
for (const [name, fn] of rows) console.log(`${name.padEnd(56)} ${opsPerSec(fn).toLocaleString('en-US').padStart(10)} ops/s`);
}

if (process.argv[1]?.endsWith('custom-resource-schema.js')) main();
