/**
 * Duplicate mapping keys in a YAML body, reported as sigs.k8s.io/yaml's
 * YAMLToJSONStrict reports them: gopkg.in/yaml.v2's strict decoder into
 * interface{}, which appends `line N: key "x" already set in map` when it
 * stores a key a second time, then returns all of them as one
 * `yaml: unmarshal errors:` error.
 *
 * What yaml.v2 does, and so what this reproduces:
 * - a map entry is checked after its value has been decoded, so duplicates
 *   nested in a value come before the duplicate key holding it;
 * - N is the 1-based line where the *value* node starts (a block mapping
 *   value starts at its first key; an empty value at the key's line);
 * - keys compare as YAML 1.1 resolves plain scalars (`yes`/`on`/`true` are
 *   the same bool key, `0x1`/`1` the same int), and print with Go's %#v;
 * - only the first document is decoded.
 * Merge keys (`<<`) and aliases are not expanded (see the module's gaps).
 */

import { EVENT_ID, FAILSAFE_SCHEMA, constructFromEvents, type parseEvents } from 'js-yaml';
import { constructYaml, parseYaml } from '../../codec/yaml-decode.js';
import { formatFloatG } from '../../machinery/go-compat.js';
import { strconvQuote } from '../../machinery/go-compat.js';

type YamlEvent = ReturnType<typeof parseEvents>[number];
type ScalarEvent = Extract<YamlEvent, { type: typeof EVENT_ID.SCALAR }>;

const SCALAR_STYLE_PLAIN = 1;
const SCALAR_STYLE_LITERAL = 4;
const SCALAR_STYLE_FOLDED = 5;

interface MapFrame {
  readonly map: true;
  readonly keys: Set<string>;
  expectKey: boolean;
  /** The key whose value is being read: identity and %#v rendering; undefined for complex or merge keys. */
  pending: { id: string; shown: string } | undefined;
  /** Where the last key ended (an empty value's line is the key's). */
  keyEnd: number;
  /** Set when this mapping is itself a value: the entry to check once it is complete. */
  readonly onClose: PendingEntry | undefined;
}

interface SeqFrame {
  readonly map: false;
  readonly onClose: PendingEntry | undefined;
}

interface PendingEntry {
  readonly parent: MapFrame;
  readonly key: { id: string; shown: string };
  readonly valueStart: number;
}

const YAML11_BOOL: ReadonlyMap<string, boolean> = new Map([
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', 'true', 'True', 'TRUE'].map((s): [string, boolean] => [s, true]),
  ...['n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF', 'false', 'False', 'FALSE'].map((s): [string, boolean] => [s, false]),
]);
const YAML11_NULL = new Set(['', '~', 'null', 'Null', 'NULL']);
const YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const TIMESTAMP = /^\d{4}-\d{1,2}-\d{1,2}([Tt ].*)?$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** strconv.ParseInt/ParseUint(s, 0, 64) as a BigInt, or undefined. */
function parseGoInt(s: string): bigint | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (m === null) return undefined;
  const body = m[2] as string;
  let v: bigint;
  if (/^0[oO]/.test(body)) v = BigInt(`0o${body.slice(2)}`);
  else if (/^0[0-7]+$/.test(body)) v = BigInt(`0o${body.slice(1)}`);
  else v = BigInt(body);
  return m[1] === '-' ? -v : v;
}

/** How yaml.v2 resolves a plain scalar key: [map identity, %#v rendering]. */
function resolvePlain(text: string): { id: string; shown: string } {
  const b = YAML11_BOOL.get(text);
  if (b !== undefined) return { id: `b:${b}`, shown: String(b) };
  if (YAML11_NULL.has(text)) return { id: 'n', shown: '<nil>' };
  const c = text.charCodeAt(0);
  const numeric = (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e;
  if (numeric) {
    const lower = text.toLowerCase();
    if (lower === '.inf' || lower === '+.inf') return { id: 'f:+Inf', shown: '+Inf' };
    if (lower === '-.inf') return { id: 'f:-Inf', shown: '-Inf' };
    if (lower === '.nan') return { id: `nan:${Math.random()}`, shown: 'NaN' }; // NaN never equals itself as a Go map key
    if (c !== 0x2e && !TIMESTAMP.test(text)) {
      const plain = text.replace(/_/g, '');
      const v = parseGoInt(plain);
      if (v !== undefined && v >= INT64_MIN && v <= INT64_MAX) return { id: `i:${v}`, shown: String(v) };
      if (v !== undefined && v >= 0n && v <= UINT64_MAX) return { id: `u:${v}`, shown: `0x${v.toString(16)}` };
      if (YAML_FLOAT.test(plain)) {
        const f = Number(plain);
        if (Number.isFinite(f)) return { id: `f:${f}`, shown: formatFloatG(f) };
      }
      const bin = /^(-?)0b([01]+)$/.exec(plain);
      if (bin !== null) {
        const bv = BigInt(`0b${bin[2] as string}`) * (bin[1] === '-' ? -1n : 1n);
        return { id: `i:${bv}`, shown: String(bv) };
      }
    } else if (c === 0x2e && YAML_FLOAT.test(text)) {
      const f = Number(text);
      return { id: `f:${f}`, shown: formatFloatG(f) };
    }
  }
  return { id: `s:${text}`, shown: strconvQuote(text) };
}

function scalarText(source: string, ev: ScalarEvent, header: YamlEvent): string {
  if (ev.valueStart < 0) return '';
  if (ev.fast) return source.slice(ev.valueStart, ev.valueEnd);
  // Escapes, folding or block scalars: let js-yaml build the string.
  const docs = constructFromEvents([header, ev, { type: EVENT_ID.POP }], { source, schema: FAILSAFE_SCHEMA });
  const v = docs[0];
  return typeof v === 'string' ? v : String(v ?? '');
}

function keyOf(source: string, ev: ScalarEvent, header: YamlEvent): { id: string; shown: string } | undefined {
  const text = scalarText(source, ev, header);
  const tag = ev.tagStart >= 0 ? source.slice(ev.tagStart, ev.tagEnd) : '';
  if (ev.style === SCALAR_STYLE_PLAIN && tag === '' && text === '<<') return undefined; // merge key
  if (ev.style !== SCALAR_STYLE_PLAIN || tag === '!!str' || tag === '!' || tag === 'tag:yaml.org,2002:str') {
    return { id: `s:${text}`, shown: strconvQuote(text) };
  }
  return resolvePlain(text);
}

/** Offset where yaml.v2's node for this event starts (anchor or tag first, block scalars at their header). */
function nodeStart(source: string, ev: YamlEvent, keyEnd: number): number {
  let start = -1;
  if (ev.type === EVENT_ID.MAPPING || ev.type === EVENT_ID.SEQUENCE) start = ev.start;
  else if (ev.type === EVENT_ID.SCALAR) {
    start = ev.valueStart;
    if ((ev.style === SCALAR_STYLE_LITERAL || ev.style === SCALAR_STYLE_FOLDED) && start >= 0) {
      let k = start - 1;
      while (k >= 0 && /[\s]/.test(source[k] as string)) k--;
      start = k;
    }
  }
  if ('anchorStart' in ev && ev.anchorStart >= 0 && (start < 0 || ev.anchorStart < start)) start = ev.anchorStart;
  if ('tagStart' in ev && ev.tagStart >= 0 && (start < 0 || ev.tagStart < start)) start = ev.tagStart;
  return start >= 0 ? start : keyEnd;
}

function lineAt(source: string, offset: number): number {
  let line = 1;
  for (let k = 0; k < offset && k < source.length; k++) {
    const c = source.charCodeAt(k);
    if (c === 0x0a) line++;
    else if (c === 0x0d && source.charCodeAt(k + 1) !== 0x0a) line++;
  }
  return line;
}

/**
 * The `line N: key "x" already set in map` entries of a YAML (or JSON) text,
 * in yaml.v2's order. Throws js-yaml's exception when the text is not YAML.
 */
export function yamlDuplicateKeys(source: string): string[] {
  const parsed = parseYaml(source);
  return duplicateKeysOf(parsed.source, parsed.events);
}

/**
 * Decodes a YAML body and finds its duplicate keys from one parse (the
 * parser is most of js-yaml's cost): the documents as js-yaml's loadAll with
 * the core schema and `json: true` gives them (a repeated key keeps its last
 * value, as yaml.v2's non-strict decoder does), and yamlDuplicateKeys' result.
 * Throws js-yaml's exception when the text is not YAML.
 */
export function decodeYamlWithDuplicates(source: string): { documents: unknown[]; duplicateKeys: string[] } {
  const parsed = parseYaml(source);
  const documents = constructYaml(parsed);
  return { documents, duplicateKeys: duplicateKeysOf(parsed.source, parsed.events) };
}

function duplicateKeysOf(source: string, events: readonly YamlEvent[]): string[] {
  const out: string[] = [];
  const stack: Array<MapFrame | SeqFrame> = [];
  let header: YamlEvent | undefined;
  let lastKeyEnd = 0;

  const check = (entry: PendingEntry): void => {
    const { parent, key } = entry;
    if (parent.keys.has(key.id)) out.push(`line ${lineAt(source, entry.valueStart)}: key ${key.shown} already set in map`);
    else parent.keys.add(key.id);
  };

  for (const ev of events) {
    if (ev.type === EVENT_ID.DOCUMENT) {
      if (header !== undefined) break; // yaml.v2 Unmarshal reads the first document only
      header = ev;
      continue;
    }
    if (header === undefined) continue;
    if (ev.type === EVENT_ID.POP) {
      const frame = stack.pop();
      if (frame === undefined) break; // end of the document
      if (frame.onClose !== undefined) check(frame.onClose);
      continue;
    }
    const top = stack[stack.length - 1];
    if (top !== undefined && top.map && top.expectKey) {
      top.expectKey = false;
      if (ev.type === EVENT_ID.SCALAR) {
        top.pending = keyOf(source, ev, header);
        lastKeyEnd = ev.valueEnd >= 0 ? ev.valueEnd : lastKeyEnd;
        top.keyEnd = lastKeyEnd;
      } else {
        top.pending = undefined; // complex keys fail in yaml.v2 anyway
        if (ev.type === EVENT_ID.MAPPING) stack.push({ map: true, keys: new Set(), expectKey: true, pending: undefined, keyEnd: 0, onClose: undefined });
        else if (ev.type === EVENT_ID.SEQUENCE) stack.push({ map: false, onClose: undefined });
      }
      continue;
    }
    // A value: in a mapping after its key, in a sequence, or the document root.
    let entry: PendingEntry | undefined;
    if (top !== undefined && top.map) {
      top.expectKey = true;
      if (top.pending !== undefined) entry = { parent: top, key: top.pending, valueStart: nodeStart(source, ev, top.keyEnd) };
      top.pending = undefined;
    }
    if (ev.type === EVENT_ID.MAPPING) stack.push({ map: true, keys: new Set(), expectKey: true, pending: undefined, keyEnd: 0, onClose: entry });
    else if (ev.type === EVENT_ID.SEQUENCE) stack.push({ map: false, onClose: entry });
    else if (entry !== undefined) check(entry);
  }
  return out;
}

/** yaml.v2's *TypeError text for strict duplicate-key failures. */
export function yamlUnmarshalErrors(lines: readonly string[]): string {
  return `yaml: unmarshal errors:\n  ${lines.join('\n  ')}`;
}
