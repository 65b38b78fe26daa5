import { goTypedJsonText } from '../../codec/go-json.js';
import { goJson, type GoJson } from '../../machinery/field-value.js';

export { goQuote, renderFieldValue } from '../../machinery/field-value.js';

/**
 * The bad value of selector errors: kube passes the *metav1.LabelSelector,
 * which json.Marshal writes with its tags (matchLabels and matchExpressions
 * omitempty), a nil one as null.
 */
export function labelSelectorRepr(selector: unknown): GoJson | null {
  if (selector === null || selector === undefined) return null;
  return goJson(goTypedJsonText('k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector', selector));
}
