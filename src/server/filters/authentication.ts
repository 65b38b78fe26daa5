import { ANONYMOUS, AuthenticationError, type Authenticator } from '../../authn/authenticator.js';
import { unauthorized } from '../../machinery/errors.js';
import type { Filter } from './chain.js';

/**
 * WithAuthentication: the authenticators name the user; when none has an
 * opinion the request is system:anonymous (--anonymous-auth, on by
 * default); a credential that fails is 401 whatever the others say.
 */
export function authentication(authenticator: Authenticator, opts: { anonymous: boolean | ((path: string) => boolean) }): Filter {
  return async (ctx, next) => {
    let result;
    try {
      result = await authenticator.authenticate(ctx.req);
    } catch (err) {
      if (err instanceof AuthenticationError) {
        // As kube: the client sees only "Unauthorized"; why (a webhook's status.error, a JWT check) goes to the log.
        ctx.logger.error(`Unable to authenticate the request due to an error: ${err.message}`);
        throw unauthorized();
      }
      throw err;
    }
    if (result) ctx.user = result.user;
    else if (typeof opts.anonymous === 'function' ? opts.anonymous(ctx.url.pathname) : opts.anonymous) ctx.user = ANONYMOUS;
    else throw unauthorized();
    return next();
  };
}
