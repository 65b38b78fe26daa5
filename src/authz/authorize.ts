import type { UserInfo } from '../server/context.js';
import { ApiError } from '../server/errors.js';
import type { RequestInfo } from '../server/request-info.js';

/**
 * Authorization until RBAC lands: authenticated users may do everything
 * (like --authorization-mode=AlwaysAllow); anonymous users only get what
 * kube-apiserver's default `system:public-info-viewer` role grants them.
 */

const PUBLIC_PATHS = ['/healthz', '/livez', '/readyz', '/version'];

function isPublic(path: string): boolean {
  return PUBLIC_PATHS.some((p) => path === p || path.startsWith(`${p}/`));
}

export function authorize(user: UserInfo, info: RequestInfo): void {
  if (user.groups.includes('system:authenticated')) return;
  if (!info.isResourceRequest) {
    if (info.verb === 'get' && isPublic(info.path)) return;
    throw forbiddenPath(user, info.verb, info.path);
  }
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
