/**
 * A pass over a JSON body that decides, without building values, what
 * kube-apiserver's decoder (sigs.k8s.io/json, a fork of encoding/json) says
 * about it when decoding into the kind's Go struct:
 *
 * - the strict errors (`unknown field "spec.foo"`, `duplicate field
 *   "metadata.name"`), in document order, each message once, at most 100 —
 *   sigs.k8s.io/json's saveStrictError;
 * - the decode error, with encoding/json's precedence: an error returned by a
 *   custom UnmarshalJSON (Quantity, IntOrString, Time, ...) stops decoding at
 *   once; otherwise the first "saved" error (UnmarshalTypeError, base64) wins;
 *   either one discards the strict errors.
 *
 * It works on the raw text because JSON.parse has already lost what matters:
 * duplicate keys, and number literals (`1.0` is not an int32 for Go).
 *
 * Paths follow the two stacks the Go decoder keeps: strict errors print the
 * full path with list indexes and map keys (`spec.containers[0].foo`), type
 * errors print the innermost struct's name and the chain of struct field
 * names only (`PodSpec.spec.template.spec.containers`).
 */

import { quantityError } from '../../api/quantity.js';
import { strconvQuote } from '../../machinery/go-compat.js';
import { base64Error, intLiteralFits, floatLiteralFits, RFC3339, RFC3339_MICRO, timeParseError, uint8LiteralFits, unmarshalTypeError } from './go-text.js';
import { ANY, type FieldRef, type FieldType, Kind, STRING, listOf } from './schema.js';

/** interface{} lists hold interface{} items. */

export interface ScanOptions {
  /** Collect unknown and duplicate fields (the strict decoder kube uses for Warn and Strict). */
  readonly strict: boolean;
  /** Prefix of every strict error (json patch bodies: "json patch "). */
  readonly strictPrefix?: string;
}

export interface ScanResult {
  /** Strict errors in kube's order; empty when `error` is set (kube drops them then). */
  readonly strictErrors: string[];
  /** The decode error kube would report, e.g. `json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`. */
  readonly error: string | undefined;
  /**
   * A key was repeated with an object (or list of objects) both times where Go
   * decodes the second into the first: the value JSON.parse kept (the last)
   * is not what kube stores.
   */
  readonly mergedDuplicates: boolean;
  /** Whether a struct held a key it does not declare: without one, the decoded value needs no pruning. */
  readonly unknownFields: boolean;
  /** Whether a list element or map value Go decodes into a zero value (a struct, string, number, ...) was null (zeroNullElements). */
  readonly nullElements: boolean;
}

/** Keys an object may have before its duplicate tracking moves from a linear search to a Map. */
const DUP_LINEAR = 16;

/** sigs.k8s.io/json stops accumulating strict errors here. */
const MAX_STRICT_ERRORS = 100;

class FatalDecodeError extends Error {}

/** Thrown when the text is not JSON; callers only scan what they already decoded. */
export class MalformedJsonError extends Error {
  constructor(at: number) {
    super(`field validation: malformed JSON at offset ${at}`);
    this.name = 'MalformedJsonError';
  }
}

const enum Frame {
  Field = 0,
  Key = 1,
  Index = 2,
}

class Scanner {
  private i = 0;
  private strict: boolean;
  /** Context stack: one frame per level entered. Parallel arrays avoid an allocation per level. */
  private depth = 0;
  /** First frame of the current decoder: nested decodes (UnmarshalJSON calling json.Unmarshal) start afresh. */
  private base = 0;
  private readonly frameKind: Frame[] = [];
  private readonly frameName: string[] = [];
  private readonly frameIndex: number[] = [];
  private readonly frameStruct: string[] = [];
  private saved: string | undefined;
  readonly strictErrors: string[] = [];
  private readonly seenMessages = new Set<string>();
  mergedDuplicates = false;
  /** Whether any struct held a key it does not declare (the value then needs pruning). */
  unknownSeen = false;
  /** Whether a null list element or map value becomes a zero value in Go. */
  nullElementSeen = false;

  constructor(
    private readonly s: string,
    strict: boolean,
    private readonly strictPrefix: string,
  ) {
    this.strict = strict;
  }

  run(root: FieldType): string | undefined {
    try {
      this.ws();
      this.value(root);
      return this.saved;
    } catch (err) {
      if (err instanceof FatalDecodeError) return err.message;
      throw err;
    }
  }

  // ---- context ----

  private push(kind: Frame, name: string, index: number, struct: string): void {
    const d = this.depth++;
    this.frameKind[d] = kind;
    this.frameName[d] = name;
    this.frameIndex[d] = index;
    this.frameStruct[d] = struct;
  }

  /** The strict path of a key at the current level (sigs.k8s.io/json's newFieldError). */
  private strictPath(key: string): string {
    // Go joins a stack where a key is preceded by "." whenever anything (even "") precedes it.
    let p = '';
    for (let k = 0; k < this.depth; k++) {
      if (this.frameKind[k] === Frame.Index) p += `[${this.frameIndex[k] as number}]`;
      else p += (k === 0 ? '' : '.') + (this.frameName[k] as string);
    }
    return this.depth === 0 ? key : `${p}.${key}`;
  }

  private strictError(kind: 'unknown field' | 'duplicate field', key: string): void {
    if (this.strictErrors.length >= MAX_STRICT_ERRORS) return;
    const msg = `${this.strictPrefix}${kind} ${strconvQuote(this.strictPath(key))}`;
    if (this.seenMessages.has(msg)) return;
    this.seenMessages.add(msg);
    this.strictErrors.push(msg);
  }

  /** encoding/json's saveError for an UnmarshalTypeError, with the decoder's error context. */
  private typeError(valueDesc: string, goType: string): void {
    if (this.saved !== undefined) return;
    let struct = '';
    let field = '';
    for (let k = this.base; k < this.depth; k++) {
      if (this.frameKind[k] !== Frame.Field) continue;
      struct = this.frameStruct[k] as string;
      field += (field === '' ? '' : '.') + (this.frameName[k] as string);
    }
    this.saved = unmarshalTypeError(valueDesc, goType, struct, field);
  }

  private saveRaw(message: string): void {
    if (this.saved === undefined) this.saved = message;
  }

  // ---- lexing ----

  private ws(): void {
    const s = this.s;
    let i = this.i;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
    this.i = i;
  }

  private expect(c: number): void {
    this.ws();
    if (this.s.charCodeAt(this.i) !== c) throw new MalformedJsonError(this.i);
    this.i++;
  }

  /** Index of the next backslash at or after the scan position (the text is searched for them once). */
  private nextBackslash = -1;
  /** Whether the string stringEnd last skipped has escapes. */
  private escaped = false;

  /** Skips a string whose opening quote is at i; returns the index of the closing quote. */
  private stringEnd(): number {
    const s = this.s;
    const from = this.i + 1;
    const q = s.indexOf('"', from);
    if (q < 0) throw new MalformedJsonError(this.i);
    let b = this.nextBackslash;
    if (b < from && b !== Infinity) {
      b = s.indexOf('\\', from);
      this.nextBackslash = b = b < 0 ? Infinity : b;
    }
    if (b > q) {
      this.escaped = false;
      return q;
    }
    this.escaped = true;
    let i = from;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 0x22) break;
      if (c === 0x5c) i += 2;
      else if (Number.isNaN(c)) throw new MalformedJsonError(i);
      else i++;
    }
    return i;
  }

  /** Reads a string at i and returns its value. */
  private readString(): string {
    const start = this.i;
    const end = this.stringEnd();
    this.i = end + 1;
    if (!this.escaped) return this.s.slice(start + 1, end);
    return JSON.parse(this.s.slice(start, end + 1)) as string;
  }

  /** Reads a number/true/false/null literal at i and returns its text. */
  private readLiteral(): string {
    const s = this.s;
    const start = this.i;
    let i = start;
    for (;;) {
      const c = s.charCodeAt(i);
      // Letters cover true/false/null and exponents; the text was valid JSON already.
      if ((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || (c >= 0x61 && c <= 0x7a) || c === 0x45) i++;
      else break;
    }
    if (i === start) throw new MalformedJsonError(start);
    this.i = i;
    return s.slice(start, i);
  }

  /** Skips any value at i. */
  private skip(): void {
    this.ws();
    const s = this.s;
    const c = s.charCodeAt(this.i);
    if (c === 0x22) {
      this.i = this.stringEnd() + 1;
      return;
    }
    if (c !== 0x7b && c !== 0x5b) {
      this.readLiteral();
      return;
    }
    let depth = 0;
    let i = this.i;
    for (;;) {
      const d = s.charCodeAt(i);
      if (d === 0x22) {
        this.i = i;
        i = this.stringEnd() + 1;
        continue;
      }
      if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        depth--;
        if (depth === 0) {
          this.i = i + 1;
          return;
        }
      } else if (Number.isNaN(d)) throw new MalformedJsonError(i);
      i++;
    }
  }

  /** The raw text of the value at i (what a custom UnmarshalJSON receives). */
  private rawValue(): string {
    this.ws();
    const start = this.i;
    this.skip();
    return this.s.slice(start, this.i);
  }

  /** At '{': consumes it; false when the object is empty (and consumed whole). */
  private openObject(): boolean {
    this.i++;
    this.ws();
    if (this.s.charCodeAt(this.i) === 0x7d) {
      this.i++;
      return false;
    }
    return true;
  }

  /** Reads a member's key and the colon; leaves i at the value. */
  private memberKey(): string {
    this.ws();
    if (this.s.charCodeAt(this.i) !== 0x22) throw new MalformedJsonError(this.i);
    const key = this.readString();
    this.expect(0x3a);
    this.ws();
    return key;
  }

  private keyStart = 0;
  private keyEnd = 0;

  /**
   * Reads a struct member's key and the colon, leaving i at the value:
   * returns the declared field it names, or undefined for a key the struct
   * does not declare (lastKey() then builds its text).
   */
  private structKey(t: FieldType): FieldRef | undefined {
    this.ws();
    if (this.s.charCodeAt(this.i) !== 0x22) throw new MalformedJsonError(this.i);
    const start = this.i;
    const end = this.stringEnd();
    this.i = end + 1;
    this.keyStart = start;
    this.keyEnd = end;
    let ref: FieldRef | undefined;
    if (!this.escaped) ref = t.matchField(this.s, start + 1, end);
    else {
      const key = JSON.parse(this.s.slice(start, end + 1)) as string;
      ref = t.field(key) !== undefined ? t.matchField(key, 0, key.length) : undefined;
    }
    this.expect(0x3a);
    this.ws();
    return ref;
  }

  /** The text of the key structKey last read. */
  private lastKey(): string {
    const raw = this.s.slice(this.keyStart + 1, this.keyEnd);
    return raw.includes('\\') ? (JSON.parse(this.s.slice(this.keyStart, this.keyEnd + 1)) as string) : raw;
  }

  /** After a member's value: consumes ',' (true: more members) or '}' (false). */
  private nextMember(): boolean {
    this.ws();
    const c = this.s.charCodeAt(this.i);
    this.i++;
    if (c === 0x2c) return true;
    if (c !== 0x7d) throw new MalformedJsonError(this.i - 1);
    return false;
  }

  // ---- duplicate tracking ----
  //
  // The keys seen in the objects being decoded live on one shared stack (an
  // object's keys above its base): objects are small, so a linear search
  // beats allocating a Set per object. Past DUP_LINEAR keys an object gets a
  // Map, so hostile bodies stay linear.

  private dupTop = 0;
  private readonly dupKeys: string[] = [];
  private readonly dupFirst: number[] = [];

  /**
   * Records a key of the object whose keys start at `base`; returns the first
   * character of the earlier value when the key was already there, else -1.
   */
  private seenBefore(base: number, key: string, first: number, big: Map<string, number> | undefined): number {
    if (big !== undefined) {
      const prev = big.get(key);
      if (prev !== undefined) return prev;
      big.set(key, first);
      return -1;
    }
    const keys = this.dupKeys;
    for (let k = base; k < this.dupTop; k++) if (keys[k] === key) return this.dupFirst[k] as number;
    keys[this.dupTop] = key;
    this.dupFirst[this.dupTop] = first;
    this.dupTop++;
    return -1;
  }

  /** Switches an object's key tracking to a Map once it has many keys. */
  private maybeBig(base: number, big: Map<string, number> | undefined): Map<string, number> | undefined {
    if (big !== undefined || this.dupTop - base < DUP_LINEAR) return big;
    const m = new Map<string, number>();
    for (let k = base; k < this.dupTop; k++) m.set(this.dupKeys[k] as string, this.dupFirst[k] as number);
    this.dupTop = base;
    return m;
  }

  // ---- decoding ----

  /** What encoding/json calls the JSON value at i in an UnmarshalTypeError ("number" without its text). */
  private describe(c: number): string | undefined {
    switch (c) {
      case 0x7b:
        return 'object';
      case 0x5b:
        return 'array';
      case 0x22:
        return 'string';
      case 0x74:
      case 0x66:
        return 'bool';
      case 0x6e:
        return undefined; // null goes into anything
      default:
        return 'number';
    }
  }

  /** A value whose JSON kind does not fit t: saved UnmarshalTypeError, value skipped. */
  private mismatch(c: number, t: FieldType): void {
    const desc = this.describe(c);
    if (desc !== undefined) this.typeError(desc, t.goType);
    this.skip();
  }

  private value(t: FieldType): void {
    this.ws();
    const c = this.s.charCodeAt(this.i);
    switch (t.kind) {
      case Kind.Struct:
        if (c === 0x7b) this.struct(t);
        else this.mismatch(c, t);
        return;
      case Kind.Map:
        if (c === 0x7b) this.map(t.elem);
        else this.mismatch(c, t);
        return;
      case Kind.List:
        if (c === 0x5b) this.list(t);
        else this.mismatch(c, t);
        return;
      case Kind.String:
        if (c === 0x22) this.i = this.stringEnd() + 1;
        else this.mismatch(c, t);
        return;
      case Kind.Bool:
        if (c === 0x74 || c === 0x66) this.readLiteral();
        else this.mismatch(c, t);
        return;
      case Kind.Int:
      case Kind.Float:
      case Kind.Uint8:
        this.number(c, t);
        return;
      case Kind.Bytes:
        if (c === 0x22) {
          const err = base64Error(this.readString());
          if (err !== undefined) this.saveRaw(err);
        } else if (c === 0x5b) this.list(t);
        else this.mismatch(c, t);
        return;
      case Kind.Quantity:
        this.quantity(c);
        return;
      case Kind.IntOrString:
        this.intOrString(c);
        return;
      case Kind.Time:
      case Kind.MicroTime:
        this.time(c, t.kind === Kind.Time ? RFC3339 : RFC3339_MICRO);
        return;
      case Kind.Any:
        this.anyValue();
        return;
      case Kind.SchemaOrBool:
        if (c === 0x7b) this.nested(t.elem);
        else if (c === 0x74 || c === 0x66 || c === 0x6e) this.readLiteral();
        else {
          this.skip();
          throw new FatalDecodeError('boolean or JSON schema expected');
        }
        return;
      case Kind.SchemaOrArray:
        if (c === 0x7b) this.nested(t.elem);
        else if (c === 0x5b) this.nested(listOf(t.elem));
        else this.skip();
        return;
      case Kind.SchemaOrStringArray:
        if (c === 0x7b) this.nested(t.elem);
        else if (c === 0x5b) this.nested(listOf(STRING));
        else this.skip();
        return;
      default:
        this.skip();
    }
  }

  private number(c: number, t: FieldType): void {
    if (c === 0x6e || !((c >= 0x30 && c <= 0x39) || c === 0x2d)) {
      this.mismatch(c, t);
      return;
    }
    const lit = this.readLiteral();
    const ok = t.kind === Kind.Int ? intLiteralFits(lit, t.bits) : t.kind === Kind.Uint8 ? uint8LiteralFits(lit) : floatLiteralFits(lit, t.bits);
    if (!ok) this.typeError(`number ${lit}`, t.goType);
  }

  private struct(t: FieldType): void {
    if (!this.openObject()) return;
    const strict = this.strict;
    const base = this.dupTop;
    let big: Map<string, number> | undefined;
    do {
      const ref = this.structKey(t);
      if (ref === undefined) {
        this.unknownSeen = true;
        if (strict && !t.preserveUnknown) this.strictError('unknown field', this.lastKey());
        this.skip();
        continue;
      }
      const key = ref.name;
      const f = ref.type;
      // Tracked at every level: even the non-strict decoder merges a repeated struct
      // field into the first, which the caller must know. Only declared fields count,
      // so a repeated unknown key is reported once, as unknown.
      const first = this.s.charCodeAt(this.i);
      const prev = this.seenBefore(base, key, first, big);
      if (prev >= 0) {
        if (strict) this.strictError('duplicate field', key);
        if (mergesInto(f, prev, first)) this.mergedDuplicates = true;
      }
      big = this.maybeBig(base, big);
      this.push(Frame.Field, key, 0, t.structName);
      this.value(f);
      this.depth--;
    } while (this.nextMember());
    this.dupTop = base;
  }

  /** map[string]T, or interface{} objects (elem ANY): every key counts for duplicates. */
  private map(elem: FieldType): void {
    if (!this.openObject()) return;
    const strict = this.strict;
    const base = this.dupTop;
    let big: Map<string, number> | undefined;
    do {
      const key = this.memberKey();
      if (strict) {
        if (this.seenBefore(base, key, 0, big) >= 0) this.strictError('duplicate field', key);
        big = this.maybeBig(base, big);
      }
      this.push(Frame.Key, key, 0, '');
      this.noteNullElement(elem);
      this.value(elem);
      this.depth--;
    } while (this.nextMember());
    this.dupTop = base;
  }

  /**
   * An interface{} value: what map(ANY) and list(ANY_LIST) do, with an
   * explicit stack, since free-form data may nest as deep as a body may
   * (10,000 levels) and nothing above it bounds the recursion.
   */
  private anyValue(): void {
    interface Open {
      list: boolean;
      base: number;
      big: Map<string, number> | undefined;
      index: number;
    }
    const open: Open[] = [];
    let entering = true;
    for (;;) {
      if (entering) {
        this.ws();
        const c = this.s.charCodeAt(this.i);
        if (c === 0x7b && this.openObject()) {
          const frame: Open = { list: false, base: this.dupTop, big: undefined, index: 0 };
          open.push(frame);
          this.anyMember(frame);
          continue;
        }
        if (c === 0x5b) {
          this.i++;
          this.ws();
          if (this.s.charCodeAt(this.i) !== 0x5d) {
            open.push({ list: true, base: 0, big: undefined, index: 0 });
            this.push(Frame.Index, '', 0, '');
            this.noteNullElement(ANY);
            continue;
          }
          this.i++;
        } else if (c !== 0x7b) this.skip();
      }
      // A value is complete: step its container on to the next member or item, or close it.
      const top = open[open.length - 1];
      if (top === undefined) return;
      this.depth--;
      entering = false;
      if (top.list) {
        this.ws();
        const c = this.s.charCodeAt(this.i);
        this.i++;
        if (c === 0x2c) {
          this.push(Frame.Index, '', ++top.index, '');
          this.noteNullElement(ANY);
          entering = true;
        } else if (c === 0x5d) open.pop();
        else throw new MalformedJsonError(this.i - 1);
      } else if (this.nextMember()) {
        this.anyMember(top);
        entering = true;
      } else {
        this.dupTop = top.base;
        open.pop();
      }
    }
  }

  /** An interface{} object's next key, as map(ANY) reads it: duplicates counted, its path frame pushed. */
  private anyMember(frame: { base: number; big: Map<string, number> | undefined }): void {
    const key = this.memberKey();
    if (this.strict) {
      if (this.seenBefore(frame.base, key, 0, frame.big) >= 0) this.strictError('duplicate field', key);
      frame.big = this.maybeBig(frame.base, frame.big);
    }
    this.push(Frame.Key, key, 0, '');
    this.noteNullElement(ANY);
  }

  private noteNullElement(elem: FieldType): void {
    if (this.nullElementSeen || !zeroesNull(elem)) return;
    this.ws();
    if (this.s.charCodeAt(this.i) === 0x6e) this.nullElementSeen = true;
  }

  private list(t: FieldType): void {
    const elem = t.elem;
    this.i++; // '['
    this.ws();
    if (this.s.charCodeAt(this.i) === 0x5d) {
      this.i++;
      return;
    }
    for (let idx = 0; ; idx++) {
      this.push(Frame.Index, '', idx, '');
      this.noteNullElement(elem);
      this.value(elem);
      this.depth--;
      this.ws();
      const c = this.s.charCodeAt(this.i);
      this.i++;
      if (c === 0x5d) return;
      if (c !== 0x2c) throw new MalformedJsonError(this.i - 1);
    }
  }

  /** resource.Quantity.UnmarshalJSON: the raw bytes, quotes stripped, spaces trimmed, parsed. */
  private quantity(c: number): void {
    if (c === 0x6e) {
      this.readLiteral();
      return;
    }
    let raw = this.rawValue();
    if (raw.length >= 2 && raw.charCodeAt(0) === 0x22 && raw.charCodeAt(raw.length - 1) === 0x22) raw = raw.slice(1, -1);
    const err = quantityError(raw.trim());
    if (err !== undefined) throw new FatalDecodeError(err);
  }

  /** intstr.IntOrString.UnmarshalJSON: a string, or json.Unmarshal into int32 with a fresh decoder. */
  private intOrString(c: number): void {
    if (c === 0x22 || c === 0x6e) {
      this.skip();
      return;
    }
    if ((c >= 0x30 && c <= 0x39) || c === 0x2d) {
      const lit = this.readLiteral();
      if (!intLiteralFits(lit, 32)) throw new FatalDecodeError(unmarshalTypeError(`number ${lit}`, 'int32', '', ''));
      return;
    }
    const desc = this.describe(c) as string;
    this.skip();
    throw new FatalDecodeError(unmarshalTypeError(desc, 'int32', '', ''));
  }

  /** metav1.Time/MicroTime.UnmarshalJSON: json.Unmarshal into a string, then time.Parse. */
  private time(c: number, layout: typeof RFC3339 | typeof RFC3339_MICRO): void {
    if (c === 0x6e) {
      this.readLiteral();
      return;
    }
    if (c !== 0x22) {
      const desc = this.describe(c) as string;
      this.skip();
      throw new FatalDecodeError(unmarshalTypeError(desc, 'string', '', ''));
    }
    const err = timeParseError(this.readString(), layout);
    if (err !== undefined) throw new FatalDecodeError(err);
  }

  /**
   * A custom UnmarshalJSON that calls k8s.io/apimachinery's json.Unmarshal on
   * its bytes: a fresh, non-strict decoder whose first error becomes the
   * method's (fatal) error. Unknown fields inside are dropped silently.
   */
  private nested(t: FieldType): void {
    const base = this.base;
    const strict = this.strict;
    const saved = this.saved;
    this.base = this.depth;
    this.strict = false;
    this.saved = undefined;
    this.value(t);
    const inner = this.saved;
    this.base = base;
    this.strict = strict;
    this.saved = saved;
    if (inner !== undefined) throw new FatalDecodeError(inner);
  }
}

/**
 * Whether Go decodes a repeated field's second value into the first instead
 * of replacing it: structs merge field by field, maps keep earlier entries,
 * and slices reuse their elements (which merge when they are structs or maps).
 */
function mergesInto(t: FieldType, prevFirst: number, first: number): boolean {
  if (prevFirst !== first) return false;
  if (first === 0x7b) return t.kind === Kind.Struct || t.kind === Kind.Map;
  if (first === 0x5b && t.kind === Kind.List) return t.elem.kind === Kind.Struct || t.elem.kind === Kind.Map;
  return false;
}

/** Scans `text` (valid JSON) as kube-apiserver decodes it into the Go type `root`. */
export function scanJson(text: string, root: FieldType, options: ScanOptions): ScanResult {
  const sc = new Scanner(text, options.strict, options.strictPrefix ?? '');
  const error = sc.run(root);
  return { strictErrors: error === undefined ? sc.strictErrors : [], error, mergedDuplicates: error === undefined && sc.mergedDuplicates, unknownFields: sc.unknownSeen, nullElements: sc.nullElementSeen };
}

/**
 * Whether encoding/json turns a null slice element or map value of this type
 * into a value (its zero value) rather than nil: structs and scalars do;
 * maps, slices, bytes, times, raw JSON and interfaces stay nil (null).
 */
export function zeroesNull(t: FieldType): boolean {
  switch (t.kind) {
    case Kind.Struct:
    case Kind.String:
    case Kind.Bool:
    case Kind.Int:
    case Kind.Float:
    case Kind.Quantity:
    case Kind.IntOrString:
      return true;
    default:
      return false;
  }
}
