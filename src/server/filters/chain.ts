import type { RequestContext } from '../../machinery/context.js';

/**
 * kube-apiserver's handler chain (DefaultBuildHandlerChain) as small async
 * filters: each does its part of the request and calls `next` to go on, or
 * answers (throws an ApiError) to stop there.
 */
export type Handler = (ctx: RequestContext) => Promise<void>;
export type Filter = (ctx: RequestContext, next: () => Promise<void>) => Promise<void>;

/** The handler behind `filters`, outermost first. */
export function chain(filters: readonly Filter[], handler: Handler): Handler {
  return filters.reduceRight<Handler>((next, filter) => (ctx) => filter(ctx, () => next(ctx)), handler);
}
