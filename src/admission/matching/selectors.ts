import { internalError } from '../../machinery/errors.js';
import type { KubeObject } from '../../machinery/object.js';
import { labelSelectorMatches } from '../../machinery/selectors.js';
import type { AdmissionAttributes } from '../admission.js';
import { isNamespaceResource, requestNamespace } from './rules.js';

/**
 * kube's namespace and object predicates (admission/plugin/webhook/predicates
 * namespace and object): a webhook's or policy's namespaceSelector and
 * objectSelector. Both answer "does not match" or an error; kube decides
 * what an error means only once the rules matched (see matcher.ts).
 */

/** A metav1.LabelSelector as stored (matchLabels + matchExpressions). */
export interface LabelSelectorSpec {
  matchLabels?: Record<string, string>;
  matchExpressions?: readonly { key: string; operator: string; values?: readonly string[] }[];
}

export type SelectorResult = { matches: boolean; error?: undefined } | { matches: false; error: Error };

/** Reads one namespace (through the watch cache, then storage, as kube's lister with its live GET fallback). */
export type NamespaceGetter = (name: string) => Promise<KubeObject | undefined>;

/** An absent or empty selector selects everything (the API defaults both to {}). */
export function isEmptySelector(selector: LabelSelectorSpec | undefined | null): boolean {
  if (!selector) return true;
  return Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;
}

/**
 * kube's MatchNamespaceSelector: requests for cluster-scoped objects other
 * than namespaces always match; a namespace created or updated is matched by
 * its own (new) labels, anything else by its namespace's stored labels.
 */
export async function matchNamespaceSelector(
  selector: LabelSelectorSpec | undefined,
  attrs: AdmissionAttributes,
  getNamespace: NamespaceGetter,
): Promise<SelectorResult> {
  const namespace = requestNamespace(attrs);
  const isNamespace = isNamespaceResource(attrs.resource.group, attrs.resource.name);
  if (namespace === '' && !isNamespace) return { matches: true };
  if (isEmptySelector(selector)) return { matches: true };
  let labels: Record<string, string> | undefined;
  if (isNamespace && !attrs.subresource && (attrs.operation === 'CREATE' || attrs.operation === 'UPDATE')) {
    labels = attrs.object?.metadata?.labels;
  } else {
    try {
      const ns = await getNamespace(namespace);
      if (!ns) return { matches: false, error: internalError(`namespaces "${namespace}" not found`) };
      labels = ns.metadata?.labels;
    } catch (err) {
      return { matches: false, error: internalError(err) };
    }
  }
  return { matches: labelSelectorMatches(selector ?? {}, labels) };
}

/** kube's MatchObjectSelector: the new object's or the old object's labels. */
export function matchObjectSelector(selector: LabelSelectorSpec | undefined, attrs: Pick<AdmissionAttributes, 'object' | 'oldObject'>): SelectorResult {
  if (isEmptySelector(selector)) return { matches: true };
  const matches = (obj: KubeObject | undefined): boolean => obj !== undefined && obj.metadata !== undefined && labelSelectorMatches(selector, obj.metadata.labels);
  return { matches: matches(attrs.object) || matches(attrs.oldObject) };
}
