/**
 * Generates src/codec/protobuf/generated/k8s-proto.json: the message
 * descriptors the protobuf codec needs, derived from the upstream Kubernetes
 * 1.36 data in ../shared/k8s-api (override the directory with
 * CAPSTAN_SHARED_DIR):
 *
 *  - proto/k8s.io/**\/generated.proto: messages, field numbers, types, labels;
 *  - openapi-v2.json: which fields are Go `json:",inline"` embedded structs
 *    (a proto field with no JSON property of its own whose message's fields
 *    are properties of the parent), which are `required` (no omitempty, so a
 *    zero value still shows in JSON), and which types carry TypeMeta;
 *  - testdata/HEAD file names: a check that every fixture kind resolves.
 *
 * Facts neither source carries live in the tables below (which package is
 * which API group; which scalar fields are Go pointers).
 *
 * Run: npx tsc -p tsconfig.json && node dist/scripts/generate-proto.js [--check]
 */
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  FIELD_INLINE,
  FIELD_MAP,
  FIELD_OMITEMPTY,
  FIELD_OMITZERO,
  FIELD_POINTER,
  FIELD_REPEATED,
  FIELD_REQUIRED,
  type FieldDesc,
  type MessageDesc,
  type ProtoDescriptorFile,
  type SpecialKind,
} from '../src/codec/protobuf/descriptor-types.js';
import { GO_POINTER_FIELDS } from '../src/codec/protobuf/go-pointer-fields.js';
import { GO_NOT_OMITEMPTY, GO_OMITZERO, GO_POINTER_STRUCTS, GO_REQUIRED_OMITEMPTY, GO_VALUE_STRUCTS } from '../src/codec/protobuf/go-json-facts.js';

const OUTPUT = 'src/codec/protobuf/generated/k8s-proto.json';
const SCALARS = new Set(['string', 'int32', 'int64', 'bool', 'bytes']);

/** k8s.io/api directory → API group name (each package's register.go GroupName). */
const API_GROUPS: Record<string, string> = {
  admission: 'admission.k8s.io',
  admissionregistration: 'admissionregistration.k8s.io',
  apidiscovery: 'apidiscovery.k8s.io',
  apiserverinternal: 'internal.apiserver.k8s.io',
  apps: 'apps',
  authentication: 'authentication.k8s.io',
  authorization: 'authorization.k8s.io',
  autoscaling: 'autoscaling',
  batch: 'batch',
  certificates: 'certificates.k8s.io',
  coordination: 'coordination.k8s.io',
  core: '',
  discovery: 'discovery.k8s.io',
  events: 'events.k8s.io',
  extensions: 'extensions',
  flowcontrol: 'flowcontrol.apiserver.k8s.io',
  imagepolicy: 'imagepolicy.k8s.io',
  networking: 'networking.k8s.io',
  node: 'node.k8s.io',
  policy: 'policy',
  rbac: 'rbac.authorization.k8s.io',
  resource: 'resource.k8s.io',
  scheduling: 'scheduling.k8s.io',
  storage: 'storage.k8s.io',
  storagemigration: 'storagemigration.k8s.io',
};

const META_V1 = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const META_V1BETA1 = 'k8s.io.apimachinery.pkg.apis.meta.v1beta1';

/**
 * metav1.AddToGroupVersion registers WatchEvent and the option types in every
 * group version, and Status plus the discovery types as unversioned kinds.
 */
const META_KINDS = [
  'WatchEvent',
  'ListOptions',
  'GetOptions',
  'DeleteOptions',
  'CreateOptions',
  'UpdateOptions',
  'PatchOptions',
  'Status',
  'APIVersions',
  'APIGroupList',
  'APIGroup',
  'APIResourceList',
];

/**
 * Go types with TypeMeta that the OpenAPI document does not describe: the
 * metadata-only views (Accept ...;as=PartialObjectMetadata[List]), whose
 * envelope kube's protobuf serializer writes with the view's kind and group
 * version like any object's.
 */
const VIEW_TYPE_META = [`${META_V1}.PartialObjectMetadata`, `${META_V1}.PartialObjectMetadataList`, `${META_V1BETA1}.PartialObjectMetadataList`];

/** Messages with a hand-written JSON form upstream. */
const SPECIAL: Record<string, SpecialKind> = {
  [`${META_V1}.Time`]: 'time',
  [`${META_V1}.MicroTime`]: 'microtime',
  [`${META_V1}.Duration`]: 'duration',
  [`${META_V1}.FieldsV1`]: 'fieldsv1',
  'k8s.io.apimachinery.pkg.api.resource.Quantity': 'quantity',
  'k8s.io.apimachinery.pkg.api.resource.QuantityValue': 'quantity',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'intorstring',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': 'rawextension',
};

// ---------------------------------------------------------------------------
// .proto parsing (the go-to-protobuf output: proto2, top-level messages only)

interface ParsedField {
  label: 'optional' | 'repeated' | 'map';
  type: string;
  name: string;
  number: number;
  /** The field's comment carries `+optional` / `+required` (kube-openapi's tags, copied from the Go source). */
  optionalTag: boolean;
  requiredTag: boolean;
}

interface ParsedMessage {
  name: string;
  fields: ParsedField[];
  /** `+protobuf.nullable=true` on a []string type: marshalled as {items}. */
  nullableSlice: boolean;
}

interface ParsedFile {
  pkg: string;
  path: string;
  messages: ParsedMessage[];
}

function parseProto(text: string, path: string): ParsedFile {
  let pkg = '';
  const messages: ParsedMessage[] = [];
  let current: ParsedMessage | undefined;
  let comments: string[] = [];
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!.trim();
    const where = `${path}:${n + 1}`;
    if (line === '' ) continue;
    if (line.startsWith('//')) {
      comments.push(line);
      continue;
    }
    if (line.startsWith('/*')) {
      while (!lines[n]!.includes('*/')) n++;
      continue;
    }
    let m: RegExpMatchArray | null;
    if (current === undefined) {
      if ((m = /^package\s+([\w.]+);$/.exec(line))) pkg = m[1]!;
      else if ((m = /^message\s+(\w+)\s*\{$/.exec(line))) {
        current = { name: m[1]!, fields: [], nullableSlice: comments.some((c) => /\+protobuf\.nullable=true/.test(c)) };
      } else if (!/^(syntax|import|option)\b/.test(line)) throw new Error(`${where}: unexpected top-level line: ${line}`);
    } else if (line === '}') {
      messages.push(current);
      current = undefined;
    } else if ((m = /^(optional|repeated)\s+([\w.]+)\s+(\w+)\s*=\s*(\d+);$/.exec(line))) {
      current.fields.push({ label: m[1] as 'optional' | 'repeated', type: m[2]!, name: m[3]!, number: Number(m[4]), ...commentTags(comments) });
    } else if ((m = /^map<\s*(\w+)\s*,\s*([\w.]+)\s*>\s+(\w+)\s*=\s*(\d+);$/.exec(line))) {
      if (m[1] !== 'string') throw new Error(`${where}: map key type ${m[1]} is not supported`);
      current.fields.push({ label: 'map', type: m[2]!, name: m[3]!, number: Number(m[4]), ...commentTags(comments) });
    } else {
      throw new Error(`${where}: unsupported construct inside message ${current.name}: ${line}`);
    }
    comments = [];
  }
  if (current !== undefined) throw new Error(`${path}: unterminated message ${current.name}`);
  if (pkg === '') throw new Error(`${path}: no package`);
  return { pkg, path, messages };
}

function commentTags(comments: readonly string[]): { optionalTag: boolean; requiredTag: boolean } {
  return {
    optionalTag: comments.some((c) => /^\/\/\s*\+optional\s*$/.test(c)),
    requiredTag: comments.some((c) => /^\/\/\s*\+required\s*$/.test(c)),
  };
}

function findProtos(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...findProtos(p));
    else if (entry.name === 'generated.proto') out.push(p);
  }
  return out.sort();
}

// ---------------------------------------------------------------------------
// OpenAPI facts

interface OpenApiDef {
  properties?: Record<string, unknown>;
  required?: string[];
}

/** OpenAPI definitions are named after the Go package path: io.k8s.api.core.v1.Pod for k8s.io.api.core.v1.Pod. */
function openApiName(message: string): string {
  return 'io.k8s.' + message.slice('k8s.io.'.length);
}

/**
 * Keys of the pointer table, most specific first: "<api dir>.<version>.<Message>" for a
 * version that differs, "<api dir>.<Message>" for every version of a group,
 * "meta.<Message>" and so on for apimachinery types.
 */
function pointerKeys(full: string): string[] {
  const pkg = full.slice(0, full.lastIndexOf('.'));
  const name = full.slice(full.lastIndexOf('.') + 1);
  const dir = apiDir(pkg);
  if (dir !== undefined) return [`${dir}.${pkg.slice(pkg.lastIndexOf('.') + 1)}.${name}`, `${dir}.${name}`];
  const m = /^k8s\.io\.apimachinery\.pkg\.(?:apis\.)?(.+)$/.exec(pkg);
  return [`${m ? m[1]!.replace(/\.v1$/, '') : pkg}.${name}`];
}

/** The k8s.io/api directory of a package, e.g. "apps" for k8s.io.api.apps.v1. */
function apiDir(pkg: string): string | undefined {
  const m = /^k8s\.io\.api\.(\w+)\.\w+$/.exec(pkg);
  return m ? m[1] : undefined;
}

// ---------------------------------------------------------------------------
// Go json facts (go-json-facts.ts)

type FactTable = Record<string, readonly string[]>;

/** The fact tables, looked up by message and JSON name; remembers which entries matched a field. */
class FactTables {
  private readonly used = new Set<string>();
  constructor(private readonly tables: Record<string, FactTable>) {}

  has(table: string, full: string, name: string): boolean {
    const t = this.tables[table]!;
    const key = pointerKeys(full).find((k) => t[k] !== undefined);
    if (key === undefined || !t[key]!.includes(name)) return false;
    this.used.add(`${table} ${key}.${name}`);
    return true;
  }

  unused(): string[] {
    const out: string[] = [];
    for (const [table, t] of Object.entries(this.tables)) {
      for (const [key, names] of Object.entries(t)) for (const n of names) if (!this.used.has(`${table} ${key}.${n}`)) out.push(`${table}: ${key}.${n} matches no field`);
    }
    return out;
  }
}

const VALUE_STRUCT_TYPES = new Set([`${META_V1}.ObjectMeta`, `${META_V1}.ListMeta`]);

/**
 * FIELD_OMITEMPTY, FIELD_OMITZERO and (for messages) FIELD_POINTER of one
 * field, by the rules in go-json-facts.ts and its exceptions.
 */
function goJsonFlags(full: string, f: ParsedField, name: string, type: string, def: OpenApiDef | undefined, required: Set<string>, facts: FactTables): number {
  let omitempty: boolean;
  if (f.optionalTag) omitempty = !facts.has('GO_NOT_OMITEMPTY', full, name);
  else if (f.requiredTag) omitempty = facts.has('GO_REQUIRED_OMITEMPTY', full, name);
  else omitempty = def === undefined ? true : !required.has(name);
  let flags = omitempty ? FIELD_OMITEMPTY : 0;
  if (facts.has('GO_OMITZERO', full, name)) flags |= FIELD_OMITZERO;
  if (f.label === 'optional' && !SCALARS.has(type)) {
    const valueByRule = VALUE_STRUCT_TYPES.has(type) || name === 'spec' || name === 'status';
    const value = valueByRule ? !facts.has('GO_POINTER_STRUCTS', full, name) : facts.has('GO_VALUE_STRUCTS', full, name);
    if (!value) flags |= FIELD_POINTER;
  }
  return flags;
}

// ---------------------------------------------------------------------------

export interface GenerateResult {
  descriptor: ProtoDescriptorFile;
  warnings: string[];
  json: string;
}

export function generate(sharedRoot: string): GenerateResult {
  const api = join(sharedRoot, 'k8s-api');
  const protoRoot = join(api, 'proto');
  const files = findProtos(protoRoot).map((p) => parseProto(readFileSync(p, 'utf8'), relative(api, p)));
  const swagger = JSON.parse(readFileSync(join(api, 'openapi-v2.json'), 'utf8')) as {
    definitions: Record<string, OpenApiDef>;
  };
  const defs = swagger.definitions;
  const warnings: string[] = [];

  const parsed = new Map<string, { pkg: string; msg: ParsedMessage }>();
  for (const f of files) for (const msg of f.messages) parsed.set(`${f.pkg}.${msg.name}`, { pkg: f.pkg, msg });

  const resolveType = (pkg: string, type: string, where: string): string => {
    if (SCALARS.has(type)) return type;
    const full = type.startsWith('.') ? type.slice(1) : `${pkg}.${type}`;
    if (!parsed.has(full)) throw new Error(`${where}: unknown type ${type}`);
    return full;
  };

  /**
   * The JSON name of a proto field. They are equal but for a few fields whose
   * proto name kept the Go spelling (Webhooks, uID, aPIGroup): those match an
   * OpenAPI property case-insensitively.
   */
  const jsonName = (f: ParsedField, def: OpenApiDef | undefined): string | undefined => {
    const props = def?.properties;
    if (props === undefined) return f.name;
    if (f.name in props) return f.name;
    const lower = f.name.toLowerCase();
    return Object.keys(props).find((p) => p.toLowerCase() === lower);
  };

  /** JSON property names a message contributes to its parent when inlined (recursively). */
  const inlinedNames = (full: string, seen: Set<string> = new Set()): string[] | undefined => {
    if (seen.has(full)) return undefined;
    seen.add(full);
    const sub = parsed.get(full);
    if (!sub || sub.msg.fields.length === 0) return undefined;
    const own = defs[openApiName(full)];
    const names: string[] = [];
    for (const f of sub.msg.fields) {
      const name = jsonName(f, own);
      if (name !== undefined) names.push(name);
      else if (f.label === 'optional' && !SCALARS.has(f.type)) {
        const nested = inlinedNames(resolveType(sub.pkg, f.type, full), seen);
        if (nested === undefined) return undefined;
        names.push(...nested);
      } else return undefined;
    }
    return names;
  };

  const isInlineCandidate = (pkg: string, f: ParsedField, def: OpenApiDef): boolean => {
    if (f.label !== 'optional' || SCALARS.has(f.type)) return false;
    const names = inlinedNames(resolveType(pkg, f.type, f.name));
    return names !== undefined && names.every((n) => def.properties !== undefined && n in def.properties);
  };

  /**
   * The OpenAPI definition describing a message. Versions that are no longer
   * served (apps/v1beta1, extensions/v1beta1, ...) have none; the same-named
   * type of a served version (of the same group first, else of the group the
   * type moved to) stands in when it accounts for every field.
   */
  const defFor = (full: string): OpenApiDef | undefined => {
    const own = defs[openApiName(full)];
    if (own) return own;
    const { pkg, msg } = parsed.get(full)!;
    const dir = apiDir(pkg);
    if (dir === undefined) return undefined;
    const siblings = [...parsed.keys()]
      .filter((k) => k !== full && apiDir(k.slice(0, k.lastIndexOf('.'))) !== undefined && k.endsWith(`.${msg.name}`))
      // the same group first: extensions/v1beta1 types moved to apps, networking and policy
      .sort((a, b) => Number(apiDir(b.slice(0, b.lastIndexOf('.'))) === dir) - Number(apiDir(a.slice(0, a.lastIndexOf('.'))) === dir) || (a < b ? -1 : a > b ? 1 : 0));
    for (const s of siblings) {
      const def = defs[openApiName(s)];
      if (def?.properties && msg.fields.every((f) => jsonName(f, def) !== undefined || isInlineCandidate(pkg, f, def))) return def;
    }
    return undefined;
  };

  const messages: Record<string, MessageDesc> = {};
  const pointerUsed = new Set<string>();
  const facts = new FactTables({ GO_NOT_OMITEMPTY, GO_REQUIRED_OMITEMPTY, GO_OMITZERO, GO_VALUE_STRUCTS, GO_POINTER_STRUCTS });
  const noDef: string[] = [];
  for (const full of [...parsed.keys()].sort()) {
    const { pkg, msg } = parsed.get(full)!;
    const def = defFor(full);
    const special = SPECIAL[full] ?? (msg.nullableSlice ? 'array' : undefined);
    const required = new Set(def?.required ?? []);
    const pointerKey = pointerKeys(full).find((k) => GO_POINTER_FIELDS[k] !== undefined);
    const pointerNames = pointerKey === undefined ? undefined : GO_POINTER_FIELDS[pointerKey];
    const fields: FieldDesc[] = msg.fields.map((f) => {
      const type = resolveType(pkg, f.type, `${full}.${f.name}`);
      let flags = f.label === 'repeated' ? FIELD_REPEATED : f.label === 'map' ? FIELD_MAP : 0;
      let name = f.name;
      if (def?.properties && special === undefined) {
        const j = jsonName(f, def);
        if (j !== undefined) name = j;
        else if (isInlineCandidate(pkg, f, def)) flags |= FIELD_INLINE;
        else warnings.push(`${full}.${f.name}: no OpenAPI property and not an inline struct`);
        if (required.has(name)) flags |= FIELD_REQUIRED;
      } else if (def === undefined && special === undefined && /^[A-Z]/.test(name)) {
        warnings.push(`${full}.${f.name}: proto name looks like a Go name and no OpenAPI definition gives the JSON name`);
      }
      if (pointerNames?.includes(name)) {
        if (!SCALARS.has(type) || f.label !== 'optional') throw new Error(`${full}.${f.name}: the pointer table names a field that is not a singular scalar`);
        flags |= FIELD_POINTER;
        pointerUsed.add(`${pointerKey!}.${name}`);
      }
      if ((flags & FIELD_INLINE) === 0 && special === undefined) flags |= goJsonFlags(full, f, name, type, def, required, facts);
      return [name, f.number, type, flags];
    });
    if (def === undefined && special === undefined) noDef.push(full);
    const desc: MessageDesc = { fields };
    if (special !== undefined) desc.special = special;
    if (def?.properties && 'kind' in def.properties && 'apiVersion' in def.properties) desc.typeMeta = true;
    messages[full] = desc;
  }

  for (const full of VIEW_TYPE_META) {
    const desc = messages[full];
    if (desc === undefined) throw new Error(`view type ${full} has no message`);
    desc.typeMeta = true;
  }
  // meta/v1beta1.PartialObjectMetadata is a Go alias of the v1 type, registered in v1beta1 too.
  messages[`${META_V1BETA1}.PartialObjectMetadata`] = messages[`${META_V1}.PartialObjectMetadata`]!;

  warnings.push(...facts.unused());
  for (const [key, names] of Object.entries(GO_POINTER_FIELDS)) {
    for (const n of names) if (!pointerUsed.has(`${key}.${n}`)) warnings.push(`pointer table: ${key}.${n} matches no field`);
  }

  if (process.env['CAPSTAN_PROTO_DEBUG']) for (const n of noDef) warnings.push(`no OpenAPI definition: ${n}`);

  // Group versions.
  const groupVersions: Record<string, string> = {};
  for (const f of files) {
    const dir = apiDir(f.pkg);
    if (dir === undefined) continue;
    const group = API_GROUPS[dir];
    if (group === undefined) throw new Error(`${f.path}: no API group known for k8s.io/api/${dir}`);
    const version = f.pkg.slice(f.pkg.lastIndexOf('.') + 1);
    groupVersions[group === '' ? version : `${group}/${version}`] = f.pkg;
  }
  groupVersions['meta.k8s.io/v1'] = META_V1;
  groupVersions['meta.k8s.io/v1beta1'] = META_V1BETA1;

  const metaKinds: Record<string, string> = {};
  for (const k of META_KINDS) {
    if (!messages[`${META_V1}.${k}`]) throw new Error(`meta kind ${k} has no message`);
    metaKinds[k] = `${META_V1}.${k}`;
  }

  // Served by every group as a view (Accept as=…) but with no OpenAPI definition: they embed TypeMeta.
  for (const name of [`${META_V1}.PartialObjectMetadata`, `${META_V1}.PartialObjectMetadataList`, `${META_V1}.TableOptions`, `${META_V1BETA1}.PartialObjectMetadataList`]) {
    if (messages[name]) messages[name]!.typeMeta = true;
  }

  // A type with TypeMeta but no OpenAPI definition (unserved versions, review types): its
  // fixture's JSON shows kind. Check the fixtures resolve while at it.
  const testdata = join(api, 'testdata', 'HEAD');
  if (existsSync(testdata)) {
    for (const file of readdirSync(testdata).filter((n) => n.endsWith('.json')).sort()) {
      const parts = file.slice(0, -'.json'.length).split('.');
      const kind = parts.pop()!;
      const version = parts.pop()!;
      const group = parts.join('.');
      const gv = group === 'core' ? version : `${group}/${version}`;
      const pkg = groupVersions[gv];
      const full = pkg !== undefined && messages[`${pkg}.${kind}`] ? `${pkg}.${kind}` : metaKinds[kind];
      if (full === undefined) {
        warnings.push(`fixture ${file}: no message for ${gv} ${kind}`);
        continue;
      }
      const json = JSON.parse(readFileSync(join(testdata, file), 'utf8')) as Record<string, unknown>;
      const hasTypeMeta = 'kind' in json && 'apiVersion' in json;
      const desc = messages[full]!;
      if (hasTypeMeta && !desc.typeMeta) desc.typeMeta = true;
      if (!hasTypeMeta && desc.typeMeta) warnings.push(`fixture ${file}: ${full} has TypeMeta in OpenAPI but not in JSON`);
    }
  } else {
    warnings.push(`no ${testdata}: fixture checks skipped`);
  }

  const descriptor: ProtoDescriptorFile = {
    source:
      'Generated by scripts/generate-proto.ts from ../shared/k8s-api (Kubernetes 1.36): ' +
      'proto/k8s.io/{api,apimachinery}/**/generated.proto (kubernetes/api and kubernetes/apimachinery v0.36.3), ' +
      'openapi-v2.json (inline, required and TypeMeta facts) and testdata/HEAD (TypeMeta of unserved versions). ' +
      'Do not edit; run `node dist/scripts/generate-proto.js`.',
    generator: 'scripts/generate-proto.ts',
    groupVersions: sortKeys(groupVersions),
    metaKinds,
    messages,
  };
  return { descriptor, warnings, json: serialize(descriptor) };
}

function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** One message per line: small enough to load fast, still diffable. */
function serialize(d: ProtoDescriptorFile): string {
  const lines: string[] = ['{'];
  lines.push(`"source":${JSON.stringify(d.source)},`);
  lines.push(`"generator":${JSON.stringify(d.generator)},`);
  lines.push(`"groupVersions":${JSON.stringify(d.groupVersions)},`);
  lines.push(`"metaKinds":${JSON.stringify(d.metaKinds)},`);
  lines.push('"messages":{');
  const entries = Object.entries(d.messages);
  entries.forEach(([name, m], i) => lines.push(`${JSON.stringify(name)}:${JSON.stringify(m)}${i < entries.length - 1 ? ',' : ''}`));
  lines.push('}}');
  return lines.join('\n') + '\n';
}

export function repoRoot(): string {
  // dist/scripts/generate-proto.js → repo root
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
}

export function sharedDir(root: string): string {
  return process.env['CAPSTAN_SHARED_DIR'] ?? resolve(root, '..', 'shared');
}

function main(): void {
  const root = repoRoot();
  const result = generate(sharedDir(root));
  for (const w of result.warnings) process.stderr.write(`warning: ${w}\n`);
  const out = join(root, OUTPUT);
  if (process.argv.includes('--check')) {
    const current = existsSync(out) ? readFileSync(out, 'utf8') : '';
    if (current !== result.json) {
      process.stderr.write(`${OUTPUT} is out of date; run node dist/scripts/generate-proto.js\n`);
      process.exit(1);
    }
    return;
  }
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, result.json);
  const n = Object.keys(result.descriptor.messages).length;
  process.stdout.write(`wrote ${OUTPUT}: ${n} messages, ${result.json.length} bytes\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
