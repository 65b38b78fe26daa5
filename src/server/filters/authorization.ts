import { attributesOf, forbidden, type Authorizer } from '../../authz/authorizer.js';
import { writeInternalErrorText } from '../../http/respond.js';
import type { Filter } from './chain.js';

/** WithAuthorization: only an Allow lets the request through; Deny and no opinion are 403 with the authorizers' reason (a plain-text 500 with an authorizer's error). */
export function authorization(authorizer: Authorizer): Filter {
  return async (ctx, next) => {
    const attrs = attributesOf(ctx.user!, ctx.info, ctx.url.searchParams);
    const { decision, reason, error } = await authorizer.authorize(attrs);
    // As kube's WithAuthorization: an allow stands even beside an evaluation error; otherwise the error is a 500.
    if (decision !== 'Allow' && error) return writeInternalErrorText(ctx, error);
    if (decision !== 'Allow') throw forbidden(attrs, reason);
    return next();
  };
}
