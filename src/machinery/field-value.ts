/**
 * How field.Error.ErrorBody prints a bad value: numbers and booleans plain,
 * strings quoted (%q), nil as "null", anything else with Go's %#v. JSON
 * values carry no Go type, so maps and lists print as the Go types kube's
 * validation holds for them (map[string]string, []string: labels, selectors,
 * cluster IPs); a validator that knows the Go struct passes a GoRepr.
 */

/** A value already rendered as Go's %#v would print it (e.g. a struct). */
export interface GoRepr {
  goRepr: string;
}

export function goRepr(text: string): GoRepr {
  return { goRepr: text };
}

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
