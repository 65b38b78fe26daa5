import { abandonBody } from '../../http/body.js';
import { timeout } from '../../machinery/errors.js';
import type { Filter } from './chain.js';
import { isLongRunning } from './max-in-flight.js';

/**
 * WithTimeoutForNonLongRunningRequests: a request that is not long-running
 * and has no answer after --request-timeout is answered 504 Timeout; what
 * its handler writes later is dropped (a response is written once). Bodies
 * have their own deadline in readBody, which also closes the connection.
 */
export function requestTimeout(ms: number): Filter {
  return async (ctx, next) => {
    if (ms <= 0 || isLongRunning(ctx.info)) return next();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => {
      timer = setTimeout(() => resolve('expired'), ms);
    });
    const served = next();
    try {
      if ((await Promise.race([served.then(() => 'served' as const), expired])) === 'expired') {
        // The handler goes on; its outcome no longer reaches the client.
        served.catch(() => undefined);
        // A body still arriving is not waited for: the answer closes the connection.
        if (!ctx.req.complete) abandonBody(ctx);
        throw timeout('request did not complete within requested timeout - context deadline exceeded', 0);
      }
    } finally {
      clearTimeout(timer);
    }
  };
}
