import { attributesOf, forbidden, type Authorizer } from '../../authz/authorizer.js';
import type { Filter } from './chain.js';

/** WithAuthorization: only an Allow lets the request through; Deny and no opinion are 403 with the authorizers' reason. */
export function authorization(authorizer: Authorizer): Filter {
  return async (ctx, next) => {
    const attrs = attributesOf(ctx.user!, ctx.info, ctx.url.searchParams);
    const { decision, reason } = await authorizer.authorize(attrs);
    if (decision !== 'Allow') throw forbidden(attrs, reason);
    return next();
  };
}
