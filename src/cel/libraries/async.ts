/**
 * Evaluation that stays synchronous until a value is a Promise (an
 * asynchronous authorizer), then continues asynchronously: the macros in
 * this folder evaluate their parts through these so that cel-js, which
 * awaits a Promise wherever one appears, gets a Promise for the whole result.
 */

/** An error a quantifier defers (all/exists report it only when no element decides the result). */
export class Caught {
  constructor(readonly error: unknown) {}
}

/** Runs `f`, turning a throw or a rejection into a Caught. */
export function attempt(f: () => unknown): unknown {
  try {
    const r = f();
    return r instanceof Promise ? r.catch((e: unknown) => new Caught(e)) : r;
  } catch (e) {
    return new Caught(e);
  }
}

/** `then(values)` once all values are settled: synchronously when none is a Promise. */
export function whenAll<T>(values: readonly unknown[], then: (settled: unknown[]) => T): T | Promise<T> {
  return values.some((v) => v instanceof Promise) ? Promise.all(values).then(then) : then([...values]);
}

/**
 * Visits `body(item)` for each item in order; `visit` returns true to stop
 * early; `done` gives the result. Goes asynchronous at the first Promise.
 */
export function loop<T>(
  items: readonly T[],
  body: (item: T) => unknown,
  visit: (result: unknown, item: T) => boolean | void,
  done: () => unknown,
): unknown {
  for (let i = 0; i < items.length; i++) {
    const r = body(items[i]!);
    if (r instanceof Promise) {
      return (async () => {
        if (visit(await r, items[i]!) === true) return done();
        for (let j = i + 1; j < items.length; j++) if (visit(await body(items[j]!), items[j]!) === true) break;
        return done();
      })();
    }
    if (visit(r, items[i]!) === true) break;
  }
  return done();
}
