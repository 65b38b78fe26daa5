/**
 * resourceVersion semantics (SPEC "Resource version semantics"): every cell of
 * the list table, the get rules and the watch rules. The Invalid cells are
 * refused when the query is parsed (parseListParams: kube's
 * ValidateListOptions / validateWatchOptions as 422 Invalid against
 * `ListOptions.meta.k8s.io`, and the storage layer's 400 for a continue token
 * with a resourceVersion); the valid cells map to what the cache must read
 * (listReadAt, getReadAt, watchStart).
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { getReadAt, listReadAt, parseRevision, watchStart, type ReadAt, type WatchStart } from '../../src/cache/read-semantics.js';
import { parseListParams, type ListParams } from '../../src/handlers/options.js';
import { encodeContinue } from '../../src/machinery/continue-token.js';
import { ApiError } from '../../src/machinery/errors.js';

const TOKEN = encodeContinue({ revision: 40, start: 'ns/cm-07\u0000' });

function query(params: Record<string, string | undefined>): URLSearchParams {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
  return q;
}

function caught(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected an error');
}

const INVALID_PREFIX = 'ListOptions.meta.k8s.io "" is invalid: ';
const F = {
  needsRv: 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
  withContinue: 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided',
  exactZero: 'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
  sieOnList: 'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
  sieNeedsNotOlderThan: 'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
  matchNeedsSie: 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
};

/** A 422 Invalid for ListOptions with exactly these field errors, in this order. */
function assertInvalid(err: ApiError, errors: string[]): void {
  assert.equal(err.code, 422);
  assert.equal(err.reason, 'Invalid');
  const aggregate = errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
  assert.equal(err.message, INVALID_PREFIX + aggregate);
  assert.equal(err.status.message, err.message);
  assert.equal(err.status.details?.kind, 'ListOptions');
  assert.equal(err.status.details?.group, 'meta.k8s.io');
  assert.equal(err.status.details?.name, undefined);
  const causes = err.status.details?.causes ?? [];
  assert.deepEqual(
    causes.map((c) => `${c.field}: ${c.message}`),
    errors,
  );
  for (const c of causes) assert.match(c.reason ?? '', /^FieldValue(Forbidden|NotSupported)$/);
}

const CONTINUE_WITH_RV = 'specifying resource version is not allowed when using continue';

// ---- list ------------------------------------------------------------------

type Match = '' | 'Exact' | 'NotOlderThan';
type Paging = 'no limit' | 'limit' | 'limit+continue';
type Rv = 'unset' | '0' | 'other';

type Cell =
  | { read: ReadAt }
  | { continuation: true }
  | { invalid: string[] }
  | { badRequest: string };

const OTHER = 17;

/** SPEC's list table, plus the two rows it leaves out (a match with a continue token: kube's 422). */
const TABLE: Record<Match, Record<Paging, Record<Rv, Cell>>> = {
  '': {
    'no limit': { unset: { read: { kind: 'consistent' } }, '0': { read: { kind: 'any' } }, other: { read: { kind: 'notOlderThan', revision: OTHER } } },
    limit: { unset: { read: { kind: 'consistent' } }, '0': { read: { kind: 'any' } }, other: { read: { kind: 'exact', revision: OTHER } } },
    'limit+continue': { unset: { continuation: true }, '0': { continuation: true }, other: { badRequest: CONTINUE_WITH_RV } },
  },
  Exact: {
    'no limit': { unset: { invalid: [F.needsRv] }, '0': { invalid: [F.exactZero] }, other: { read: { kind: 'exact', revision: OTHER } } },
    limit: { unset: { invalid: [F.needsRv] }, '0': { invalid: [F.exactZero] }, other: { read: { kind: 'exact', revision: OTHER } } },
    'limit+continue': { unset: { invalid: [F.needsRv, F.withContinue] }, '0': { invalid: [F.withContinue, F.exactZero] }, other: { invalid: [F.withContinue] } },
  },
  NotOlderThan: {
    'no limit': { unset: { invalid: [F.needsRv] }, '0': { read: { kind: 'any' } }, other: { read: { kind: 'notOlderThan', revision: OTHER } } },
    limit: { unset: { invalid: [F.needsRv] }, '0': { read: { kind: 'any' } }, other: { read: { kind: 'notOlderThan', revision: OTHER } } },
    'limit+continue': { unset: { invalid: [F.needsRv, F.withContinue] }, '0': { invalid: [F.withContinue] }, other: { invalid: [F.withContinue] } },
  },
};

function listQuery(match: Match, paging: Paging, rv: Rv): URLSearchParams {
  return query({
    resourceVersionMatch: match || undefined,
    limit: paging === 'no limit' ? undefined : '25',
    continue: paging === 'limit+continue' ? TOKEN : undefined,
    resourceVersion: rv === 'unset' ? undefined : rv === '0' ? '0' : String(OTHER),
  });
}

describe('list: every cell of the resourceVersion table', () => {
  for (const match of ['', 'Exact', 'NotOlderThan'] as const) {
    for (const paging of ['no limit', 'limit', 'limit+continue'] as const) {
      for (const rv of ['unset', '0', 'other'] as const) {
        const cell = TABLE[match][paging][rv];
        const what =
          'read' in cell ? cell.read.kind : 'continuation' in cell ? 'Continuation' : 'invalid' in cell ? 'Invalid (422)' : 'Invalid (400)';
        it(`resourceVersionMatch=${match || 'unset'}, ${paging}, resourceVersion ${rv}: ${what}`, () => {
          const q = listQuery(match, paging, rv);
          if ('invalid' in cell) {
            assertInvalid(caught(() => parseListParams(q, false)), cell.invalid);
            return;
          }
          if ('badRequest' in cell) {
            const err = caught(() => parseListParams(q, false));
            assert.equal(err.code, 400);
            assert.equal(err.reason, 'BadRequest');
            assert.equal(err.message, cell.badRequest);
            return;
          }
          const params = parseListParams(q, false);
          assert.equal(params.resourceVersionMatch, match);
          assert.equal(params.limit, paging === 'no limit' ? 0 : 25);
          if ('continuation' in cell) {
            // The token decides the revision; the reader never consults readAt.
            assert.equal(params.continueToken, TOKEN);
            return;
          }
          assert.equal(params.continueToken, undefined);
          assert.deepEqual(listReadAt(params), cell.read);
        });
      }
    }
  }

  it('an empty resourceVersion is unset, an empty continue is no continue', () => {
    const params = parseListParams(query({ resourceVersion: '', continue: '', limit: '5' }), false);
    assert.equal(params.resourceVersion, undefined);
    assert.equal(params.continueToken, undefined);
    assert.deepEqual(listReadAt(params), { kind: 'consistent' });
    assertInvalid(
      caught(() => parseListParams(query({ resourceVersion: '', resourceVersionMatch: 'NotOlderThan' }), false)),
      [F.needsRv],
    );
  });

  it('an unknown resourceVersionMatch is NotSupported, after the forbidden combinations (kube\'s order)', () => {
    assertInvalid(caught(() => parseListParams(query({ resourceVersion: '5', resourceVersionMatch: 'Newest' }), false)), [
      'resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""',
    ]);
    assertInvalid(caught(() => parseListParams(query({ resourceVersionMatch: 'Newest' }), false)), [
      F.needsRv,
      'resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""',
    ]);
  });

  it('sendInitialEvents is forbidden for list (with the match errors first)', () => {
    assertInvalid(caught(() => parseListParams(query({ sendInitialEvents: 'true' }), false)), [F.sieOnList]);
    assertInvalid(caught(() => parseListParams(query({ sendInitialEvents: 'false', resourceVersionMatch: 'NotOlderThan' }), false)), [
      F.needsRv,
      F.sieOnList,
    ]);
  });

  it('a resourceVersion that is not a number is a 400 where it is read', () => {
    const params = parseListParams(query({ resourceVersion: 'abc' }), false);
    const err = caught(() => listReadAt(params));
    assert.equal(err.code, 400);
    assert.equal(err.reason, 'BadRequest');
    assert.match(err.message, /^resourceVersion: Invalid value: "abc"/);
    assert.equal(caught(() => parseRevision('-3')).code, 400);
    assert.equal(caught(() => parseRevision('1e3')).code, 400);
    assert.equal(parseRevision('12345678901'), 12345678901);
  });

  it('the continue check runs after validation: a 422 wins over the 400', () => {
    assertInvalid(caught(() => parseListParams(query({ continue: TOKEN, resourceVersion: '9', resourceVersionMatch: 'Exact' }), false)), [F.withContinue]);
  });
});

// ---- get -------------------------------------------------------------------

describe('get', () => {
  const cases: Array<[string | undefined, ReadAt]> = [
    [undefined, { kind: 'consistent' }],
    ['', { kind: 'consistent' }],
    ['0', { kind: 'any' }],
    ['1', { kind: 'notOlderThan', revision: 1 }],
    ['982', { kind: 'notOlderThan', revision: 982 }],
  ];
  for (const [rv, at] of cases) {
    it(`resourceVersion ${rv === undefined ? 'unset' : JSON.stringify(rv)}: ${at.kind}`, () => assert.deepEqual(getReadAt(rv), at));
  }
  it('a resourceVersion that is not a number is a 400', () => {
    const err = caught(() => getReadAt('x1'));
    assert.equal(err.code, 400);
    assert.match(err.message, /^resourceVersion: Invalid value: "x1"/);
  });
});

// ---- watch -----------------------------------------------------------------

describe('watch: where the stream starts', () => {
  const cases: Array<{ rv: string | undefined; sie: boolean | undefined; start: WatchStart }> = [
    // Get State and Start at Most Recent / Any; Start at Exact.
    { rv: undefined, sie: undefined, start: { kind: 'initial', at: { kind: 'consistent' }, initialEventsEndBookmark: false } },
    { rv: '0', sie: undefined, start: { kind: 'initial', at: { kind: 'any' }, initialEventsEndBookmark: false } },
    { rv: '31', sie: undefined, start: { kind: 'after', revision: 31 } },
    // sendInitialEvents=true (with NotOlderThan): the state not older than the version, then the end bookmark.
    { rv: undefined, sie: true, start: { kind: 'initial', at: { kind: 'consistent' }, initialEventsEndBookmark: true } },
    { rv: '0', sie: true, start: { kind: 'initial', at: { kind: 'any' }, initialEventsEndBookmark: true } },
    { rv: '31', sie: true, start: { kind: 'initial', at: { kind: 'notOlderThan', revision: 31 }, initialEventsEndBookmark: true } },
    // sendInitialEvents=false: changes only.
    { rv: undefined, sie: false, start: { kind: 'now', at: { kind: 'consistent' } } },
    { rv: '0', sie: false, start: { kind: 'now', at: { kind: 'any' } } },
    { rv: '31', sie: false, start: { kind: 'after', revision: 31 } },
  ];
  for (const c of cases) {
    const name = `resourceVersion ${c.rv ?? 'unset'}, sendInitialEvents ${c.sie ?? 'unset'}: ${c.start.kind}`;
    it(name, () => {
      const q = query({
        watch: '1',
        resourceVersion: c.rv,
        sendInitialEvents: c.sie === undefined ? undefined : String(c.sie),
        resourceVersionMatch: c.sie === undefined ? undefined : 'NotOlderThan',
        allowWatchBookmarks: 'true',
      });
      const params: ListParams = parseListParams(q, true);
      assert.equal(params.sendInitialEvents, c.sie);
      assert.equal(params.allowWatchBookmarks, true);
      assert.deepEqual(watchStart(params), c.start);
    });
  }

  it('sendInitialEvents accepts kube\'s boolean spellings and refuses others', () => {
    for (const [text, value] of [
      ['true', true],
      ['1', true],
      ['t', true],
      ['False', false],
      ['0', false],
    ] as const) {
      const p = parseListParams(query({ sendInitialEvents: text, resourceVersionMatch: 'NotOlderThan' }), true);
      assert.equal(p.sendInitialEvents, value, text);
    }
    assert.equal(caught(() => parseListParams(query({ sendInitialEvents: 'yes', resourceVersionMatch: 'NotOlderThan' }), true)).code, 400);
  });
});

describe('watch: invalid combinations (validateWatchOptions)', () => {
  const cases: Array<{ name: string; q: Record<string, string>; errors: string[] }> = [
    { name: 'sendInitialEvents without a match', q: { sendInitialEvents: 'true' }, errors: [F.sieNeedsNotOlderThan] },
    { name: 'sendInitialEvents=false without a match', q: { sendInitialEvents: 'false', resourceVersion: '0' }, errors: [F.sieNeedsNotOlderThan] },
    {
      name: 'sendInitialEvents with Exact',
      q: { sendInitialEvents: 'true', resourceVersionMatch: 'Exact', resourceVersion: '5' },
      errors: [F.sieNeedsNotOlderThan, 'resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"'],
    },
    { name: 'a match without sendInitialEvents', q: { resourceVersionMatch: 'NotOlderThan' }, errors: [F.matchNeedsSie] },
    { name: 'a match without sendInitialEvents (with a version)', q: { resourceVersionMatch: 'NotOlderThan', resourceVersion: '5' }, errors: [F.matchNeedsSie] },
    {
      name: 'Exact without sendInitialEvents',
      q: { resourceVersionMatch: 'Exact', resourceVersion: '5' },
      errors: [F.matchNeedsSie, 'resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"'],
    },
    {
      name: 'a match with a continue token',
      q: { resourceVersionMatch: 'NotOlderThan', sendInitialEvents: 'true', continue: TOKEN },
      errors: [F.withContinue],
    },
    {
      name: 'an unknown match',
      q: { resourceVersionMatch: 'Newest', sendInitialEvents: 'true' },
      errors: [F.sieNeedsNotOlderThan, 'resourceVersionMatch: Unsupported value: "Newest": supported values: "NotOlderThan"'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => assertInvalid(caught(() => parseListParams(query({ watch: '1', ...c.q }), true)), c.errors));
  }

  it('the list-only rules do not apply to a watch', () => {
    // sendInitialEvents with NotOlderThan needs no resourceVersion; Exact "0" is not checked for watches.
    assert.doesNotThrow(() => parseListParams(query({ sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan' }), true));
    assert.doesNotThrow(() => parseListParams(query({ sendInitialEvents: 'false', resourceVersionMatch: 'NotOlderThan' }), true));
    // A watch ignores continue (and limit), so a version with it is no 400.
    const p = parseListParams(query({ resourceVersion: '12', continue: TOKEN, limit: '3' }), true);
    assert.deepEqual(watchStart(p), { kind: 'after', revision: 12 });
  });
});
