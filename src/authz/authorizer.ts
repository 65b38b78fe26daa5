import type { UserInfo } from '../machinery/context.js';
import { ApiError } from '../machinery/errors.js';
import type { RequestInfo } from '../machinery/request-info.js';

/**
 * Authorization as kube-apiserver structures it (k8s.io/apiserver
 * authorizer): each authorizer allows, denies or has no opinion, with a
 * reason; a union asks them in order and the first Allow or Deny decides.
 */

/** What authorizers look at (authorizer.Attributes). */
export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  resourceRequest: boolean;
  /** Non-resource requests. */
  path?: string;
  namespace?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  /** The request's raw fieldSelector and labelSelector (kube's AuthorizeWithSelectors), for list, watch and deletecollection. */
  fieldSelector?: string;
  labelSelector?: string;
}

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthorizationDecision {
  decision: Decision;
  reason: string;
  /** An evaluation error (e.g. a webhook that did not answer): unless the request is allowed, kube answers 500 with it. */
  error?: string;
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

/** What a user may do in a namespace, as far as an authorizer can list it (SelfSubjectRulesReview). */
export interface RulesResult {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  /** Another rule source may allow more than listed. */
  incomplete: boolean;
  /** Why a rule source could not list (SelfSubjectRulesReview's evaluationError). */
  error?: string;
}

export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): Promise<AuthorizationDecision>;
  /** kube's RuleResolver; authorizers that cannot list rules leave it out (their answer is incomplete). */
  rulesFor?(user: UserInfo, namespace: string): Promise<RulesResult>;
}

/** kube's union authorizer: the first Allow or Deny decides; otherwise no opinion with every reason. */
export class UnionAuthorizer implements Authorizer {
  constructor(private readonly authorizers: readonly Authorizer[]) {}

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationDecision> {
    const reasons: string[] = [];
    const errors: string[] = [];
    for (const a of this.authorizers) {
      const d = await a.authorize(attrs);
      if (d.error) errors.push(d.error);
      if (d.decision !== 'NoOpinion') return errors.length > 0 ? { ...d, error: aggregateErrors(errors) } : d;
      if (d.reason) reasons.push(d.reason);
    }
    const out: AuthorizationDecision = { decision: 'NoOpinion', reason: reasons.join('\n') };
    if (errors.length > 0) out.error = aggregateErrors(errors);
    return out;
  }

  async rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
    const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
    const errors: string[] = [];
    for (const a of this.authorizers) {
      if (!a.rulesFor) {
        out.incomplete = true;
        continue;
      }
      const r = await a.rulesFor(user, namespace);
      out.resourceRules.push(...r.resourceRules);
      out.nonResourceRules.push(...r.nonResourceRules);
      out.incomplete ||= r.incomplete;
      if (r.error) errors.push(r.error);
    }
    if (errors.length > 0) out.error = aggregateErrors(errors);
    return out;
  }
}

/** utilerrors.NewAggregate: one error as itself, several as [a, b]. */
function aggregateErrors(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
}

export function attributesOf(user: UserInfo, info: RequestInfo, query?: URLSearchParams): AuthorizationAttributes {
  if (!info.isResourceRequest) return { user, verb: info.verb, resourceRequest: false, path: info.path };
  const selectors: Pick<AuthorizationAttributes, 'fieldSelector' | 'labelSelector'> = {};
  if (query && (info.verb === 'list' || info.verb === 'watch' || info.verb === 'deletecollection')) {
    const field = query.get('fieldSelector');
    const label = query.get('labelSelector');
    if (field) selectors.fieldSelector = field;
    if (label) selectors.labelSelector = label;
  }
  return {
    ...selectors,
    user,
    verb: info.verb,
    resourceRequest: true,
    namespace: info.namespace,
    group: info.group,
    version: info.version,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
  };
}

/** kube-apiserver's 403 for a request its authorizers did not allow (responsewriters.Forbidden). */
export function forbidden(attrs: AuthorizationAttributes, reason: string): ApiError {
  const suffix = reason ? `: ${reason}` : '';
  const user = attrs.user.username;
  if (!attrs.resourceRequest) {
    return new ApiError({ message: `forbidden: User "${user}" cannot ${attrs.verb} path "${attrs.path ?? ''}"${suffix}`, reason: 'Forbidden', details: {}, code: 403 });
  }
  const resource = attrs.resource ?? '';
  const group = attrs.group ?? '';
  const where = attrs.namespace ? `in the namespace "${attrs.namespace}"` : 'at the cluster scope';
  const qualified = group ? `${resource}.${group}` : resource;
  const target = attrs.name ? `${qualified} "${attrs.name}"` : qualified;
  const details: Record<string, string> = {};
  if (attrs.name) details.name = attrs.name;
  if (group) details.group = group;
  details.kind = resource;
  const shown = attrs.subresource ? `${resource}/${attrs.subresource}` : resource;
  return new ApiError({
    message: `${target} is forbidden: User "${user}" cannot ${attrs.verb} resource "${shown}" in API group "${group}" ${where}${suffix}`,
    reason: 'Forbidden',
    details,
    code: 403,
  });
}
