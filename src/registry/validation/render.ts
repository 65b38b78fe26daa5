import { goQuote, goSyntax, type GoRepr } from '../../machinery/field-value.js';

export { goQuote, goSyntax, renderFieldValue } from '../../machinery/field-value.js';

/**
 * How field.Error.ErrorBody prints a bad value: numbers and booleans plain,
 * strings quoted (%q), nil as "null", anything else with Go's %#v. JSON
 * values carry no Go type, so maps and lists print as the Go types kube's
 * validation holds for them: map[string]string and []string (the common
 * cases: labels, selectors, cluster IPs); structs pass a GoRepr made by the
 * validator. server/errors.ts's renderValue should delegate here.
 */
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
