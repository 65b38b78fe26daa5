import { writeBody } from '../../http/respond.js';
import type { RequestContext } from '../../machinery/context.js';
import type { RequestInfo } from '../../machinery/request-info.js';
import type { Filter } from './chain.js';

/** What kube-apiserver answers a request over the limit (http.Error: plain text). */
export const TOO_MANY_REQUESTS_MESSAGE = 'Too many requests, please try again later.';

const NON_MUTATING_VERBS = new Set(['get', 'list', 'watch']);
const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/** kube-apiserver's LongRunningFunc (BasicLongRunningRequestCheck with its verbs and subresources). */
export function isLongRunning(info: RequestInfo): boolean {
  if (LONG_RUNNING_VERBS.has(info.verb)) return true;
  if (info.isResourceRequest) return LONG_RUNNING_SUBRESOURCES.has(info.subresource);
  return info.path.startsWith('/debug/pprof/');
}

export interface InFlightLimits {
  /** --max-requests-inflight; 0: no limit. */
  readOnly: number;
  /** --max-mutating-requests-inflight; 0: no limit. */
  mutating: number;
}

/**
 * WithMaxInFlightLimit, kube-apiserver's concurrency bound when priority and
 * fairness is off: at most `readOnly` get/list requests and `mutating` others
 * are served at once; one more is answered 429 `Retry-After: 1` at once (no
 * queue). Long-running requests (watches, exec, logs …) are not counted, and
 * system:masters is never refused.
 */
export function maxInFlight(limits: InFlightLimits): Filter {
  let readOnly = 0;
  let mutating = 0;
  return async (ctx, next) => {
    if (isLongRunning(ctx.info)) return next();
    const isMutating = !NON_MUTATING_VERBS.has(ctx.info.verb);
    const limit = isMutating ? limits.mutating : limits.readOnly;
    if (limit === 0) return next();
    const inFlight = isMutating ? mutating : readOnly;
    if (inFlight >= limit) {
      if (ctx.user?.groups.includes('system:masters')) return next();
      refuse(ctx);
      return;
    }
    if (isMutating) mutating++;
    else readOnly++;
    try {
      await next();
    } finally {
      if (isMutating) mutating--;
      else readOnly--;
    }
  };
}

function refuse(ctx: RequestContext): void {
  ctx.req.resume();
  writeBody(ctx, 429, `${TOO_MANY_REQUESTS_MESSAGE}\n`, 'text/plain; charset=utf-8', { 'X-Content-Type-Options': 'nosniff', 'Retry-After': '1' });
}
