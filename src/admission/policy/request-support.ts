import type { AuthorizerBinding, AuthorizerDecision, CelAuthorizationAttributes } from '../../cel/index.js';
import type { Authorizer } from '../../authz/authorizer.js';
import { ApiError, forbidden, type StatusCause } from '../../machinery/errors.js';
import type { AdmissionAttributes } from '../admission.js';

/** What admission policies share around their evaluation: the authorizer, kube's denial. */

/**
 * The `authorizer` variable's link to the server's authorizer chain, with
 * kube's per-request caching (NewCachingAuthorizer): the same check asked
 * twice in one request is answered once.
 */
export function cachingAuthorizerBinding(authorizer: Authorizer): AuthorizerBinding {
  const cache = new Map<string, Promise<AuthorizerDecision>>();
  return {
    authorize(a: CelAuthorizationAttributes): Promise<AuthorizerDecision> {
      const key = JSON.stringify(a);
      let hit = cache.get(key);
      if (!hit) {
        hit = authorizer.authorize({
          user: { username: a.user.username, groups: [...a.user.groups], ...(a.user.uid ? { uid: a.user.uid } : {}), ...(a.user.extra ? { extra: Object.fromEntries(Object.entries(a.user.extra).map(([k, v]) => [k, [...v]])) } : {}) },
          verb: a.verb,
          resourceRequest: a.resourceRequest,
          ...(a.path !== undefined ? { path: a.path } : {}),
          ...(a.apiGroup !== undefined ? { group: a.apiGroup } : {}),
          ...(a.apiVersion !== undefined ? { version: a.apiVersion } : {}),
          ...(a.resource !== undefined ? { resource: a.resource } : {}),
          ...(a.subresource !== undefined ? { subresource: a.subresource } : {}),
          ...(a.namespace !== undefined ? { namespace: a.namespace } : {}),
          ...(a.name !== undefined ? { name: a.name } : {}),
        }).then((d) => ({ decision: d.decision, reason: d.reason, ...(d.error ? { error: d.error } : {}) }));
        cache.set(key, hit);
      }
      return hit;
    },
  };
}

/** admission.NewForbidden's name: the request's, else the object's name or generateName, else "Unknown". */
function resourceName(attrs: AdmissionAttributes): string {
  if (attrs.name) return attrs.name;
  const meta = attrs.object?.metadata;
  if (!attrs.object) return '';
  return meta?.name || meta?.generateName || 'Unknown';
}

/**
 * kube's policy denial: admission.NewForbidden with the reason (and its
 * code) of the decision, the message repeated as the one cause. The generic
 * policy dispatcher (mutating policies) replaces the message outright and
 * keeps 403.
 */
export function policyDenial(
  attrs: AdmissionAttributes, message: string, reason: string, causes: readonly string[] = [message], options: { replaceMessage?: boolean } = {},
): ApiError {
  const f = forbidden({ group: attrs.resource.group, resource: attrs.resource.name }, resourceName(attrs), message);
  const details = { ...f.status.details, causes: causes.map((m): StatusCause => ({ message: m })) };
  if (options.replaceMessage) return new ApiError({ message, reason, details, code: 403 });
  return new ApiError({ message: f.status.message ?? message, reason, details, code: reasonToCode(reason) });
}

/** kube's reasonToCode: the reasons a validation may name; anything else is 422. */
export function reasonToCode(reason: string): number {
  switch (reason) {
    case 'Forbidden': return 403;
    case 'Unauthorized': return 401;
    case 'RequestEntityTooLarge': return 413;
    default: return 422;
  }
}
