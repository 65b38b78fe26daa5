import type { Logger } from '../machinery/logger.js';

/**
 * The last line of defence for what escapes a request's promise chain (an
 * exception thrown in a timer or stream callback, a promise rejected and
 * never handled): it is logged and the process keeps serving; the request
 * it belonged to is answered by the timeout filter (504 after
 * --request-timeout). What a request's own chain throws never gets here:
 * ApiServer.handle answers it (writeError, else writePanic's 500).
 *
 * Attributing such an exception to its request would take AsyncLocalStorage,
 * which on Node 20 puts promise hooks on every await of every request: it
 * was measured at +30-40 µs of server CPU per GET (about a quarter).
 */
const loggers = new Set<Logger>();

function report(kind: string, err: unknown): void {
  const text = `apiserver panic'd (${kind} outside any request's handling): ${(err as Error)?.stack ?? String(err)}`;
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
