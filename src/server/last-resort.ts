import { AsyncLocalStorage } from 'node:async_hooks';
import { writePanic } from '../http/respond.js';
import type { RequestContext } from '../machinery/context.js';

/**
 * The last line of defence: an exception thrown, or a promise rejected
 * unhandled, anywhere in a request's asynchronous path (a timer or stream
 * callback outside its promise chain included) is that request's 500 —
 * kube's panic recovery answer, logged with the verb and path — and never
 * ends the process. Requests are found through AsyncLocalStorage, which
 * follows every callback a request's code schedules.
 */
const currentRequest = new AsyncLocalStorage<RequestContext>();

/** Runs a request's handling with the request known to the process-wide handlers. */
export function runRequest<T>(ctx: RequestContext, fn: () => T): T {
  return currentRequest.run(ctx, fn);
}

let servers = 0;

function onUncaught(err: unknown): void {
  const ctx = currentRequest.getStore();
  if (ctx) {
    writePanic(ctx, err);
    return;
  }
  // Not a request's: what Node would have done without this listener.
  if (process.listenerCount('uncaughtException') === 1) {
    process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  }
}

function onUnhandledRejection(reason: unknown): void {
  const ctx = currentRequest.getStore();
  if (ctx) {
    writePanic(ctx, reason);
    return;
  }
  if (process.listenerCount('unhandledRejection') === 1) onUncaught(reason);
}

/** Installs the process-wide handlers while at least one server runs; returns the uninstaller. */
export function installLastResort(): () => void {
  if (servers++ === 0) {
    process.on('uncaughtException', onUncaught);
    process.on('unhandledRejection', onUnhandledRejection);
  }
  let installed = true;
  return () => {
    if (!installed) return;
    installed = false;
    if (--servers === 0) {
      process.off('uncaughtException', onUncaught);
      process.off('unhandledRejection', onUnhandledRejection);
    }
  };
}
