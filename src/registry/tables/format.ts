import type { KubeObject } from '../../machinery/object.js';
import { rec, recs, str, stringMap, strings, type JsonRecord } from './values.js';

/**
 * The formatting helpers kube's printers share (pkg/printers/internalversion,
 * apimachinery duration, labels and metav1 selector String forms).
 */

/** duration.HumanDuration: the AGE column's wording. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    return dy === 0 ? `${Math.trunc(hours / 24 / 365)}y` : `${Math.trunc(hours / 24 / 365)}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** Go's zero time.Time as JSON would carry it; IsZero() for printers. */
const ZERO_TIME_MS = -62135596800000; // 0001-01-01T00:00:00Z

/** A metav1.Time / MicroTime in milliseconds, or undefined for nil, zero or unparsable. */
export function timeOf(v: unknown): number | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  const ms = Date.parse(v);
  if (Number.isNaN(ms) || ms === ZERO_TIME_MS) return undefined;
  return ms;
}

/** translateTimestampSince / translateMicroTimestampSince. */
export function since(v: unknown, now: number): string {
  const t = timeOf(v);
  return t === undefined ? '<unknown>' : humanDuration(now - t);
}

/** The AGE cell: translateTimestampSince(obj.CreationTimestamp). */
export function age(obj: KubeObject, now: number): string {
  return since(obj.metadata?.creationTimestamp, now);
}

export function nameOf(obj: KubeObject): string {
  return str(obj.metadata?.name);
}

export function annotationsOf(obj: KubeObject): Record<string, string> {
  return stringMap(obj.metadata?.annotations);
}

export function labelsOf(obj: KubeObject): Record<string, string> {
  return stringMap(obj.metadata?.labels);
}

export function isDeleting(obj: KubeObject): boolean {
  const ts = obj.metadata?.deletionTimestamp;
  return ts !== undefined && ts !== null;
}

/** printBool / printBoolPtr. */
export function printBool(v: boolean): string {
  return v ? 'True' : 'False';
}

export function printBoolPtr(v: unknown): string {
  return typeof v === 'boolean' ? printBool(v) : '<unset>';
}

/** labels.Set.String: sorted `k=v` pairs joined by commas. */
export function labelSetString(m: Record<string, string>): string {
  return Object.keys(m)
    .sort()
    .map((k) => `${k}=${m[k]}`)
    .join(',');
}

/** labels.FormatLabels: `<none>` for an empty set. */
export function formatLabels(v: unknown): string {
  return labelSetString(stringMap(v)) || '<none>';
}

const LABEL_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** validation.IsQualifiedName, as labels.NewRequirement checks keys. */
function validLabelKey(key: string): boolean {
  const parts = key.split('/');
  let name = key;
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix === '' || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)) return false;
  } else if (parts.length > 2) {
    return false;
  }
  return name !== '' && name.length <= 63 && LABEL_PART.test(name);
}

function validLabelValue(value: string): boolean {
  return value === '' || (value.length <= 63 && LABEL_PART.test(value));
}

interface Requirement {
  key: string;
  text: string;
}

function requirement(key: string, op: string, values: string[]): Requirement | null {
  if (!validLabelKey(key)) return null;
  switch (op) {
    case '=':
      if (values.length !== 1 || !validLabelValue(values[0] ?? '')) return null;
      return { key, text: `${key}=${values[0] ?? ''}` };
    case 'In':
    case 'NotIn': {
      if (values.length === 0 || !values.every(validLabelValue)) return null;
      // Requirement.String sorts the values of a set requirement.
      const shown = values.length === 1 ? values[0] : [...values].sort().join(',');
      return { key, text: `${key} ${op === 'In' ? 'in' : 'notin'} (${shown})` };
    }
    case 'Exists':
    case 'DoesNotExist':
      if (values.length !== 0) return null;
      return { key, text: op === 'Exists' ? key : `!${key}` };
    default:
      return null;
  }
}

/**
 * metav1.LabelSelectorAsSelector(sel).String(): "" for a nil or empty
 * selector, null when the selector does not convert (bad key, value or
 * operator). Requirements are ordered by key, as Selector.Add sorts them.
 */
export function labelSelectorString(sel: unknown): string | null {
  if (sel === undefined || sel === null || typeof sel !== 'object') return '';
  const s = rec(sel);
  const matchLabels = stringMap(s.matchLabels);
  const exprs = recs(s.matchExpressions);
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries(matchLabels)) {
    const r = requirement(k, '=', [v]);
    if (!r) return null;
    reqs.push(r);
  }
  for (const e of exprs) {
    const r = requirement(str(e.key), str(e.operator), strings(e.values));
    if (!r) return null;
    reqs.push(r);
  }
  // Array.prototype.sort is stable, like the insertion sort Go uses at these sizes.
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return reqs.map((r) => r.text).join(',');
}

/** metav1.FormatLabelSelector: `<error>` when invalid, `<none>` when empty. */
export function formatLabelSelector(sel: unknown): string {
  const s = labelSelectorString(sel);
  if (s === null) return '<error>';
  return s === '' ? '<none>' : s;
}

/** The generated (*metav1.LabelSelector).String(), as ValidatingAdmissionPolicyBinding's ParamRef cell shows it. */
export function labelSelectorGoString(sel: JsonRecord): string {
  const labels = stringMap(sel.matchLabels);
  const map = Object.keys(labels)
    .sort()
    .map((k) => `${k}: ${labels[k]},`)
    .join('');
  const exprs = recs(sel.matchExpressions)
    .map((e) => `LabelSelectorRequirement{Key:${str(e.key)},Operator:${str(e.operator)},Values:[${strings(e.values).join(' ')}],},`)
    .join('');
  return `&LabelSelector{MatchLabels:map[string]string{${map}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}

/** layoutContainerCells: names and images joined by commas. */
export function containerCells(containers: unknown): [string, string] {
  const cs = recs(containers);
  return [cs.map((c) => str(c.name)).join(','), cs.map((c) => str(c.image)).join(',')];
}

/** listWithMoreString: the first few, "+ N more...", or `<unset>` for none. */
export function listWithMore(items: string[], max = 3): string {
  const shown = items.slice(0, max);
  if (items.length > max) return `${shown.join(',')} + ${items.length - max} more...`;
  return shown.length === 0 ? '<unset>' : shown.join(',');
}

/** sets.String.List(): sorted, without duplicates. */
export function sortedUnique(values: string[]): string[] {
  return [...new Set(values)].sort();
}

/** Whether the first condition of the given type has status True (hasJobCondition and friends). */
export function firstConditionTrue(conditions: unknown, type: string): boolean {
  const c = recs(conditions).find((x) => x.type === type);
  return c !== undefined && c.status === 'True';
}

/** A group-qualified name as schema.GroupResource / GroupKind String() writes it. */
export function groupQualified(name: string, group: string): string {
  return group === '' ? name : `${name}.${group}`;
}

