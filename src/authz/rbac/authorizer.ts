import type { UserInfo } from '../../machinery/context.js';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer, NonResourceRule, ResourceRule, RulesResult } from '../authorizer.js';
import type { RbacPolicyIndex } from './policy-index.js';
import { ruleAllows } from './rules.js';

/**
 * kube's RBAC authorizer (plugin/pkg/auth/authorizer/rbac): allowed when a
 * rule bound to the user allows the request, with the binding that did as
 * the reason; otherwise no opinion, with the role references that failed to
 * resolve as the reason.
 */
export class RbacAuthorizer implements Authorizer {
  constructor(private readonly index: RbacPolicyIndex) {}

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationDecision> {
    const { rules, errors } = this.index.resolve(attrs.user, attrs.namespace ?? '');
    for (const { source, rule } of rules) {
      if (ruleAllows(attrs, rule)) return { decision: 'Allow', reason: `RBAC: allowed by ${source}` };
    }
    return { decision: 'NoOpinion', reason: errors.length > 0 ? `RBAC: ${goAggregate(errors)}` : '' };
  }

  async rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [];
    for (const { rule } of this.index.resolve(user, namespace).rules) {
      if ((rule.resources ?? []).length > 0) {
        const r: ResourceRule = { verbs: rule.verbs, apiGroups: rule.apiGroups ?? [], resources: rule.resources! };
        if ((rule.resourceNames ?? []).length > 0) r.resourceNames = rule.resourceNames!;
        resourceRules.push(r);
      }
      if ((rule.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs! });
    }
    return { resourceRules, nonResourceRules, incomplete: false };
  }
}

/** utilerrors.NewAggregate(errs).Error(): one error as itself, several as `[a, b]`. */
export function goAggregate(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
}
