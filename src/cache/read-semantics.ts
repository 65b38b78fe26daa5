import { badRequest } from '../machinery/errors.js';

/**
 * resourceVersion semantics (SPEC "Resource version semantics"): what a get,
 * list or watch must read, given resourceVersion, resourceVersionMatch, limit
 * and continue. Parameter validation (the Invalid cells) happens when the
 * query is parsed (handlers/options.ts); this maps the valid cells.
 */

export type ReadAt =
  /** Most Recent: a consistent read (the cache catches up with the store first). */
  | { kind: 'consistent' }
  /** Any: whatever the cache has now. */
  | { kind: 'any' }
  /** Not older than: the cache at or after `revision` (504 if it does not get there). */
  | { kind: 'notOlderThan'; revision: number }
  /** Exact: the state at `revision` (410 when no longer retained). */
  | { kind: 'exact'; revision: number };

/** A resourceVersion as a revision; 400 for text that is not one. */
export function parseRevision(rv: string): number {
  if (!/^\d+$/.test(rv) || (rv.length > 1 && rv.startsWith('0'))) {
    throw badRequest(`resourceVersion: Invalid value: "${rv}": strconv.ParseUint: parsing "${rv}": invalid syntax`);
  }
  const n = Number(rv);
  if (!Number.isSafeInteger(n)) throw badRequest(`resourceVersion: Invalid value: "${rv}": value out of range`);
  return n;
}

/** get: unset → Most Recent, "0" → Any, other → Not older than. */
export function getReadAt(resourceVersion: string | undefined): ReadAt {
  if (resourceVersion === undefined || resourceVersion === '') return { kind: 'consistent' };
  if (resourceVersion === '0') return { kind: 'any' };
  return { kind: 'notOlderThan', revision: parseRevision(resourceVersion) };
}

export interface ListReadParams {
  resourceVersion: string | undefined;
  resourceVersionMatch: '' | 'Exact' | 'NotOlderThan';
  limit: number;
}

/**
 * list, without a continue token (a continued list reads at the token's
 * revision): the SPEC table's valid cells.
 */
export function listReadAt(p: ListReadParams): ReadAt {
  const rv = p.resourceVersion;
  if (rv === undefined || rv === '') return { kind: 'consistent' };
  if (rv === '0') return { kind: 'any' };
  const revision = parseRevision(rv);
  if (p.resourceVersionMatch === 'Exact') return { kind: 'exact', revision };
  if (p.resourceVersionMatch === 'NotOlderThan') return { kind: 'notOlderThan', revision };
  return p.limit > 0 ? { kind: 'exact', revision } : { kind: 'notOlderThan', revision };
}

export type WatchStart =
  /** Synthetic ADDED events for the state read at `at`, then changes after it. */
  | { kind: 'initial'; at: ReadAt; initialEventsEndBookmark: boolean }
  /** Changes after `revision` only (Start at Exact). */
  | { kind: 'after'; revision: number }
  /** Changes from the state read at `at`, without initial events (sendInitialEvents=false). */
  | { kind: 'now'; at: ReadAt };

export interface WatchStartParams {
  resourceVersion: string | undefined;
  sendInitialEvents: boolean | undefined;
}

/**
 * watch: unset → Get State and Start at Most Recent; "0" → Get State and
 * Start at Any; other → Start at Exact. With sendInitialEvents (which requires
 * resourceVersionMatch=NotOlderThan) the state is read not older than the
 * given version and ends with a bookmark; sendInitialEvents=false streams only
 * changes.
 */
export function watchStart(p: WatchStartParams): WatchStart {
  const rv = p.resourceVersion;
  const at: ReadAt = rv === undefined || rv === '' ? { kind: 'consistent' } : rv === '0' ? { kind: 'any' } : { kind: 'notOlderThan', revision: parseRevision(rv) };
  if (p.sendInitialEvents === true) return { kind: 'initial', at, initialEventsEndBookmark: true };
  if (p.sendInitialEvents === false) {
    return at.kind === 'notOlderThan' ? { kind: 'after', revision: at.revision } : { kind: 'now', at };
  }
  if (at.kind === 'notOlderThan') return { kind: 'after', revision: at.revision };
  return { kind: 'initial', at, initialEventsEndBookmark: false };
}
