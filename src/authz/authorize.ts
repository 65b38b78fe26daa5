import type { UserInfo } from '../machinery/context.js';
import { ApiError } from '../machinery/errors.js';
import type { RequestInfo } from '../machinery/request-info.js';

/**
 * Authorization until RBAC lands: authenticated users may do everything
 * (like --authorization-mode=AlwaysAllow); anonymous users only get what
 * kube-apiserver's default `system:public-info-viewer` role grants them.
 * The same decision answers the access review APIs.
 */

/** What kube's authorizers look at (authorizer.Attributes). */
export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  resourceRequest: boolean;
  /** Non-resource requests. */
  path?: string;
  namespace?: string;
  group?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

export interface Decision {
  allowed: boolean;
  reason: string;
}

export interface ResourceRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
}

export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs: string[];
}

const PUBLIC_PATHS = ['/healthz', '/livez', '/readyz', '/version'];

function isPublic(path: string): boolean {
  return PUBLIC_PATHS.some((p) => path === p || path.startsWith(`${p}/`));
}

function isAuthenticated(user: UserInfo): boolean {
  return user.groups.includes('system:authenticated') || user.groups.includes('system:masters');
}

export function decide(a: AuthorizationAttributes): Decision {
  if (isAuthenticated(a.user)) return { allowed: true, reason: '' };
  if (!a.resourceRequest && a.verb === 'get' && a.path !== undefined && isPublic(a.path)) return { allowed: true, reason: '' };
  return { allowed: false, reason: '' };
}

/** The rules SelfSubjectRulesReview reports for a user under this authorizer. */
export function rulesFor(user: UserInfo): { resourceRules: ResourceRule[]; nonResourceRules: NonResourceRule[] } {
  if (isAuthenticated(user)) {
    return {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    };
  }
  return { resourceRules: [], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: PUBLIC_PATHS.flatMap((p) => [p, `${p}/*`]) }] };
}

export function attributesOf(user: UserInfo, info: RequestInfo): AuthorizationAttributes {
  if (!info.isResourceRequest) return { user, verb: info.verb, resourceRequest: false, path: info.path };
  return {
    user,
    verb: info.verb,
    resourceRequest: true,
    namespace: info.namespace,
    group: info.group,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
  };
}

/** Throws kube-apiserver's 403 when the request is not allowed. */
export function authorize(user: UserInfo, info: RequestInfo): void {
  if (decide(attributesOf(user, info)).allowed) return;
  if (!info.isResourceRequest) throw forbiddenPath(user, info.verb, info.path);
  const where = info.namespace ? `in the namespace "${info.namespace}"` : 'at the cluster scope';
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  const qualified = info.group ? `${info.resource}.${info.group}` : info.resource;
  const target = info.name ? `${qualified} "${info.name}"` : qualified;
  const details: Record<string, string> = {};
  if (info.name) details.name = info.name;
  if (info.group) details.group = info.group;
  details.kind = info.resource;
  throw new ApiError({
    message: `${target} is forbidden: User "${user.username}" cannot ${info.verb} resource "${resource}" in API group "${info.group}" ${where}`,
    reason: 'Forbidden',
    details,
    code: 403,
  });
}

function forbiddenPath(user: UserInfo, verb: string, path: string): ApiError {
  return new ApiError({
    message: `forbidden: User "${user.username}" cannot ${verb} path "${path}"`,
    reason: 'Forbidden',
    details: {},
    code: 403,
  });
}
