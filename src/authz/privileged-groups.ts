import type { UserInfo } from '../machinery/context.js';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer, RulesResult } from './authorizer.js';

/**
 * kube's privileged group authorizer: members of these groups (kube-apiserver
 * puts system:masters in front of every other authorizer, which is what lets
 * its loopback client through whatever authorizers are configured) may do
 * anything; everyone else gets no opinion. In kube it is no rule resolver, so
 * it adds no rules to a rules review (and does not make one incomplete).
 */
export class PrivilegedGroupsAuthorizer implements Authorizer {
  constructor(private readonly groups: readonly string[]) {}

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationDecision> {
    if (attrs.user.groups.some((g) => this.groups.includes(g))) return { decision: 'Allow', reason: '' };
    return { decision: 'NoOpinion', reason: '' };
  }

  async rulesFor(_user: UserInfo, _namespace: string): Promise<RulesResult> {
    return { resourceRules: [], nonResourceRules: [], incomplete: false };
  }
}
