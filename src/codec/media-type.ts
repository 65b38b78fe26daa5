/**
 * Media types and content negotiation as kube-apiserver does it: an Accept
 * header lists media ranges with parameters (`as`, `g`, `v` select a view such
 * as Table or PartialObjectMetadata) and q weights; the first acceptable range
 * in weight order wins; nothing acceptable is 406.
 */

export interface MediaRange {
  type: string;
  subtype: string;
  params: Record<string, string>;
  q: number;
}

/** Parses `type/subtype; k=v, ...` lists. Malformed entries are skipped, as Go's negotiation does. */
export function parseMediaRanges(header: string | undefined): MediaRange[] {
  if (!header) return [];
  const out: MediaRange[] = [];
  for (const part of splitOutsideQuotes(header, ',')) {
    const r = parseMediaType(part);
    if (r) out.push(r);
  }
  return out;
}

export function parseMediaType(text: string): MediaRange | undefined {
  const pieces = splitOutsideQuotes(text, ';').map((p) => p.trim());
  const full = (pieces.shift() ?? '').toLowerCase();
  const slash = full.indexOf('/');
  if (slash <= 0 || slash === full.length - 1) {
    if (full === '*') return { type: '*', subtype: '*', params: {}, q: 1 };
    return undefined;
  }
  const params: Record<string, string> = {};
  let q = 1;
  for (const p of pieces) {
    if (!p) continue;
    const eq = p.indexOf('=');
    if (eq <= 0) continue;
    const key = p.slice(0, eq).trim().toLowerCase();
    let value = p.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    if (key === 'q') {
      const n = Number(value);
      q = Number.isFinite(n) ? Math.min(Math.max(n, 0), 1) : 1;
    } else params[key] = value;
  }
  return { type: full.slice(0, slash), subtype: full.slice(slash + 1), params, q };
}

function splitOutsideQuotes(s: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (const ch of s) {
    if (ch === '"') quoted = !quoted;
    if (ch === sep && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((x) => x.trim()).filter((x) => x.length > 0);
}

/**
 * Ranges ordered by q, without q=0 entries; for equal q a specific type goes
 * before `*` and a specific subtype before `type/*` (goautoneg's order),
 * otherwise earlier first.
 */
export function byPreference(ranges: MediaRange[]): MediaRange[] {
  const wild = (r: MediaRange): number => (r.type === '*' ? 2 : r.subtype === '*' ? 1 : 0);
  return ranges
    .map((r, i) => ({ r, i }))
    .filter(({ r }) => r.q > 0)
    .sort((a, b) => b.r.q - a.r.q || wild(a.r) - wild(b.r) || a.i - b.i)
    .map(({ r }) => r);
}

export const JSON_TYPE = 'application/json';
export const YAML_TYPE = 'application/yaml';
export const PROTOBUF_TYPE = 'application/vnd.kubernetes.protobuf';
/** Served only with the CBORServingAndStorage gate. */
export const CBOR_TYPE = 'application/cbor';
/** A watch in CBOR: one data item per event (RFC 8742). */
export const CBOR_SEQ_TYPE = 'application/cbor-seq';

/** Serializations the server reads and writes. */
export const SERVED_ENCODINGS = [JSON_TYPE, YAML_TYPE, PROTOBUF_TYPE, CBOR_TYPE] as const;
export type Encoding = (typeof SERVED_ENCODINGS)[number];
export const ADVERTISED_TYPES = [JSON_TYPE, YAML_TYPE, PROTOBUF_TYPE];
/** The media types kube lists when CBOR is served (its codec factory appends the CBOR serializer). */
export const ADVERTISED_TYPES_WITH_CBOR = [...ADVERTISED_TYPES, CBOR_TYPE];

/** The media types to name in a 406/415, with or without CBOR served. */
export function advertisedTypes(cbor: boolean): string[] {
  return cbor ? ADVERTISED_TYPES_WITH_CBOR : ADVERTISED_TYPES;
}

/** A wire encoding matched by a media range (wildcards resolve to JSON); CBOR only when served. */
export function encodingFor(r: MediaRange, cbor = false): Encoding | undefined {
  if (cbor && r.type === 'application' && r.subtype === 'cbor') return CBOR_TYPE;
  if (r.type === '*' && r.subtype === '*') return JSON_TYPE;
  if (r.type === 'application' && r.subtype === '*') return JSON_TYPE;
  if (r.type !== 'application') return undefined;
  if (r.subtype === 'json') return JSON_TYPE;
  if (r.subtype === 'yaml') return YAML_TYPE;
  if (r.subtype === 'vnd.kubernetes.protobuf') return PROTOBUF_TYPE;
  return undefined;
}
