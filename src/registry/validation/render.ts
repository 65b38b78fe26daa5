import type { GoRepr } from './field.js';

/**
 * How field.Error.ErrorBody prints a bad value: numbers and booleans plain,
 * strings quoted (%q), nil as "null", anything else with Go's %#v. JSON
 * values carry no Go type, so maps and lists print as the Go types kube's
 * validation holds for them: map[string]string and []string (the common
 * cases: labels, selectors, cluster IPs); structs pass a GoRepr made by the
 * validator. server/errors.ts's renderValue should delegate here.
 */
export function renderFieldValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'object' && 'goRepr' in value && typeof (value as GoRepr).goRepr === 'string') return (value as GoRepr).goRepr;
  return goSyntax(value);
}

/** Go's %q for a string: JSON escaping is the same for printable text. */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}

/** %#v for the JSON shapes validation reports. */
export function goSyntax(value: unknown): string {
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v === 'string')) return `[]string{${value.map((v) => goQuote(v as string)).join(', ')}}`;
    return `[]interface {}{${value.map(goSyntax).join(', ')}}`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (entries.every(([, v]) => typeof v === 'string')) return `map[string]string{${entries.map(([k, v]) => `${goQuote(k)}:${goQuote(v as string)}`).join(', ')}}`;
    return `map[string]interface {}{${entries.map(([k, v]) => `${goQuote(k)}:${goSyntax(v)}`).join(', ')}}`;
  }
  if (typeof value === 'string') return goQuote(value);
  return String(value);
}

/** metav1.LabelSelector as %#v prints it (the famous immutable-selector message). */
export function labelSelectorRepr(selector: unknown): GoRepr {
  const s = (selector ?? {}) as { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key?: string; operator?: string; values?: string[] }> };
  const labels = s.matchLabels && Object.keys(s.matchLabels).length >= 0 && s.matchLabels ? goSyntax(s.matchLabels) : 'map[string]string(nil)';
  const exprs = s.matchExpressions
    ? `[]v1.LabelSelectorRequirement{${s.matchExpressions
        .map((e) => `v1.LabelSelectorRequirement{Key:${goQuote(e.key ?? '')}, Operator:${goQuote(e.operator ?? '')}, Values:${e.values ? goSyntax(e.values) : '[]string(nil)'}}`)
        .join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return { goRepr: `v1.LabelSelector{MatchLabels:${labels}, MatchExpressions:${exprs}}` };
}
