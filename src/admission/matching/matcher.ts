import type { ApiCatalog } from '../../api/catalog.js';
import type { GroupVersionKind, ResourceInfo } from '../../api/types.js';
import type { KubeObject } from '../../machinery/object.js';
import type { AdmissionAttributes } from '../admission.js';
import type { MatchedVersion } from './admission-request.js';
import { convertForMatch, EquivalentResources, kindOf } from './equivalents.js';
import { ruleMatches, ruleTarget, type NamedRuleWithOperations, type RuleTarget, type RuleWithOperations } from './rules.js';
import { matchNamespaceSelector, matchObjectSelector, type LabelSelectorSpec, type NamespaceGetter } from './selectors.js';

/**
 * Which requests a webhook or an admission policy applies to, as kube's
 * generic webhook ShouldCallHook and the policies' generic Matcher decide:
 * namespaceSelector, objectSelector, then the rules (under matchPolicy
 * Equivalent also against the same objects' other groups/versions, earlier
 * rules first). A selector that could not be evaluated fails the request
 * only when the rules matched. The result names the resource and kind
 * matched: the request is converted to that version for the webhook.
 */

export type MatchPolicy = 'Exact' | 'Equivalent';

/** A webhook's criteria (admissionregistration v1 ValidatingWebhook / MutatingWebhook). */
export interface WebhookCriteria {
  rules?: readonly RuleWithOperations[];
  matchPolicy?: MatchPolicy;
  namespaceSelector?: LabelSelectorSpec;
  objectSelector?: LabelSelectorSpec;
}

/** A policy's or binding's matchResources. */
export interface MatchResources {
  namespaceSelector?: LabelSelectorSpec;
  objectSelector?: LabelSelectorSpec;
  resourceRules?: readonly NamedRuleWithOperations[];
  excludeResourceRules?: readonly NamedRuleWithOperations[];
  matchPolicy?: MatchPolicy;
}

/** The resource and kind a webhook or policy matched the request as. */
export interface Match {
  resource: ResourceInfo;
  kind: GroupVersionKind;
}

export class AdmissionMatcher {
  private readonly equivalents: EquivalentResources;

  constructor(catalog: ApiCatalog, private readonly getNamespace: NamespaceGetter) {
    this.equivalents = new EquivalentResources(catalog);
  }

  /** kube's ShouldCallHook without matchConditions; throws the selectors' error (an ApiError) when the rules matched. */
  async matchWebhook(criteria: WebhookCriteria, attrs: AdmissionAttributes): Promise<Match | undefined> {
    const ns = await matchNamespaceSelector(criteria.namespaceSelector, attrs, this.getNamespace);
    if (!ns.matches && !ns.error) return undefined;
    const obj = matchObjectSelector(criteria.objectSelector, attrs);
    if (!obj.matches && !obj.error) return undefined;
    const rules = criteria.rules ?? [];
    const target = ruleTarget(attrs);
    let match: Match | undefined;
    if (rules.some((r) => ruleMatches(r, target))) match = { resource: attrs.resource, kind: kindOf(attrs.resource, attrs.subresource) };
    if (!match && criteria.matchPolicy === 'Equivalent') {
      const equivalents = this.equivalents.equivalentsOf(attrs.resource, attrs.subresource);
      outer: for (const rule of rules) {
        for (const eq of equivalents) {
          if (eq === attrs.resource) continue;
          if (ruleMatches(rule, withResource(target, eq))) {
            match = { resource: eq, kind: kindOf(eq, attrs.subresource) };
            break outer;
          }
        }
      }
    }
    if (!match) return undefined;
    if (ns.error) throw ns.error;
    if (obj.error) throw obj.error;
    return match;
  }

  /** kube's policy Matcher.Matches: selectors, excludeResourceRules, then resourceRules (all requests when none). */
  async matchResources(criteria: MatchResources, attrs: AdmissionAttributes): Promise<Match | undefined> {
    const ns = await matchNamespaceSelector(criteria.namespaceSelector, attrs, this.getNamespace);
    if (!ns.matches && !ns.error) return undefined;
    const obj = matchObjectSelector(criteria.objectSelector, attrs);
    if (!obj.matches && !obj.error) return undefined;
    if (this.matchNamedRules(criteria.excludeResourceRules ?? [], criteria.matchPolicy, attrs)) return undefined;
    const rules = criteria.resourceRules ?? [];
    const match = rules.length === 0 ? { resource: attrs.resource, kind: kindOf(attrs.resource, attrs.subresource) } : this.matchNamedRules(rules, criteria.matchPolicy, attrs);
    if (!match) return undefined;
    if (ns.error) throw ns.error;
    if (obj.error) throw obj.error;
    return match;
  }

  /** kube's matchesResourceRules: exact rules with their resourceNames first, then (Equivalent) the equivalents, which kube matches without resourceNames. */
  private matchNamedRules(rules: readonly NamedRuleWithOperations[], policy: MatchPolicy | undefined, attrs: AdmissionAttributes): Match | undefined {
    const target = ruleTarget(attrs);
    for (const rule of rules) {
      if (!ruleMatches(rule, target)) continue;
      const names = rule.resourceNames ?? [];
      if (names.length === 0 || names.includes(attrs.name)) return { resource: attrs.resource, kind: kindOf(attrs.resource, attrs.subresource) };
    }
    if (policy !== 'Equivalent') return undefined;
    const equivalents = this.equivalents.equivalentsOf(attrs.resource, attrs.subresource);
    for (const rule of rules) {
      for (const eq of equivalents) {
        if (eq === attrs.resource) continue;
        if (ruleMatches(rule, withResource(target, eq))) return { resource: eq, kind: kindOf(eq, attrs.subresource) };
      }
    }
    return undefined;
  }
}

function withResource(target: RuleTarget, r: ResourceInfo): RuleTarget {
  return { ...target, group: r.group, version: r.version, resource: r.name };
}

/**
 * The request's objects in the versions webhooks and policies matched,
 * converted once per version for all of them (kube's
 * VersionedAttributeAccessor). `refresh` after a mutation.
 */
export class VersionedObjects {
  private readonly byVersion = new Map<string, { object?: KubeObject; oldObject?: KubeObject }>();

  constructor(private readonly attrs: AdmissionAttributes) {}

  of(match: Match): MatchedVersion {
    const key = `${match.resource.group}/${match.resource.version}`;
    let objects = this.byVersion.get(key);
    if (!objects) {
      const { attrs } = this;
      objects = {
        ...(attrs.object ? { object: convertForMatch(attrs.object, attrs.resource, match.resource, attrs.subresource) } : {}),
        ...(attrs.oldObject ? { oldObject: convertForMatch(attrs.oldObject, attrs.resource, match.resource, attrs.subresource) } : {}),
      };
      this.byVersion.set(key, objects);
    }
    return { resource: match.resource, kind: match.kind, ...objects };
  }

  /** Forget the conversions (the object changed). */
  refresh(): void {
    this.byVersion.clear();
  }
}
