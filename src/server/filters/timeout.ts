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
  return (ctx, next) => {
    if (ms <= 0 || isLongRunning(ctx.info)) return next();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        // A connection already handed to another protocol (an upgraded exec or console stream) outlives the
        // timeout: kube's timeout writer can no longer answer once its handler hijacked the connection.
        if (ctx.hijacked) return;
        // The handler goes on; its outcome no longer reaches the client (the promise has settled).
        // A body still arriving is not waited for: the answer closes the connection.
        if (!ctx.req.complete) abandonBody(ctx);
        reject(timeout('request did not complete within requested timeout - context deadline exceeded', 0));
      }, ms);
      next().then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err);
        },
      );
    });
  };
}
