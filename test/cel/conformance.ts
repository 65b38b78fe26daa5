import { Environment, Optional } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { celEnv, celUint, isCelError, isCelList, isCelMap, isCelUint, parse as bufParse, plan as bufPlan } from '@bufbuild/cel';
import { tests } from '@bufbuild/cel-spec/testdata/conformance.js';

import { registerKubernetesLibraries } from '../../src/cel/libraries/index.js';

/**
 * Runs @bufbuild/cel-spec's conformance data (cel-spec's simple tests)
 * against @marcbachmann/cel-js, the CEL library under src/cel/. Shared by the
 * unit test (score must not drop) and the measurement script.
 */

/**
 * cel-spec files for the extensions kube-apiserver 1.36's base environment
 * enables (ext.Strings v2, two-variable comprehensions, ext.Lists v3,
 * ext.Sets): run over src/cel's Kubernetes libraries, so their score is what
 * Capstan serves. The other files (core language, and math, encoders and
 * block extensions, which kube does not enable) run over the bare library.
 */
export const KUBE_EXTENSION_SUITES: ReadonlySet<string> = new Set(['string_ext', 'macros2', 'lists_ext', 'sets_ext']);

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

export interface CaseOutcome {
  /** suite/subsuite/name */
  readonly id: string;
  readonly suite: string;
  readonly passed: boolean;
  /** Why it failed (short). */
  readonly reason?: string;
  /** The case needs protobuf messages (types, literals or values), which Kubernetes never gives CEL. */
  readonly protobuf: boolean;
}

/** Which evaluator a run measures: the chosen one, or the other candidate for comparison. */
export type Engine = 'cel-js' | 'bufbuild';

const MESSAGE_LITERAL = /\b[A-Z][\w]*\s*\{|google\.protobuf|TestAllTypes|NestedTestAllTypes/;

function needsProtobuf(t: JsonObject): boolean {
  if (t['container']) return true;
  const text = JSON.stringify(t);
  return text.includes('messageType') || text.includes('objectValue') || MESSAGE_LITERAL.test(t['expr'] as string);
}

class Unsupported extends Error {}

const PRIMITIVES: Record<string, string> = {
  BOOL: 'bool', INT64: 'int', UINT64: 'uint', DOUBLE: 'double', STRING: 'string', BYTES: 'bytes',
};
const WELL_KNOWN: Record<string, string> = { TIMESTAMP: 'google.protobuf.Timestamp', DURATION: 'google.protobuf.Duration', ANY: 'dyn' };

function typeString(t: JsonObject | undefined): string {
  if (!t) return 'dyn';
  if ('primitive' in t) return PRIMITIVES[t['primitive'] as string] ?? 'dyn';
  if ('wellKnown' in t) return WELL_KNOWN[t['wellKnown'] as string] ?? 'dyn';
  if ('listType' in t) return `list<${typeString((t['listType'] as JsonObject)['elemType'] as JsonObject)}>`;
  if ('mapType' in t) {
    const m = t['mapType'] as JsonObject;
    return `map<${typeString(m['keyType'] as JsonObject)}, ${typeString(m['valueType'] as JsonObject)}>`;
  }
  if ('dyn' in t) return 'dyn';
  if ('null' in t) return 'null';
  if ('abstractType' in t && (t['abstractType'] as JsonObject)['name'] === 'optional_type') return 'dyn';
  throw new Unsupported(`type ${JSON.stringify(t).slice(0, 60)}`);
}

function toValue(v: JsonObject | undefined): unknown {
  if (v === undefined || v === null) throw new Unsupported('missing value');
  if ('int64Value' in v) return BigInt(v['int64Value'] as string);
  if ('uint64Value' in v) return new UnsignedInt(BigInt(v['uint64Value'] as string));
  if ('doubleValue' in v) return Number(v['doubleValue']);
  if ('stringValue' in v) return v['stringValue'];
  if ('boolValue' in v) return v['boolValue'];
  if ('nullValue' in v) return null;
  if ('bytesValue' in v) return new Uint8Array(Buffer.from(v['bytesValue'] as string, 'base64'));
  if ('listValue' in v) return (((v['listValue'] as JsonObject)['values'] ?? []) as JsonObject[]).map(toValue);
  if ('mapValue' in v) {
    const m = new Map<unknown, unknown>();
    for (const e of (((v['mapValue'] as JsonObject)['entries'] ?? []) as JsonObject[])) m.set(toValue(e['key'] as JsonObject), toValue(e['value'] as JsonObject));
    return m;
  }
  if ('typeValue' in v) return { __type: v['typeValue'] };
  throw new Unsupported(`value ${Object.keys(v)[0]}`);
}

function equal(got: unknown, want: unknown): boolean {
  if (want !== null && typeof want === 'object' && '__type' in (want as object)) {
    const name = (got as { name?: string } | null)?.name ?? String(got);
    const w = (want as { __type: string }).__type;
    return name === w || name === `${w}_type` || (w === 'google.protobuf.Timestamp' && name === 'timestamp');
  }
  if (typeof want === 'number' && typeof got === 'number') return Number.isNaN(want) ? Number.isNaN(got) : Object.is(want, got) || want === got;
  if (want instanceof UnsignedInt) return got instanceof UnsignedInt && got.valueOf() === want.valueOf();
  if (typeof want === 'bigint' || typeof want !== 'object' || want === null) return got === want;
  if (want instanceof Uint8Array) return got instanceof Uint8Array && Buffer.from(got).equals(Buffer.from(want));
  if (Array.isArray(want)) return Array.isArray(got) && got.length === want.length && want.every((x, i) => equal(got[i], x));
  if (want instanceof Map) {
    const entries = got instanceof Map ? [...got] : got && typeof got === 'object' ? Object.entries(got) : undefined;
    if (!entries || entries.length !== want.size) return false;
    return [...want].every(([k, x]) => entries.some(([gk, gx]) => equal(gk, k) && equal(gx, x)));
  }
  return false;
}

function show(v: unknown): string {
  if (typeof v === 'bigint') return `${v}`;
  if (v instanceof Duration || v instanceof UnsignedInt) return String(v);
  try {
    return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}` : x instanceof Map ? Object.fromEntries(x) : x))?.slice(0, 60) ?? String(v);
  } catch {
    return String(v).slice(0, 60);
  }
}

function runCase(t: JsonObject, kubeLibraries: boolean): { passed: boolean; reason?: string } {
  try {
    if (t['container']) throw new Unsupported('protobuf container');
    const env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false, unlistedVariablesAreDyn: t['disableCheck'] === true });
    if (kubeLibraries) registerKubernetesLibraries(env);
    for (const d of (t['typeEnv'] ?? []) as JsonObject[]) {
      if (!('ident' in d)) throw new Unsupported('function declaration');
      env.registerVariable(d['name'] as string, typeString((d['ident'] as JsonObject)['type'] as JsonObject));
    }
    const activation: Record<string, unknown> = {};
    for (const [k, b] of Object.entries((t['bindings'] ?? {}) as JsonObject)) activation[k] = toValue((b as JsonObject)['value'] as JsonObject);
    const expr = t['expr'] as string;
    const wantError = 'evalError' in t || ('typedResult' in t && false);
    const want = 'value' in t ? toValue(t['value'] as JsonObject) : 'typedResult' in t ? toValue((t['typedResult'] as JsonObject)['result'] as JsonObject) : undefined;
    let parsed: ReturnType<Environment['parse']>;
    try {
      parsed = env.parse(expr);
    } catch (e) {
      return { passed: false, reason: `parse error: ${(e as Error).message.split('\n')[0]}` };
    }
    if (!t['disableCheck']) {
      const c = parsed.check();
      if (!c.valid) return wantError ? { passed: true } : { passed: false, reason: `check error: ${c.error?.message.split('\n')[0]}` };
    }
    if (t['checkOnly']) return { passed: true };
    let got: unknown;
    try {
      got = parsed(activation);
    } catch (e) {
      return wantError ? { passed: true } : { passed: false, reason: `eval error: ${(e as Error).message.split('\n')[0]}` };
    }
    if (got instanceof Optional && !(want instanceof Optional)) return { passed: false, reason: 'optional result' };
    if (wantError) return { passed: false, reason: `no error, got ${show(got)}` };
    if (want === undefined) return { passed: got === true, reason: got === true ? undefined : `got ${show(got)}` };
    return equal(got, want) ? { passed: true } : { passed: false, reason: `got ${show(got)}, want ${show(want)}` };
  } catch (e) {
    if (e instanceof Unsupported) return { passed: false, reason: `unsupported: ${e.message}` };
    return { passed: false, reason: `runner: ${(e as Error).message.split('\n')[0]}` };
  }
}

/** Known causes of failures, so the list of known failures says why. */
const CAUSES: [RegExp, string][] = [
  [/^unsupported: (protobuf container|type \{"messageType|value objectValue)/, 'protobuf messages (cel-js has none; kube exposes no protobuf messages to CEL)'],
  [/^parse error: Unexpected character: '\{'/, 'protobuf message literal syntax (no protobuf messages in cel-js)'],
  [/Unknown variable: math|math\./, 'cel-go math extension (not in cel-js; kube libraries come from src/cel/libraries/)'],
  [/Unknown variable: strings|string\.format|string\.replace|string\.(charAt|indexOf|lastIndexOf|lowerAscii|upperAscii|split|join|substring|trim|quote|reverse)/, 'cel-go strings extension (in src/cel/libraries/, not in the bare library)'],
  [/CelNamespace\.index|Unknown variable: i\b|Unknown variable: k\b/, 'cel.block / two-variable comprehension extensions (not in cel-js)'],
  [/Unknown variable: base/, 'cel-go encoders extension (not in cel-js)'],
  [/has\(\) invalid argument/, 'cel-js gap: has() only on a field selection of an identifier path'],
  [/int\(uint\)/, 'cel-js gap: no int(uint) overload'],
  [/double == int|int == double|uint == int|int == uint|double == uint|uint == double|heterogeneous/, 'cel-js gap: no cross-type numeric equality without dyn'],
  [/^unsupported: function declaration/, 'conformance case declares functions (runner does not register them)'],
  [/optional|QUESTION/, 'optional syntax or value gap in cel-js'],
];

/** Known causes by case id, for the extension suites run over the Kubernetes libraries. */
const CAUSES_BY_ID: [RegExp, string][] = [
  [/^string_ext\/format_errors\/object/, 'protobuf message literal syntax (no protobuf messages in cel-js)'],
  [/^string_ext\/format\//, "ext.Strings v2 format as kube 1.36 serves it (cel-go's locale printer, quoted list and map elements); cel-spec tests a later ext.Strings version"],
  [/^string_ext\/(ascii_casing|trim)\//, "cel-js built-in lowerAscii/upperAscii/trim (argument-less, cannot be taken over by a macro): non-ASCII letters and Unicode spaces differ from cel-go"],
];

function classify(reason: string, id: string): string {
  for (const [re, cause] of CAUSES_BY_ID) if (re.test(id)) return `${cause} — ${reason}`;
  for (const [re, cause] of CAUSES) if (re.test(reason)) return `${cause} — ${reason}`;
  return reason;
}

/** @bufbuild/cel's inputs: CelUint for uints; its outputs back to plain lists and maps for comparison. */
function toBufInput(v: unknown): unknown {
  if (v instanceof UnsignedInt) return celUint(v.valueOf() as bigint);
  if (Array.isArray(v)) return v.map(toBufInput);
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [toBufInput(k), toBufInput(x)]));
  return v;
}

function fromBuf(v: unknown): unknown {
  if (isCelUint(v)) return new UnsignedInt(v.value);
  if (isCelList(v)) return [...v].map(fromBuf);
  if (isCelMap(v)) return new Map([...v].map(([k, x]) => [fromBuf(k), fromBuf(x)]));
  return v;
}

function runBufCase(t: JsonObject): { passed: boolean; reason?: string } {
  try {
    const activation: Record<string, unknown> = {};
    for (const [k, b] of Object.entries((t['bindings'] ?? {}) as JsonObject)) activation[k] = toBufInput(toValue((b as JsonObject)['value'] as JsonObject));
    const wantError = 'evalError' in t;
    const want = 'value' in t ? toValue(t['value'] as JsonObject) : 'typedResult' in t ? toValue((t['typedResult'] as JsonObject)['result'] as JsonObject) : undefined;
    let got: unknown;
    try {
      got = bufPlan(celEnv(t['container'] ? { namespace: t['container'] as string } : {}), bufParse(t['expr'] as string))(activation as never);
    } catch (e) {
      return wantError ? { passed: true } : { passed: false, reason: `error: ${(e as Error).message.split('\n')[0]}` };
    }
    if (isCelError(got)) return wantError ? { passed: true } : { passed: false, reason: `error: ${got.message.split('\n')[0]}` };
    if (t['checkOnly']) return { passed: true };
    if (wantError) return { passed: false, reason: `no error, got ${show(fromBuf(got))}` };
    if (want === undefined) return { passed: got === true };
    const plain = fromBuf(got);
    return equal(plain, want) ? { passed: true } : { passed: false, reason: `got ${show(plain)}, want ${show(want)}` };
  } catch (e) {
    if (e instanceof Unsupported) return { passed: false, reason: `unsupported: ${e.message}` };
    return { passed: false, reason: `runner: ${(e as Error).message.split('\n')[0]}` };
  }
}

interface Suite {
  name: string;
  suites?: Suite[];
  tests?: { original: JsonObject }[];
}

/** Every conformance case with its outcome. Ids are unique (a repeated name gets #2, #3 ...). */
export function runConformance(engine: Engine = 'cel-js'): CaseOutcome[] {
  const out: CaseOutcome[] = [];
  const seen = new Map<string, number>();
  const walk = (s: Suite, path: string[]): void => {
    for (const t of s.tests ?? []) {
      let id = [...path, (t.original['name'] as string) ?? t.original['expr']].join('/');
      const n = (seen.get(id) ?? 0) + 1;
      seen.set(id, n);
      if (n > 1) id += `#${n}`;
      const r = engine === 'cel-js' ? runCase(t.original, KUBE_EXTENSION_SUITES.has(path[0] ?? s.name)) : runBufCase(t.original);
      out.push({ id, suite: path[0] ?? s.name, passed: r.passed, protobuf: needsProtobuf(t.original), ...(r.reason ? { reason: classify(r.reason, id) } : {}) });
    }
    for (const c of s.suites ?? []) walk(c, [...path, c.name]);
  };
  walk(tests as unknown as Suite, []);
  return out;
}

/** passed/total per top-level suite (one suite per cel-spec file). */
export function scoreBySuite(outcomes: readonly CaseOutcome[]): Map<string, { passed: number; total: number }> {
  const scores = new Map<string, { passed: number; total: number }>();
  for (const o of outcomes) {
    const s = scores.get(o.suite) ?? { passed: 0, total: 0 };
    s.total++;
    if (o.passed) s.passed++;
    scores.set(o.suite, s);
  }
  return scores;
}
