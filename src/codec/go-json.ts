/**
 * A built-in object's JSON exactly as kube-apiserver writes it. kube decodes
 * every object into its Go struct and encodes it again with encoding/json, so
 * what a client sees follows the struct, not the JSON that was stored:
 *
 *  - TypeMeta first, then the struct fields in declaration order (the order
 *    of the .proto fields), map keys sorted by their UTF-8 bytes;
 *  - a field without omitempty is always written: zero scalars as 0, "" or
 *    false, nil slices, maps and pointers as null; a value struct is always
 *    written (omitempty never drops a struct), a zero one as its own zero
 *    (`{}`, a zero metav1.Time as null, a zero Quantity as "0"), unless the
 *    field has omitzero (ObjectMeta.creationTimestamp since 1.33);
 *  - a zero scalar, nil pointer, empty slice or map with omitempty is dropped;
 *  - Quantities, times and durations in their canonical text; RawExtension and
 *    FieldsV1 as stored (their MarshalJSON writes the raw bytes);
 *  - HTML-safe string escaping (`\u003c` `\u003e` `\u0026`, `\u2028` `\u2029`)
 *    and a newline after the value (json.Encoder).
 *
 * The facts per field (omitempty, pointer, order) come from the generated
 * protobuf descriptors (scripts/generate-proto.ts, protobuf/go-json-facts.ts).
 * Custom resources and kinds without a descriptor are written as stored.
 */
import { quantityString } from '../api/quantity.js';
import { fieldMessage, findKind, messageOf, type Field, type Message } from './protobuf/descriptor.js';
import { compareUtf8 } from './protobuf/encode.js';
import { formatGoDuration, formatRfc3339, GO_ZERO_TIME_SECONDS, parseGoDuration, parseRfc3339 } from './protobuf/wellknown.js';

type JsonObject = Record<string, unknown>;

/**
 * A map whose keys a JS object would reorder (array-index keys such as "10"
 * and "2" iterate numerically first): kept as entries, written by the slow
 * writer below. Rare; everything else is plain objects for JSON.stringify.
 */
class GoMapEntries {
  constructor(readonly entries: ReadonlyArray<readonly [string, unknown]>) {}
}

interface Walk {
  /** Set when a GoMapEntries was made: JSON.stringify cannot write the value. */
  ordered: boolean;
}

/** The message describing a built-in object of this apiVersion and kind, if there is one. */
export function goMessageFor(apiVersion: unknown, kind: unknown): Message | undefined {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  try {
    return findKind(apiVersion, kind);
  } catch {
    return undefined;
  }
}

/**
 * The Go JSON text of a whole object (TypeMeta included when present), or of
 * a list item when `item` is set (kube writes typed list items without
 * kind/apiVersion). No trailing newline: callers add it where Go's Encoder
 * would. Undefined when the object is not of a built-in kind.
 */
export function goJsonText(obj: JsonObject, opts: { item?: boolean; indent?: number; apiVersion?: string; kind?: string } = {}): string | undefined {
  try {
    return goJsonTextOf(obj, opts);
  } catch (err) {
    // The struct walk recurses per level: a value nested deeper than the stack allows (free-form
    // data within MAX_NESTING_DEPTH) is written as it is stored rather than failing the request.
    if (err instanceof RangeError) return undefined;
    throw err;
  }
}

function goJsonTextOf(obj: JsonObject, opts: { item?: boolean; indent?: number; apiVersion?: string; kind?: string }): string | undefined {
  const apiVersion = opts.apiVersion ?? obj['apiVersion'];
  const kind = opts.kind ?? obj['kind'];
  const msg = goMessageFor(apiVersion, kind);
  if (msg === undefined || msg.special !== undefined) return undefined;
  const walk: Walk = { ordered: false };
  const out: JsonObject = {};
  if (!opts.item) {
    // TypeMeta: kind and apiVersion, both omitempty; a type without TypeMeta (WatchEvent) has neither.
    const typeMeta = msg.typeMeta || obj['kind'] !== undefined;
    if (typeMeta && typeof kind === 'string' && kind !== '') out['kind'] = kind;
    if (typeMeta && typeof apiVersion === 'string' && apiVersion !== '') out['apiVersion'] = apiVersion;
  }
  writeStruct(msg, obj, out, walk);
  return stringify(out, walk, opts.indent);
}

/**
 * A built-in object as Go's struct holds it, as plain data (field order, zero
 * fields, canonical quantities and times): what the other encodings (CBOR)
 * write, so that they carry the same fields as the JSON. Undefined when the
 * object is not of a built-in kind.
 */
export function goShapedObject(obj: JsonObject, opts: { item?: boolean; apiVersion?: string; kind?: string } = {}): JsonObject | undefined {
  const text = goJsonText(obj, opts);
  return text === undefined ? undefined : (JSON.parse(text) as JsonObject);
}

/** The Go JSON value of a message (not text): for callers that embed it. */
export function goJsonOf(msg: Message, v: unknown): unknown {
  return messageValue(msg, v, { ordered: false });
}

/**
 * json.Marshal of a value of a versioned (json-tagged) API type, by its
 * protobuf message name (e.g. k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector):
 * what field.Error prints when a validator's bad value is such a struct.
 */
export function goTypedJsonText(typeName: string, v: unknown): string {
  const walk: Walk = { ordered: false };
  return stringify(messageValue(messageOf(typeName), v, walk), walk, undefined);
}

function stringify(value: unknown, walk: Walk, indent: number | undefined): string {
  const text = walk.ordered ? writeOrdered(value, indent ?? 0, '') : JSON.stringify(value, null, indent);
  return goEscapes(text);
}

const NEEDS_FIXUP = /[<>&\u2028\u2029]|\\ud[89a-f]/;
const FIXUPS = /[<>&\u2028\u2029]|\\\\|\\ud[89a-f][0-9a-f]{2}/g;

/**
 * JSON.stringify's text → Go's: HTML-safe escapes, and a lone surrogate
 * (which Go's decoder had already replaced) as U+FFFD. Other escapes agree.
 */
export function goEscapes(text: string): string {
  if (!NEEDS_FIXUP.test(text)) return text;
  return text.replace(FIXUPS, (m) => {
    switch (m) {
      case '<':
        return '\\u003c';
      case '>':
        return '\\u003e';
      case '&':
        return '\\u0026';
      case '\u2028':
        return '\\u2028';
      case '\u2029':
        return '\\u2029';
      case '\\\\':
        return m;
      default:
        return '\ufffd';
    }
  });
}

/** Writes a value holding GoMapEntries (JSON.stringify's layout otherwise). */
function writeOrdered(v: unknown, indent: number, prefix: string): string {
  const inner = indent > 0 ? prefix + ' '.repeat(indent) : '';
  const sep = indent > 0 ? ',\n' + inner : ',';
  const open = indent > 0 ? '\n' + inner : '';
  const close = indent > 0 ? '\n' + prefix : '';
  const colon = indent > 0 ? ': ' : ':';
  let entries: ReadonlyArray<readonly [string, unknown]>;
  if (v instanceof GoMapEntries) entries = v.entries;
  else if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return '[' + open + v.map((x) => writeOrdered(x, indent, inner)).join(sep) + close + ']';
  } else if (v !== null && typeof v === 'object') entries = Object.entries(v as JsonObject).filter(([, x]) => x !== undefined);
  else return typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v ?? null);
  if (entries.length === 0) return '{}';
  return '{' + open + entries.map(([k, x]) => JSON.stringify(k) + colon + writeOrdered(x, indent, inner)).join(sep) + close + '}';
}

/** The fields of `msg` read from `o` (undefined: the zero struct) into `out`, in declaration order. */
function writeStruct(msg: Message, o: JsonObject | undefined, out: JsonObject, walk: Walk): void {
  const fields = msg.fields;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f.inline) {
      writeStruct(fieldMessage(f), o, out, walk);
      continue;
    }
    const v = o === undefined ? undefined : o[f.name];
    if (f.map) writeMap(f, v, out, walk);
    else if (f.repeated) writeSlice(f, v, out, walk);
    else if (f.scalar !== undefined) writeScalar(f, v, out);
    else writeMessageField(f, v, out, walk);
  }
}

function writeScalar(f: Field, v: unknown, out: JsonObject): void {
  if (f.scalar === 'bytes') {
    // []byte: nil-able like a slice.
    if (v === undefined || v === null) {
      if (!f.omitempty) out[f.name] = null;
    } else if (!(f.omitempty && v === '')) out[f.name] = v;
    return;
  }
  if (v === undefined || v === null) {
    if (!f.omitempty) out[f.name] = f.pointer ? null : scalarZero(f);
    return;
  }
  if (f.omitempty && !f.pointer && (v === 0 || v === '' || v === false)) return;
  out[f.name] = v;
}

function scalarZero(f: Field): unknown {
  return f.scalar === 'string' ? '' : f.scalar === 'bool' ? false : 0;
}

function writeSlice(f: Field, v: unknown, out: JsonObject, walk: Walk): void {
  if (!Array.isArray(v)) {
    if (!f.omitempty) out[f.name] = null;
    return;
  }
  if (v.length === 0 && f.omitempty) return;
  if (f.scalar !== undefined) {
    out[f.name] = v;
    return;
  }
  const m = fieldMessage(f);
  const items = new Array<unknown>(v.length);
  for (let i = 0; i < v.length; i++) items[i] = v[i] === null || v[i] === undefined ? zeroOf(m) : messageValue(m, v[i], walk);
  out[f.name] = items;
}

const INDEX_KEY = /^(?:0|[1-9]\d{0,9})$/;

function writeMap(f: Field, v: unknown, out: JsonObject, walk: Walk): void {
  if (v === null || v === undefined || typeof v !== 'object' || Array.isArray(v)) {
    if (!f.omitempty) out[f.name] = null;
    return;
  }
  const m = v as JsonObject;
  const keys = Object.keys(m);
  if (keys.length === 0) {
    if (!f.omitempty) out[f.name] = {};
    return;
  }
  if (keys.length > 1) keys.sort(compareUtf8);
  const msg = f.scalar === undefined ? fieldMessage(f) : undefined;
  const value = (x: unknown): unknown => (msg === undefined ? (x ?? null) : x === null || x === undefined ? zeroOf(msg) : messageValue(msg, x, walk));
  if (keys.some((k) => INDEX_KEY.test(k))) {
    walk.ordered = true;
    out[f.name] = new GoMapEntries(keys.map((k) => [k, value(m[k])] as const));
    return;
  }
  const sorted: JsonObject = {};
  for (const k of keys) sorted[k] = value(m[k]);
  out[f.name] = sorted;
}

function writeMessageField(f: Field, v: unknown, out: JsonObject, walk: Walk): void {
  const m = fieldMessage(f);
  if (v === undefined || v === null) {
    if (f.pointer || m.special === 'array') {
      if (!f.omitempty) out[f.name] = null;
      return;
    }
    if (f.omitzero) return;
    out[f.name] = zeroOf(m);
    return;
  }
  if (m.special === 'array' && f.omitempty && Array.isArray(v) && v.length === 0) return;
  const g = messageValue(m, v, walk);
  if (f.omitzero && !f.pointer && isZeroSpecial(m, g)) return;
  out[f.name] = g;
}

/** omitzero is only used on metav1.Time (creationTimestamp): its zero is written as null. */
function isZeroSpecial(m: Message, g: unknown): boolean {
  return (m.special === 'time' || m.special === 'microtime') && g === null;
}

/** The Go JSON of a zero value of `m`, made once per message (it is only ever serialized, never changed). */
function zeroOf(m: Message): unknown {
  if (m.goZero === undefined) {
    switch (m.special) {
      case 'quantity':
        m.goZero = '0';
        break;
      case 'intorstring':
        m.goZero = 0;
        break;
      case 'duration':
        m.goZero = '0s';
        break;
      case undefined: {
        const out: JsonObject = {};
        writeStruct(m, undefined, out, { ordered: false });
        m.goZero = Object.freeze(out);
        break;
      }
      default:
        m.goZero = null;
    }
  }
  return m.goZero;
}

function messageValue(m: Message, v: unknown, walk: Walk): unknown {
  switch (m.special) {
    case undefined: {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
      const out: JsonObject = {};
      if (m.typeMeta && !hasOwnKindField(m)) {
        // An embedded object's TypeMeta (PartialObjectMetadata list items) is written when set.
        const o = v as JsonObject;
        if (typeof o['kind'] === 'string' && o['kind'] !== '') out['kind'] = o['kind'];
        if (typeof o['apiVersion'] === 'string' && o['apiVersion'] !== '') out['apiVersion'] = o['apiVersion'];
      }
      writeStruct(m, v as JsonObject, out, walk);
      return out;
    }
    case 'time':
    case 'microtime':
      return typeof v === 'string' ? goTime(v, m.special === 'microtime') : v;
    case 'duration': {
      const d = typeof v === 'string' ? parseGoDuration(v) : undefined;
      return d === undefined ? v : formatGoDuration(d);
    }
    case 'quantity':
      return typeof v === 'string' || typeof v === 'number' ? quantityString(v) : v;
    default:
      // intorstring, fieldsv1, rawextension, array: written as they are.
      return v;
  }
}

/** OwnerReference and the like carry kind/apiVersion as their own fields, not as an embedded TypeMeta. */
function hasOwnKindField(m: Message): boolean {
  return m.fields.some((f) => f.name === 'kind' || f.name === 'apiVersion');
}

/** metav1.Time / MicroTime MarshalJSON: UTC, seconds or six fractional digits; the zero time as null. */
function goTime(text: string, micro: boolean): string | null {
  const t = parseRfc3339(text);
  if (t === undefined) return text;
  if (t.seconds === GO_ZERO_TIME_SECONDS && t.nanos === 0) return null;
  return formatRfc3339(t.seconds, t.nanos, micro);
}

/**
 * apiequality.Semantic.DeepEqual of two JSON values of the Go type `typeName`
 * (a message full name, e.g. "k8s.io.api.core.v1.PodTemplateSpec"): equal
 * when they decode to equal Go values, so an absent value struct equals `{}`,
 * an absent non-omitempty scalar its zero, and nil slices and maps empty ones
 * (the forked reflect.DeepEqual kube uses treats those as equal).
 */
export function goSemanticEqual(typeName: string, a: unknown, b: unknown): boolean {
  const msg = messageOf(typeName);
  const walk: Walk = { ordered: false };
  return JSON.stringify(pruneEmpty(messageValue(msg, a ?? {}, walk))) === JSON.stringify(pruneEmpty(messageValue(msg, b ?? {}, walk)));
}

function pruneEmpty(v: unknown): unknown {
  if (v instanceof GoMapEntries) return pruneEmpty(Object.fromEntries(v.entries));
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map((x) => pruneEmpty(x) ?? null);
  if (v === null || typeof v !== 'object') return v ?? undefined;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v as JsonObject)) {
    const p = pruneEmpty(x);
    if (p !== undefined) out[k] = p;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}
