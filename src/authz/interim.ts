import type { UserInfo } from '../machinery/context.js';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer, RulesResult } from './authorizer.js';

/**
 * Authorization until RBAC lands: authenticated users may do everything
 * (like --authorization-mode=AlwaysAllow); anonymous users only get what
 * kube-apiserver's default `system:public-info-viewer` role grants them, and
 * otherwise no opinion (so the request is forbidden).
 */

const PUBLIC_PATHS = ['/healthz', '/livez', '/readyz', '/version'];

function isPublic(path: string): boolean {
  return PUBLIC_PATHS.some((p) => path === p || path.startsWith(`${p}/`));
}

function isAuthenticated(user: UserInfo): boolean {
  return user.groups.includes('system:authenticated') || user.groups.includes('system:masters');
}

export class InterimAuthorizer implements Authorizer {
  async authorize(a: AuthorizationAttributes): Promise<AuthorizationDecision> {
    if (isAuthenticated(a.user)) return { decision: 'Allow', reason: '' };
    if (!a.resourceRequest && a.verb === 'get' && a.path !== undefined && isPublic(a.path)) return { decision: 'Allow', reason: '' };
    return { decision: 'NoOpinion', reason: '' };
  }

  async rulesFor(user: UserInfo): Promise<RulesResult> {
    if (isAuthenticated(user)) {
      return {
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
        incomplete: false,
      };
    }
    return { resourceRules: [], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: PUBLIC_PATHS.flatMap((p) => [p, `${p}/*`]) }], incomplete: false };
  }
}
