import { isPlainObject } from '../codec/codec.js';
import type { AuthorizationAttributes, Authorizer } from '../authz/authorizer.js';
import type { TokenReviewer } from '../authn/token-review.js';
import type { KubeObject } from '../machinery/object.js';
import type { UserInfo } from '../machinery/context.js';
import { badRequest, invalid, type FieldError } from '../machinery/errors.js';
import { readObjectBody } from '../http/body.js';
import { writeEncoded } from '../http/respond.js';
import { checkBodyObject, parseWriteOptions } from './create.js';
import type { ReviewKind } from '../registry/descriptor.js';
import type { ResourceScope } from './scope.js';

/**
 * The review APIs: create-only kinds answered from the authenticator's and
 * authorizer's own view (TokenReview, SelfSubjectReview,
 * SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview,
 * SelfSubjectRulesReview). Nothing is stored; the response is the request
 * with `status` filled in.
 */

export interface ReviewDeps {
  authorizer: Authorizer;
  /** Authenticates a TokenReview's token; absent: every TokenReview fails to authenticate. */
  tokenReviewer?: TokenReviewer | undefined;
  /** --api-audiences: a TokenReview's audiences when it names none. */
  apiAudiences?: readonly string[] | undefined;
}

type ReviewHandler = (scope: ResourceScope, review: KubeObject, requester: UserInfo, deps: ReviewDeps) => Promise<KubeObject>;

const HANDLERS: Record<ReviewKind, ReviewHandler> = {
  tokenreview: (_scope, review, _user, deps) => tokenReview(review, deps),
  selfsubjectreview: async (_scope, review, user) => ({
    ...review,
    status: { userInfo: userInfoOf(user) },
  }),
  selfsubjectaccessreview: (scope, review, user, deps) => accessReview(scope, review, user, 'self', deps.authorizer),
  subjectaccessreview: (scope, review, user, deps) => accessReview(scope, review, user, 'cluster', deps.authorizer),
  localsubjectaccessreview: (scope, review, user, deps) => accessReview(scope, review, user, 'local', deps.authorizer),
  selfsubjectrulesreview: async (scope, review, user, { authorizer }) => {
    const spec = isPlainObject(review.spec) ? (review.spec as { namespace?: unknown }) : {};
    if (typeof spec.namespace !== 'string' || spec.namespace === '') {
      throw invalid(scope.groupKind, '', [{ type: 'FieldValueRequired', field: 'spec.namespace' }]);
    }
    const { resourceRules, nonResourceRules, incomplete, error } = await (authorizer.rulesFor?.(user, spec.namespace) ?? { resourceRules: [], nonResourceRules: [], incomplete: true });
    return { ...review, status: { resourceRules, nonResourceRules, incomplete, ...(error ? { evaluationError: error } : {}) } };
  },
};

/** kube's TokenReview REST: the token authenticated for the review's audiences (default --api-audiences). */
async function tokenReview(review: KubeObject, deps: ReviewDeps): Promise<KubeObject> {
  const spec = (isPlainObject(review.spec) ? review.spec : {}) as { token?: unknown; audiences?: unknown };
  const token = typeof spec.token === 'string' ? spec.token : '';
  if (token === '') throw badRequest('token is required for TokenReview in authentication');
  const given = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === 'string') : [];
  const audiences = given.length > 0 ? given : deps.apiAudiences && deps.apiAudiences.length > 0 ? [...deps.apiAudiences] : undefined;
  const result = deps.tokenReviewer ? await deps.tokenReviewer(token, audiences) : { authenticated: false, error: 'invalid bearer token' };
  const status: Record<string, unknown> = { authenticated: result.authenticated };
  if (result.user) status.user = userInfoOf(result.user);
  if (result.user && result.audiences) status.audiences = result.audiences;
  if (result.error) status.error = result.error;
  return { ...review, status };
}

function userInfoOf(user: UserInfo): Record<string, unknown> {
  const info: Record<string, unknown> = { username: user.username };
  if (user.uid) info.uid = user.uid;
  info.groups = user.groups;
  if (user.extra && Object.keys(user.extra).length > 0) info.extra = user.extra;
  return info;
}

interface AccessSpec {
  resourceAttributes?: Record<string, unknown>;
  nonResourceAttributes?: Record<string, unknown>;
  user?: string;
  groups?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** resourceAttributes.fieldSelector / labelSelector's rawSelector, passed on as a request's selectors are. */
function selectorsOf(ra: Record<string, unknown>): Pick<AuthorizationAttributes, 'fieldSelector' | 'labelSelector'> {
  const raw = (v: unknown): string => (isPlainObject(v) ? str((v as { rawSelector?: unknown }).rawSelector) : '');
  const out: Pick<AuthorizationAttributes, 'fieldSelector' | 'labelSelector'> = {};
  if (raw(ra.fieldSelector)) out.fieldSelector = raw(ra.fieldSelector);
  if (raw(ra.labelSelector)) out.labelSelector = raw(ra.labelSelector);
  return out;
}

/** Validation (pkg/apis/authorization/validation) and the authorizer's answer. */
async function accessReview(scope: ResourceScope, review: KubeObject, requester: UserInfo, kind: 'self' | 'cluster' | 'local', authorizer: Authorizer): Promise<KubeObject> {
  const spec = (isPlainObject(review.spec) ? review.spec : {}) as AccessSpec;
  const ra = isPlainObject(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
  const nra = isPlainObject(spec.nonResourceAttributes) ? spec.nonResourceAttributes : undefined;
  const errs: FieldError[] = [];
  if (ra && nra) errs.push({ type: 'FieldValueInvalid', field: 'spec.nonResourceAttributes', value: nra, detail: 'cannot be specified in combination with resourceAttributes' });
  if (!ra && !nra) errs.push({ type: 'FieldValueInvalid', field: 'spec.resourceAttributes', value: null, detail: 'exactly one of nonResourceAttributes or resourceAttributes must be specified' });
  if (kind !== 'self' && !spec.user && !(spec.groups?.length)) {
    errs.push({ type: 'FieldValueInvalid', field: 'spec.user', value: '', detail: 'at least one of user or group must be specified' });
  }
  if (kind === 'local') {
    if (nra) errs.push({ type: 'FieldValueInvalid', field: 'spec.nonResourceAttributes', value: nra, detail: 'disallowed on this kind of request' });
    if (ra && str(ra.namespace) !== scope.namespace) {
      errs.push({ type: 'FieldValueInvalid', field: 'spec.resourceAttributes.namespace', value: str(ra.namespace), detail: 'must match metadata.namespace' });
    }
  }
  if (errs.length > 0) throw invalid(scope.groupKind, '', errs);

  const subject: UserInfo =
    kind === 'self'
      ? requester
      : { username: str(spec.user), groups: Array.isArray(spec.groups) ? spec.groups.filter((g): g is string => typeof g === 'string') : [], ...(spec.uid ? { uid: spec.uid } : {}) };
  const attrs: AuthorizationAttributes = ra
    ? {
        user: subject,
        verb: str(ra.verb),
        resourceRequest: true,
        namespace: str(ra.namespace),
        group: str(ra.group),
        resource: str(ra.resource),
        subresource: str(ra.subresource),
        name: str(ra.name),
        ...selectorsOf(ra),
      }
    : { user: subject, verb: str(nra!.verb), resourceRequest: false, path: str(nra!.path) };
  const { decision, reason, error } = await authorizer.authorize(attrs);
  const status: Record<string, unknown> = { allowed: decision === 'Allow' };
  if (decision === 'Deny') status.denied = true;
  if (reason) status.reason = reason;
  if (error) status.evaluationError = error;
  return { ...review, status };
}

/** A create of a review kind: the request answered, nothing stored. */
export async function handleReview(scope: ResourceScope, kind: ReviewKind, deps: ReviewDeps): Promise<void> {
  const { ctx, info } = scope;
  const neg = scope.negotiate({ table: false });
  parseWriteOptions(scope, 'CreateOptions');
  const review = checkBodyObject(scope, await readObjectBody(ctx, scope.typeInfo));
  const metadata = { ...(review.metadata ?? {}) };
  if (info.namespaced) metadata.namespace = scope.namespace;
  const handler = HANDLERS[kind];
  const answered = await handler(scope, { ...review, metadata }, ctx.user!, deps);
  writeEncoded(ctx, 201, answered, neg.encoding, neg.contentType);
}
