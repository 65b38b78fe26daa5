import { forbidden, type AuthorizationAttributes, type Authorizer } from '../../authz/authorizer.js';
import { badRequest, internalError } from '../../machinery/errors.js';
import type { UserInfo } from '../../machinery/context.js';
import { isDns1123Label, isDns1123Subdomain } from '../../machinery/name-validation.js';
import type { Filter } from './chain.js';

/**
 * WithImpersonation: Impersonate-User (a user or a service account),
 * Impersonate-Group, Impersonate-Uid and Impersonate-Extra-<key> replace the
 * request's user once the caller is allowed the `impersonate` verb on each
 * of them; the caller stays on the context (`authenticatedUser`) for audit.
 */

const USER = 'impersonate-user';
const GROUP = 'impersonate-group';
const UID = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';
const AUTHENTICATION_GROUP = 'authentication.k8s.io';
const AUTHENTICATION_VERSION = 'authentication.k8s.io/v1';

/** One thing asked for, as kube's ObjectReference (its `%v` form is in the 400 message). */
interface ImpersonationRequest {
  kind: 'User' | 'ServiceAccount' | 'Group' | 'UserExtra' | 'UID';
  namespace: string;
  name: string;
  apiVersion: string;
  fieldPath: string;
}

function goFormat(r: ImpersonationRequest): string {
  // Kind Namespace Name UID APIVersion ResourceVersion FieldPath
  return `{${[r.kind, r.namespace, r.name, '', r.apiVersion, '', r.fieldPath].join(' ')}}`;
}

type Headers = NodeJS.Dict<string[]>;

/** Each line of a header: Node joins repeated unknown headers with ", " in `headers`, and a group may hold a comma. */
function headerValues(headers: Headers, name: string): string[] {
  return headers[name] ?? [];
}

/** "system:serviceaccount:<ns>:<name>" with both parts present, as serviceaccount.SplitUsername accepts. */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  const prefix = 'system:serviceaccount:';
  if (!username.startsWith(prefix)) return undefined;
  const parts = username.slice(prefix.length).split(':');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  if (isDns1123Label(parts[0]).length > 0 || isDns1123Subdomain(parts[1]).length > 0) return undefined;
  return { namespace: parts[0], name: parts[1] };
}

function decodeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    // kube keeps a malformed key as sent.
    return encoded;
  }
}

export function impersonationRequests(headers: Headers): ImpersonationRequest[] {
  const out: ImpersonationRequest[] = [];
  const user = headerValues(headers, USER)[0] ?? '';
  if (user) {
    const sa = splitServiceAccountUsername(user);
    out.push(sa ? { kind: 'ServiceAccount', namespace: sa.namespace, name: sa.name, apiVersion: '', fieldPath: '' } : { kind: 'User', namespace: '', name: user, apiVersion: '', fieldPath: '' });
  }
  const groups = headerValues(headers, GROUP);
  for (const g of groups) out.push({ kind: 'Group', namespace: '', name: g, apiVersion: '', fieldPath: '' });
  let extras = false;
  for (const header of Object.keys(headers)) {
    if (!header.startsWith(EXTRA_PREFIX)) continue;
    extras = true;
    const key = decodeExtraKey(header.slice(EXTRA_PREFIX.length));
    for (const value of headerValues(headers, header)) out.push({ kind: 'UserExtra', namespace: '', name: value, apiVersion: AUTHENTICATION_VERSION, fieldPath: key });
  }
  const uid = headerValues(headers, UID)[0] ?? '';
  if (uid) out.push({ kind: 'UID', namespace: '', name: uid, apiVersion: AUTHENTICATION_VERSION, fieldPath: '' });
  if ((groups.length > 0 || extras || uid) && !user) throw badRequest(`requested [${out.map(goFormat).join(' ')}] without impersonating a user`);
  return out;
}

function attributesFor(requestor: UserInfo, r: ImpersonationRequest): AuthorizationAttributes {
  const base = { user: requestor, verb: 'impersonate', resourceRequest: true, name: r.name } as const;
  switch (r.kind) {
    case 'ServiceAccount':
      return { ...base, group: '', version: '', resource: 'serviceaccounts', namespace: r.namespace };
    case 'User':
      return { ...base, group: '', version: '', resource: 'users' };
    case 'Group':
      return { ...base, group: '', version: '', resource: 'groups' };
    case 'UserExtra':
      return { ...base, group: AUTHENTICATION_GROUP, version: 'v1', resource: 'userextras', subresource: r.fieldPath };
    case 'UID':
      return { ...base, group: AUTHENTICATION_GROUP, version: 'v1', resource: 'uids' };
  }
}

export function impersonation(authorizer: Authorizer): Filter {
  return async (ctx, next) => {
    const requests = impersonationRequests(ctx.req.headersDistinct);
    if (requests.length === 0) return next();
    const requestor = ctx.user;
    if (!requestor) throw internalError(new Error('no user found for request'));
    // Given groups are the whole list (system:authenticated included or not); a service account's are fixed otherwise.
    const groupsGiven = headerValues(ctx.req.headersDistinct, GROUP).length > 0;
    let username = '';
    let uid: string | undefined;
    const groups: string[] = [];
    const extra: Record<string, string[]> = {};
    for (const r of requests) {
      const attrs = attributesFor(requestor, r);
      switch (r.kind) {
        case 'ServiceAccount':
          username = `system:serviceaccount:${r.namespace}:${r.name}`;
          if (!groupsGiven) groups.push('system:serviceaccounts', `system:serviceaccounts:${r.namespace}`);
          break;
        case 'User':
          username = r.name;
          break;
        case 'Group':
          groups.push(r.name);
          break;
        case 'UserExtra':
          (extra[r.fieldPath] ??= []).push(r.name);
          break;
        case 'UID':
          uid = r.name;
          break;
      }
      let decision;
      try {
        decision = await authorizer.authorize(attrs);
      } catch {
        decision = { decision: 'NoOpinion' as const, reason: '' };
      }
      if (decision.decision !== 'Allow') throw forbidden(attrs, decision.reason);
    }
    if (username !== 'system:anonymous') {
      if (!groups.includes('system:authenticated') && !groups.includes('system:unauthenticated')) groups.push('system:authenticated');
    } else if (!groups.includes('system:unauthenticated')) groups.push('system:unauthenticated');
    ctx.authenticatedUser = requestor;
    ctx.user = { username, ...(uid !== undefined ? { uid } : {}), groups, ...(Object.keys(extra).length > 0 ? { extra } : {}) };
    for (const header of Object.keys(ctx.req.headers)) {
      if (header === USER || header === GROUP || header === UID || header.startsWith(EXTRA_PREFIX)) delete ctx.req.headers[header];
    }
    return next();
  };
}
