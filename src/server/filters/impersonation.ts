import { notImplemented } from '../../machinery/errors.js';
import type { Filter } from './chain.js';

/** WithImpersonation's place: acting as another user must not silently run as the caller, so it is refused until built. */
export const impersonation: Filter = (ctx, next) => {
  if (Object.keys(ctx.req.headers).some((h) => h.startsWith('impersonate-'))) throw notImplemented('impersonation (Impersonate-* headers)');
  return next();
};
