import { AsyncLocalStorage } from 'node:async_hooks';
import { writePanic } from '../http/respond.js';
import type { RequestContext } from '../machinery/context.js';
import type { Logger } from '../machinery/logger.js';

/**
 * The last line of defence for what escapes a request's promise chain (an
 * exception thrown in a timer or stream callback, a promise rejected and
 * never handled): the process keeps serving. When it happened inside a
 * request's handling, that request is answered as kube-apiserver answers a
 * panic in its handler (WithPanicRecovery: 500, "This request caused
 * apiserver to panic. Look in the logs for details.", logged with the
 * request's verb and path; writePanic) at once, instead of waiting for the
 * timeout filter; what its handler writes later is dropped. Outside any
 * request (a controller's timer), it is only logged. What a request's own
 * chain throws never gets here: ApiServer.handle answers it (writeError).
 *
 * The request is found through an AsyncLocalStorage entered around the
 * handler (runInRequest), only in servers that installed these handlers and
 * chose to (ApiServerOptions.attributeEscapes). Where Node keeps async context
 * in V8's continuation data (AsyncContextFrame, the default from Node 24) that
 * costs next to nothing, and it is the default there. On Node 20 it puts
 * promise hooks on every promise of the process: measured at about +10-25 % of
 * the server's CPU per GET and create (bench/results/last-resort.md), so
 * there the default is off and an escaped exception's request gets the
 * timeout filter's 504 instead.
 */
const loggers = new Set<Logger>();
const requests = new AsyncLocalStorage<RequestContext>();

function report(kind: string, err: unknown): void {
  const ctx = requests.getStore();
  if (ctx !== undefined && !ctx.res.writableEnded) {
    // writePanic logs with the request's verb and path, and never throws.
    writePanic(ctx, err);
    return;
  }
  const where = ctx !== undefined ? `on ${ctx.method} ${ctx.url.pathname} after its response` : "outside any request's handling";
  const text = `apiserver panic'd (${kind} ${where}): ${(err as Error)?.stack ?? String(err)}`;
  for (const logger of loggers) {
    try {
      logger.error(text);
    } catch {
      // Nothing else to tell.
    }
    return;
  }
}

const onUncaught = (err: unknown): void => report('uncaught exception', err);
const onUnhandledRejection = (reason: unknown): void => report('unhandled rejection', reason);

/** Installs the process-wide handlers while at least one server runs; returns the uninstaller. */
export function installLastResort(logger: Logger): () => void {
  if (loggers.size === 0) {
    process.on('uncaughtException', onUncaught);
    process.on('unhandledRejection', onUnhandledRejection);
  }
  loggers.add(logger);
  let installed = true;
  return () => {
    if (!installed) return;
    installed = false;
    loggers.delete(logger);
    if (loggers.size === 0) {
      process.off('uncaughtException', onUncaught);
      process.off('unhandledRejection', onUnhandledRejection);
    }
  };
}

/** Runs a request's handling so that what escapes it is answered for it (see above). */
export function runInRequest<T>(ctx: RequestContext, handle: () => T): T {
  return requests.run(ctx, handle);
}

/** Whether AsyncLocalStorage runs on AsyncContextFrame here (no promise hooks): Node 24+, or 22.7+ with the flag. */
export function requestScopeIsCheap(version = process.versions.node, flags: readonly string[] = nodeFlags()): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major >= 24) return !flags.includes('--no-async-context-frame');
  if (major > 22 || (major === 22 && minor >= 7)) return flags.includes('--experimental-async-context-frame');
  return false;
}

function nodeFlags(): string[] {
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean)];
}
