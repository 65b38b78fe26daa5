import { ANONYMOUS, AuthenticationError, withAuthenticatedGroup, type Authenticator } from '../../authn/authenticator.js';
import { unauthorized } from '../../machinery/errors.js';
import type { Filter } from './chain.js';

/**
 * WithAuthentication: the authenticators name the user (every authenticated
 * user also in system:authenticated); when none has an opinion the request
 * is system:anonymous (--anonymous-auth, on by default, or per path the
 * --authentication-config file's anonymous section); a credential that
 * fails is 401 whatever the others say, as is a token meant for other
 * audiences than --api-audiences. Once the user is known the Authorization
 * header goes, so nothing behind (proxies, audit) sees the credential.
 */
export function authentication(authenticator: Authenticator, opts: { anonymous: boolean | ((path: string) => boolean); apiAudiences?: readonly string[] }): Filter {
  const apiAudiences = opts.apiAudiences ?? [];
  return async (ctx, next) => {
    let result;
    try {
      result = await authenticator.authenticate(ctx.req);
    } catch (err) {
      if (err instanceof AuthenticationError) {
        if (err.auditAnnotations) for (const [k, v] of Object.entries(err.auditAnnotations)) ctx.auditAnnotations.set(k, v);
        // As kube: the client sees only "Unauthorized"; why (a webhook's status.error, a JWT check) goes to the log.
        ctx.logger.error(`Unable to authenticate the request due to an error: ${err.message}`);
        throw unauthorized();
      }
      throw err;
    }
    if (result) {
      if (apiAudiences.length > 0 && result.audiences && result.audiences.length > 0 && !result.audiences.some((a) => apiAudiences.includes(a))) {
        if (ctx.logger.v(3)) ctx.logger.info(`Unable to match the audience: ${JSON.stringify(result.audiences)} , accepted: ${JSON.stringify(apiAudiences)}`);
        throw unauthorized();
      }
      ctx.user = withAuthenticatedGroup(result.user);
      if (result.warnings) ctx.warnings.push(...result.warnings);
      if (result.auditAnnotations) for (const [k, v] of Object.entries(result.auditAnnotations)) ctx.auditAnnotations.set(k, v);
    } else if (typeof opts.anonymous === 'function' ? opts.anonymous(ctx.url.pathname) : opts.anonymous) ctx.user = ANONYMOUS;
    else throw unauthorized();
    delete ctx.req.headers.authorization;
    return next();
  };
}
