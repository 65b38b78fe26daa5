import fc from 'fast-check';
import { dump } from 'js-yaml';

/**
 * fast-check generators of hostile-but-plausible API requests: bodies (JSON
 * and YAML), patches of the four types, query strings and headers, for a few
 * resource types. Everything is derived from the seed, so a run replays.
 *
 * GENERATE_HOSTILE_SIZES=1 adds inputs at and past the request limits:
 *   - strings of megabytes (a 2.5 MB apiVersion answered in YAML);
 *   - nesting around and past the body limit (MAX_NESTING_DEPTH);
 *   - bodies near or over 3 MiB, chunked or unframed bodies;
 *   - YAML anchors and aliases (billion laughs, self-referencing aliases);
 *   - YAML special floats (.nan, .inf) and out-of-range numbers in YAML.
 * Each of these has a regression test of its own (test/e2e/hostile-input,
 * hostile-patches, deep-nesting). Off by default for its cost, not for
 * failures: a run holds multi-MB bodies and takes far longer (24,000 cases
 * ≈ 8.5 min, peak RSS ≈ 1.3 GB: bench/results/fuzz-long-run.md).
 * Seeds 11, 12 and 13 failed on deep values printed recursively (a strategic
 * merge patch's error, SMD's "expected map, got &{…}"); fixed, with tests.
 *
 * Lists may hold null (Go decodes a null item of a typed list to the zero
 * value, then validation answers 422; prune.ts zeroNullElements does the
 * same); GENERATE_NULL_ITEMS=0 leaves nulls out.
 */

export const GENERATE_HOSTILE_SIZES = process.env.GENERATE_HOSTILE_SIZES === '1';
export const GENERATE_NULL_ITEMS = process.env.GENERATE_NULL_ITEMS !== '0';


/** Nesting of generated values; deeper ones come as RawJson text (fast-check and js-yaml recurse). */
const MAX_NESTING = 12;
const MAX_STRING = GENERATE_HOSTILE_SIZES ? 3 * 1024 * 1024 : 4096;

/** A JSON number written exactly as given (1e400, -0, 12345678901234567890), which JSON.stringify cannot. */
export class RawNumber {
  constructor(readonly text: string) {}
}

/** JSON text inserted as is (nesting too deep to build as values). */
export class RawJson {
  constructor(readonly text: string) {}
}

export type Value = null | boolean | number | string | RawNumber | RawJson | Value[] | { [k: string]: Value };

const isLeaf = (v: Value): v is null | boolean | number | string | RawNumber | RawJson =>
  v === null || typeof v !== 'object' || v instanceof RawNumber || v instanceof RawJson;

export interface ResourceType {
  /** Path prefix without namespace, e.g. /api/v1 */
  readonly groupVersion: string;
  readonly resource: string;
  readonly kind: string;
  readonly apiVersion: string;
  readonly namespaced: boolean;
  readonly subresources: readonly string[];
  /** A valid object of the type named `name`. */
  template(name: string): { [k: string]: Value };
}

const labels = { app: 'fuzz', tier: 'x' };

export const RESOURCE_TYPES: readonly ResourceType[] = [
  {
    groupVersion: '/api/v1',
    resource: 'configmaps',
    kind: 'ConfigMap',
    apiVersion: 'v1',
    namespaced: true,
    subresources: [],
    template: (name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { a: '1', b: 'two' } }),
  },
  {
    groupVersion: '/api/v1',
    resource: 'pods',
    kind: 'Pod',
    apiVersion: 'v1',
    namespaced: true,
    subresources: ['status'],
    template: (name) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels },
      spec: {
        containers: [
          { name: 'c', image: 'nginx:1', ports: [{ containerPort: 80, protocol: 'TCP' }], env: [{ name: 'A', value: 'b' }] },
        ],
        tolerations: [{ key: 'k', operator: 'Exists' }],
      },
    }),
  },
  {
    groupVersion: '/apis/apps/v1',
    resource: 'deployments',
    kind: 'Deployment',
    apiVersion: 'apps/v1',
    namespaced: true,
    subresources: ['status', 'scale'],
    template: (name) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'fuzz' } },
        template: { metadata: { labels: { app: 'fuzz' } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } },
      },
    }),
  },
  {
    groupVersion: '/api/v1',
    resource: 'services',
    kind: 'Service',
    apiVersion: 'v1',
    namespaced: true,
    subresources: ['status'],
    template: (name) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, labels },
      spec: { selector: { app: 'fuzz' }, ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }] },
    }),
  },
  {
    groupVersion: '/apis/rbac.authorization.k8s.io/v1',
    resource: 'roles',
    kind: 'Role',
    apiVersion: 'rbac.authorization.k8s.io/v1',
    namespaced: true,
    subresources: [],
    template: (name) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name, labels },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
    }),
  },
  {
    groupVersion: '/apis/rbac.authorization.k8s.io/v1',
    resource: 'clusterroles',
    kind: 'ClusterRole',
    apiVersion: 'rbac.authorization.k8s.io/v1',
    namespaced: false,
    subresources: [],
    template: (name) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name, labels },
      rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }],
    }),
  },
];

/** Namespace whose seeded objects must come out unchanged: only reads and dry runs address it. */
export const SEEDED_NAMESPACE = 'fuzz-seeded';
export const SCRATCH_NAMESPACE = 'fuzz-scratch';
/** Names of seeded objects (cluster-scoped ones carry the prefix). */
export const SEEDED_NAMES = ['seeded-a', 'seeded-b'];
const SCRATCH_NAMES = ['s1', 's2', 's3'];

// ---- values ----

const oddNumbers: fc.Arbitrary<Value> = fc.oneof(
  fc.constantFrom<Value>(0, -1, 1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, Number.MAX_SAFE_INTEGER, 1.5, -0.25, 1e21, 5e-324, Number.MAX_VALUE),
  fc.constantFrom<Value>(
    new RawNumber('-0'),
    new RawNumber('1e400'),
    new RawNumber('-1e400'),
    new RawNumber('1E-400'),
    new RawNumber('123456789012345678901234567890'),
    new RawNumber('9223372036854775808'),
    new RawNumber('1.0'),
    new RawNumber('0.1e1'),
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const oddStrings: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('', 'a', 'fuzz', 'x'.repeat(64), 'UPPER', 'with space', 'dots.and-dashes', '0', 'true', 'null', '$patch', '~1', '/', '%2F', '..', 'ünïcødé', '\u0000', '\ud83d\ude00', '\\', '"') },
  { weight: 3, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 16 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: MAX_STRING }).map((n) => 'L'.repeat(n)) },
);

const keys: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('name', 'value', 'a', 'b', 'image', 'port', 'key', 'labels', 'spec', 'items', 'metadata', 'data', '$patch', '$retainKeys', '$setElementOrder/containers', '$deleteFromPrimitiveList/finalizers', 'apiVersion', 'kind', 'Name', 'x-y', '') },
  { weight: 1, arbitrary: oddStrings },
);

const scalar: fc.Arbitrary<Value> = fc.oneof(
  { weight: 4, arbitrary: oddStrings },
  { weight: 2, arbitrary: oddNumbers },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
);

/** Objects or arrays nested 5,000 to 10,001 deep: around the decoders' limit of 10,000. */
const deepJson: fc.Arbitrary<Value> = fc
  .record({ depth: fc.integer({ min: 5_000, max: 10_001 }), array: fc.boolean() })
  .map(({ depth, array }) => new RawJson(array ? '['.repeat(depth) + '1' + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)));

/** Random JSON values, nesting at most MAX_NESTING levels (beyond with GENERATE_HOSTILE_SIZES). */
const anyValue: fc.Arbitrary<Value> = fc.letrec<{ v: Value }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', maxDepth: MAX_NESTING, withCrossShrink: true },
    { weight: 5, arbitrary: scalar },
    { weight: GENERATE_HOSTILE_SIZES ? 1 : 0, arbitrary: deepJson },
    { weight: 1, arbitrary: fc.array(tie('v'), { maxLength: 4 }).map((items) => (GENERATE_NULL_ITEMS ? items : items.filter((x) => x !== null))) },
    { weight: 1, arbitrary: fc.dictionary(keys, tie('v'), { maxKeys: 4 }) },
  ),
})).v;

/** A JSON path-like list of keys into an object. */
type Path = readonly (string | number)[];

const knownPaths: readonly Path[] = [
  ['apiVersion'],
  ['kind'],
  ['metadata'],
  ['metadata', 'name'],
  ['metadata', 'namespace'],
  ['metadata', 'labels'],
  ['metadata', 'labels', 'app'],
  ['metadata', 'annotations'],
  ['metadata', 'annotations', 'a'],
  ['metadata', 'finalizers'],
  ['metadata', 'resourceVersion'],
  ['metadata', 'uid'],
  ['metadata', 'generateName'],
  ['metadata', 'ownerReferences'],
  ['metadata', 'managedFields'],
  ['metadata', 'creationTimestamp'],
  ['metadata', 'deletionTimestamp'],
  ['data'],
  ['data', 'a'],
  ['binaryData'],
  ['spec'],
  ['spec', 'replicas'],
  ['spec', 'selector'],
  ['spec', 'containers'],
  ['spec', 'containers', 0],
  ['spec', 'containers', 0, 'name'],
  ['spec', 'containers', 0, 'image'],
  ['spec', 'containers', 0, 'ports'],
  ['spec', 'containers', 0, 'ports', 0, 'containerPort'],
  ['spec', 'containers', 0, 'env'],
  ['spec', 'tolerations'],
  ['spec', 'ports'],
  ['spec', 'ports', 0, 'port'],
  ['spec', 'ports', 0, 'targetPort'],
  ['spec', 'type'],
  ['spec', 'clusterIP'],
  ['spec', 'template', 'spec', 'containers'],
  ['spec', 'template', 'metadata', 'labels'],
  ['status'],
  ['status', 'phase'],
  ['rules'],
  ['rules', 0, 'verbs'],
  ['unknownField'],
];

const pathArb: fc.Arbitrary<Path> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...knownPaths) },
  { weight: 1, arbitrary: fc.array(fc.oneof(keys, fc.nat({ max: 3 })), { minLength: 1, maxLength: 4 }) },
);

function cloneValue(v: Value): Value {
  if (Array.isArray(v)) return v.map(cloneValue);
  if (!isLeaf(v)) {
    const out: { [k: string]: Value } = {};
    for (const [k, x] of Object.entries(v)) out[k] = cloneValue(x);
    return out;
  }
  return v;
}

/** Sets (or, with undefined, deletes) the value at `path`, creating objects on the way. */
function setPath(root: { [k: string]: Value }, path: Path, value: Value | undefined): void {
  let cur: Value = root;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i] as string | number;
    const container = cur as { [k: string]: Value } | Value[];
    if (isLeaf(container)) return;
    let next = (container as Record<string, Value>)[k];
    if (next === undefined || isLeaf(next)) {
      next = typeof path[i + 1] === 'number' ? [] : {};
      (container as Record<string, Value>)[k] = next;
    }
    cur = next;
  }
  const last = path[path.length - 1] as string | number;
  if (isLeaf(cur)) return;
  if (value === null && typeof last === 'number' && !GENERATE_NULL_ITEMS) return;
  if (value === undefined) delete (cur as Record<string, Value>)[last];
  else (cur as Record<string, Value>)[last] = value;
}

interface Mutation {
  path: Path;
  value: Value | undefined;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  path: pathArb,
  value: fc.oneof({ weight: 5, arbitrary: anyValue }, { weight: 1, arbitrary: fc.constant(undefined) }),
});

/** A template object with a few random edits: wrong types, unknown fields, nulls, odd numbers. */
function mutatedObject(type: ResourceType, name: string): fc.Arbitrary<{ [k: string]: Value }> {
  return fc.array(mutation, { maxLength: 4 }).map((ms) => {
    const obj = cloneValue(type.template(name)) as { [k: string]: Value };
    for (const m of ms) setPath(obj, m.path, m.value);
    return obj;
  });
}

// ---- serialization ----

/** JSON text keeping RawNumber literals. */
export function toJson(v: Value): string {
  if (v instanceof RawNumber || v instanceof RawJson) return v.text;
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  // Holes left by setting a far index read as null, as in JSON.stringify (or go, see GENERATE_NULL_ITEMS).
  if (Array.isArray(v)) {
    const items = Array.from(v, (x) => x ?? null).filter((x) => x !== null || GENERATE_NULL_ITEMS);
    return `[${items.map(toJson).join(',')}]`;
  }
  return `{${Object.entries(v)
    .map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`)
    .join(',')}}`;
}

/**
 * YAML text; raw numbers become their closest float (or a string when out of
 * range) so no .inf/.nan is written, and deep RawJson goes in as a flow
 * collection (JSON is YAML), long strings double-quoted, after the rest is dumped.
 */
export function toYamlText(v: Value): string {
  const deep: string[] = [];
  const json = toJson(replaceRawJson(v, deep));
  const plain = JSON.parse(json, (_k, x: unknown) => (typeof x === 'number' && !Number.isFinite(x) ? String(x) : x)) as unknown;
  let text = dump(plain, { noRefs: true, lineWidth: -1 });
  deep.forEach((t, i) => (text = text.split(`'${DEEP_MARK}${i}'`).join(t)));
  return text;
}

const DEEP_MARK = '@@deep-json-';

/** js-yaml's plain-scalar check recurses with a string's length: long strings go in double-quoted after the dump. */
const LONG_STRING = 16 * 1024;

function yamlQuoted(s: string): string {
  // eslint-disable-next-line no-control-regex
  return JSON.stringify(s).replace(/[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function replaceRawJson(v: Value, found: string[]): Value {
  if (v instanceof RawJson || (typeof v === 'string' && v.length >= LONG_STRING)) {
    found.push(v instanceof RawJson ? v.text : yamlQuoted(v));
    return `${DEEP_MARK}${found.length - 1}`;
  }
  if (isLeaf(v)) return v;
  if (Array.isArray(v)) return v.map((x) => replaceRawJson(x ?? null, found));
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.length >= LONG_STRING ? (replaceRawJson(k, found) as string) : k, replaceRawJson(x, found)]));
}

/** YAML documents the limits work must bound: alias bombs, a self-referencing alias, special floats. */
function yamlBomb(levels: number): string {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: bomb}', 'l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i <= levels; i++) lines.push(`l${i}: &l${i} [${Array.from({ length: 10 }, () => `*l${i - 1}`).join(',')}]`);
  return lines.join('\n') + '\n';
}

const hostileYaml: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 3, max: 9 }).map(yamlBomb),
  fc.constantFrom('apiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: t, self: *m}\n', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: t}\ndata: {a: !!float .nan}\n', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: t}\nx: .inf\n'),
);

// ---- requests ----

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Addresses a seeded object or namespace: must change nothing (dry run or read). */
  seeded: boolean;
  /** Send the body chunked, without Content-Length (GENERATE_HOSTILE_SIZES only). */
  chunked?: boolean;
}

const ACCEPTS = [
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
  'application/json;as=Table;v=v1;g=meta.k8s.io',
  'application/json;as=Table;v=v1;g=meta.k8s.io, application/json',
  'application/yaml;as=Table;v=v1;g=meta.k8s.io',
  'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io',
  'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io',
  'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
  'application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;v=v1;g=meta.k8s.io',
  'application/json;as=Table;v=v1beta1;g=meta.k8s.io',
  '*/*',
  'application/*',
  'text/html',
  'application/json;q=0.5, application/yaml;q=0.9',
  'application/json;stream=watch',
  'garbage;;;',
];

const acceptArb: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 6, arbitrary: fc.constantFrom(...ACCEPTS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }).filter((s) => /^[\x20-\x7e]*$/.test(s)) },
);

const queryParam: fc.Arbitrary<[string, string]> = fc.oneof(
  fc.tuple(fc.constant('resourceVersion'), fc.constantFrom('0', '', '1', '5', 'abc', '-1', '18446744073709551616', '00')),
  // A future resourceVersion makes a read wait up to 3 s for it (then 504, as kube): rare, to keep runs short.
  fc.tuple(fc.constant('resourceVersion'), fc.integer({ min: 0, max: 99 }).map((n) => (n === 0 ? '99999999' : '0'))),
  fc.tuple(fc.constant('resourceVersionMatch'), fc.constantFrom('NotOlderThan', 'Exact', 'bogus', '')),
  fc.tuple(fc.constant('limit'), fc.constantFrom('-1', '0', '1', '2', '500', '99999999999999999999', 'abc', '1.5')),
  fc.tuple(fc.constant('continue'), fc.oneof(fc.constantFrom('', 'abc', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ4In0', '!!!'), fc.base64String({ maxLength: 40 }))),
  fc.tuple(
    fc.constant('fieldSelector'),
    fc.constantFrom('metadata.name=s1', 'metadata.namespace!=x', 'metadata.name==s1', 'spec.nodeName=', 'status.phase=Running', 'bogus=1', 'a==b==c', ',', 'metadata.name in (a)', ''),
  ),
  fc.tuple(
    fc.constant('labelSelector'),
    fc.constantFrom('app=fuzz', 'app in (fuzz,x)', '!app', 'app!=', 'a b', 'app=fuzz,tier notin (y)', '=', 'x,', '', 'a'.repeat(70) + '=b'),
  ),
  fc.tuple(fc.constant('timeoutSeconds'), fc.constantFrom('0', '1', '-1', 'abc', '3')),
  fc.tuple(fc.constant('dryRun'), fc.constantFrom('All', 'bogus', '')),
  fc.tuple(fc.constant('fieldValidation'), fc.constantFrom('Strict', 'Warn', 'Ignore', 'bogus', '')),
  fc.tuple(fc.constant('fieldManager'), fc.oneof(fc.constantFrom('fuzzer', '', 'm'.repeat(129), 'kubectl-client-side-apply', 'é'), fc.string({ maxLength: 12 }))),
  fc.tuple(fc.constant('force'), fc.constantFrom('true', 'false', '1', 'x')),
  fc.tuple(fc.constant('pretty'), fc.constantFrom('true', '1', 'false')),
  fc.tuple(fc.constant('propagationPolicy'), fc.constantFrom('Foreground', 'Background', 'Orphan', 'bogus')),
  fc.tuple(fc.constant('gracePeriodSeconds'), fc.constantFrom('0', '30', '-1', 'x')),
  fc.tuple(fc.constant('sendInitialEvents'), fc.constantFrom('true', 'false')),
  fc.tuple(fc.constant('includeObject'), fc.constantFrom('None', 'Object', 'Metadata', 'bogus')),
  fc.tuple(fc.constant('allowWatchBookmarks'), fc.constantFrom('true', 'false')),
  fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })).filter(([k]) => !/^(watch|follow)$/i.test(k)),
);

function queryString(params: readonly (readonly [string, string])[]): string {
  if (params.length === 0) return '';
  return '?' + params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
}

interface Target {
  type: ResourceType;
  seeded: boolean;
  name: string;
  /** Namespace for namespaced types. */
  namespace: string;
}

const targetArb: fc.Arbitrary<Target> = fc
  .record({
    type: fc.constantFrom(...RESOURCE_TYPES),
    seeded: fc.boolean(),
    scratchName: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...SCRATCH_NAMES) }, { weight: 1, arbitrary: oddStrings.filter((s) => s.length > 0 && s.length < 300) }),
    seededName: fc.constantFrom(...SEEDED_NAMES),
    otherNamespace: fc.constantFrom('default', 'missing-ns', 'Bad_NS'),
    nsChoice: fc.nat({ max: 9 }),
  })
  .map(({ type, seeded, scratchName, seededName, otherNamespace, nsChoice }) => {
    const namespace = seeded ? SEEDED_NAMESPACE : nsChoice === 0 ? otherNamespace : SCRATCH_NAMESPACE;
    const name = seeded ? (type.namespaced ? seededName : `fuzz-${seededName}`) : type.namespaced ? scratchName : `fuzz-${scratchName}`;
    return { type, seeded, name, namespace };
  });

function collectionPath(t: Target): string {
  return t.type.namespaced ? `${t.type.groupVersion}/namespaces/${encodeURIComponent(t.namespace)}/${t.type.resource}` : `${t.type.groupVersion}/${t.type.resource}`;
}

function objectPath(t: Target, subresource?: string): string {
  return `${collectionPath(t)}/${encodeURIComponent(t.name)}${subresource ? `/${subresource}` : ''}`;
}

/** A body of some object, as JSON or YAML, with its declared content type. */
function objectBody(t: Target): fc.Arbitrary<{ body: string; contentType: string }> {
  return fc
    .record({
      obj: mutatedObject(t.type, t.name),
      form: fc.constantFrom('json', 'json', 'yaml', 'garbled', 'other-ct'),
      ct: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'text/plain', '', 'application/json-patch+json'),
      cut: fc.nat(),
    })
    .chain((r) => fc.tuple(fc.constant(r), GENERATE_HOSTILE_SIZES ? fc.option(hostileYaml, { freq: 20, nil: undefined }) : fc.constant(undefined)))
    .map(([{ obj, form, ct, cut }, bomb]) => {
      if (bomb !== undefined) return { body: bomb, contentType: 'application/yaml' };
      if (form === 'yaml') return { body: toYamlText(obj), contentType: 'application/yaml' };
      const json = toJson(obj);
      if (form === 'garbled') return { body: json.slice(0, cut % (json.length + 1)), contentType: 'application/json' };
      if (form === 'other-ct') return { body: json, contentType: ct };
      return { body: json, contentType: 'application/json' };
    });
}

const jsonPatchOp: fc.Arbitrary<Value> = fc
  .record({
    op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus', ''),
    path: fc.oneof(pathArb.map((p) => '/' + p.map((s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')), fc.constantFrom('', '/', '/metadata/labels/-', '/spec/containers/-', 'no-slash', '/~2')),
    from: fc.option(pathArb.map((p) => '/' + p.join('/')), { nil: undefined }),
    value: fc.option(anyValue, { nil: undefined }),
    extra: fc.option(fc.tuple(keys, scalar), { nil: undefined }),
  })
  .map(({ op, path, from, value, extra }) => {
    const o: { [k: string]: Value } = { op, path };
    if (from !== undefined) o.from = from;
    // A null added at a list index is a null list item (see GENERATE_NULL_ITEMS).
    const intoList = /\/(\d+|-)$/.test(path);
    if (value !== undefined && (value !== null || !intoList || GENERATE_NULL_ITEMS)) o.value = value;
    if (extra !== undefined) o[extra[0]] = extra[1];
    return o;
  });

const smpDirective: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ path: fc.constantFrom<Path>([], ['metadata'], ['spec'], ['metadata', 'labels'], ['spec', 'containers', 0]), value: fc.constantFrom<Value>('replace', 'delete', 'merge', 'bogus', true) }).map((m) => ({ path: [...m.path, '$patch'], value: m.value })),
  fc.record({ path: fc.constantFrom<Path>(['spec', 'containers'], ['spec', 'tolerations'], ['spec', 'ports'], ['rules'], ['metadata', 'ownerReferences']), value: fc.array(fc.oneof(anyValue, fc.constant<Value>({ $patch: 'delete' }), fc.constant<Value>({ name: 'c', $patch: 'delete' }), fc.constant<Value>({ $patch: 'replace' })), { maxLength: 3 }) }),
  fc.record({ path: fc.constantFrom<Path>(['spec', '$setElementOrder/containers'], ['spec', '$setElementOrder/ports'], ['metadata', '$deleteFromPrimitiveList/finalizers'], ['$retainKeys'], ['spec', '$retainKeys']), value: anyValue }),
  fc.record({ path: fc.constantFrom<Path>(['spec', 'containers'], ['spec', 'ports']), value: fc.constantFrom<Value>({ $patch: 'delete' }, { $patch: 'replace' }, [], null) }),
);

/** A patch of some type with its content type. */
function patchBody(t: Target): fc.Arbitrary<{ body: string; contentType: string }> {
  const partial = fc.array(mutation, { minLength: 1, maxLength: 3 }).map((ms) => {
    const obj: { [k: string]: Value } = {};
    for (const m of ms) setPath(obj, m.path, m.value === undefined ? null : m.value);
    return obj;
  });
  return fc.oneof(
    fc.array(jsonPatchOp, { maxLength: 4 }).map((ops) => ({ body: toJson(ops), contentType: 'application/json-patch+json' })),
    partial.map((p) => ({ body: toJson(p), contentType: 'application/merge-patch+json' })),
    fc.tuple(partial, fc.array(smpDirective, { maxLength: 3 })).map(([p, ds]) => {
      for (const d of ds) setPath(p, d.path, d.value);
      return { body: toJson(p), contentType: 'application/strategic-merge-patch+json' };
    }),
    fc.tuple(mutatedObject(t.type, t.name), fc.boolean()).map(([o, yaml]) => ({ body: yaml ? toYamlText(o) : toJson(o), contentType: 'application/apply-patch+yaml' })),
    fc.constantFrom(
      { body: 'null', contentType: 'application/merge-patch+json' },
      { body: '"str"', contentType: 'application/strategic-merge-patch+json' },
      { body: '[]', contentType: 'application/merge-patch+json' },
      { body: '{', contentType: 'application/json-patch+json' },
      { body: '', contentType: 'application/apply-patch+yaml' },
      { body: '{}', contentType: 'application/json' },
      { body: '{}', contentType: 'application/apply-patch+cbor' },
      { body: 'a: [', contentType: 'application/apply-patch+yaml' },
    ),
  );
}

/**
 * DeleteOptions bodies, some wrongly typed (kube's decoder refuses those).
 * With a body, kube reads no option from the query, so a seeded target gets
 * its dry run in the body.
 */
function deleteOptions(seeded: boolean): fc.Arbitrary<string | undefined> {
  const body = fc
    .record({
      kind: fc.constantFrom<Value>('DeleteOptions', 'DeleteOptions', 'Status', 5),
      apiVersion: fc.constantFrom<Value>('v1', 'meta.k8s.io/v1', 'bogus/v9'),
      propagationPolicy: fc.option(fc.constantFrom<Value>('Orphan', 'Background', 'Foreground', 'x', '', 1), { nil: undefined }),
      gracePeriodSeconds: fc.option(fc.oneof(fc.constantFrom<Value>(0, 1, 30, -1, 2 ** 40), oddNumbers), { nil: undefined }),
      preconditions: fc.option(fc.record({ uid: fc.oneof(fc.constantFrom<Value>('', 'u', 'x'.repeat(40)), scalar), resourceVersion: fc.constantFrom<Value>('', '1', 'abc', 1) }), { nil: undefined }),
      orphanDependents: fc.option(fc.constantFrom<Value>(true, false, 'true'), { nil: undefined }),
      dryRun: fc.option(fc.constantFrom<Value>(['All'], ['x'], [], 'All'), { nil: undefined }),
    })
    .map((o) => {
      const fields = Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [k: string]: Value };
      if (seeded) fields.dryRun = ['All'];
      return toJson(fields);
    });
  return fc.option(body, { nil: undefined });
}

type Verb = 'get' | 'list' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection' | 'subresource';

export const requestArb: fc.Arbitrary<FuzzRequest> = fc
  .record({
    verb: fc.constantFrom<Verb>('get', 'list', 'list', 'create', 'create', 'update', 'patch', 'patch', 'patch', 'delete', 'deletecollection', 'subresource'),
    target: targetArb,
    params: fc.array(queryParam, { maxLength: 4 }),
    accept: acceptArb,
    seed: fc.nat(),
  })
  .chain(({ verb, target, params, accept, seed }) => {
    const chunked = GENERATE_HOSTILE_SIZES && seed % 7 === 0 ? { chunked: true } : {};
    const headers: Record<string, string> = accept === undefined ? {} : { Accept: accept };
    let query = params.filter(([k]) => !target.seeded || k !== 'dryRun');
    // A write to a seeded object is always a dry run: the objects must come out unchanged.
    const write = verb !== 'get' && verb !== 'list';
    if (target.seeded && write) query = [...query, ['dryRun', 'All']];
    const qs = queryString(query);
    const withBody = (method: string, path: string, b: fc.Arbitrary<{ body: string; contentType: string }>): fc.Arbitrary<FuzzRequest> =>
      b.map(({ body, contentType }) => ({ method, path: path + qs, headers: contentType ? { ...headers, 'Content-Type': contentType } : headers, body, seeded: target.seeded, ...chunked }));
    const plain = (method: string, path: string): fc.Arbitrary<FuzzRequest> => fc.constant({ method, path: path + qs, headers, seeded: target.seeded });
    switch (verb) {
      case 'get':
        return plain('GET', objectPath(target));
      case 'list':
        return plain('GET', seed % 5 === 0 && target.type.namespaced ? `${target.type.groupVersion}/${target.type.resource}` : collectionPath(target));
      case 'create':
        return withBody('POST', collectionPath(target), objectBody(target));
      case 'update':
        return withBody('PUT', objectPath(target), objectBody(target));
      case 'patch':
        return withBody('PATCH', objectPath(target), patchBody(target));
      case 'delete':
        return deleteOptions(target.seeded).chain((b) => (b === undefined ? plain('DELETE', objectPath(target)) : withBody('DELETE', objectPath(target), fc.constant({ body: b, contentType: 'application/json' }))));
      case 'deletecollection':
        // Only a dry run may reach the seeded namespace or cluster-scoped collections.
        if (!target.type.namespaced && !target.seeded) return plain('GET', collectionPath(target));
        return plain('DELETE', collectionPath(target));
      case 'subresource': {
        const sub = target.type.subresources[seed % Math.max(1, target.type.subresources.length)] ?? 'status';
        const m = seed % 3;
        if (m === 0) return plain('GET', objectPath(target, sub));
        if (m === 1) return withBody('PUT', objectPath(target, sub), objectBody(target));
        return withBody('PATCH', objectPath(target, sub), patchBody(target));
      }
    }
  });
