/**
 * Continue tokens in kube-apiserver's format (storage.EncodeContinue /
 * DecodeContinue): base64url JSON {"v","rv","start"}, and the 400s an
 * invalid token gets.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ApiError } from '../../src/machinery/errors.js';
import { decodeContinue, encodeContinue } from '../../src/machinery/continue-token.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64url');
const token = (v: unknown): string => b64(JSON.stringify(v));

describe('encodeContinue', () => {
  it('writes base64url JSON without padding, as kube does', () => {
    const t = encodeContinue({ revision: 42, start: 'ns/name\u0000' });
    assert.doesNotMatch(t, /[=+/]/);
    assert.deepEqual(JSON.parse(Buffer.from(t, 'base64url').toString('utf8')), { v: 'meta.k8s.io/v1', rv: 42, start: 'ns/name\u0000' });
  });

  it('decodes a token kube-apiserver wrote', () => {
    // {"v":"meta.k8s.io/v1","rv":1234,"start":"foo\u0000"} from an etcd3-backed server.
    const kube = 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIzNCwic3RhcnQiOiJmb29cdTAwMDAifQ';
    assert.deepEqual(decodeContinue(kube), { revision: 1234, start: 'foo\u0000' });
  });
});

describe('decodeContinue round trips', () => {
  const cases: Array<{ revision: number; start: string }> = [
    { revision: 1, start: 'a' },
    { revision: 99, start: 'default/cm-07\u0000' },
    { revision: 7, start: 'kube-system/x.y-z\u0000' },
    { revision: 2 ** 40, start: 'n' },
    // A negative revision asks for the latest state; it is passed through.
    { revision: -1, start: 'next' },
  ];
  for (const c of cases) it(JSON.stringify(c), () => assert.deepEqual(decodeContinue(encodeContinue(c)), c));
});

describe('decodeContinue accepts what path.Clean leaves alone', () => {
  const cases: Array<{ start: string; want: string }> = [
    { start: '/a', want: 'a' },
    { start: '/', want: '' },
    { start: 'a/b', want: 'a/b' },
    { start: 'a..b', want: 'a..b' },
  ];
  for (const c of cases) {
    it(JSON.stringify(c.start), () => assert.deepEqual(decodeContinue(token({ v: 'meta.k8s.io/v1', rv: 3, start: c.start })), { revision: 3, start: c.want }));
  }
});

describe('decodeContinue rejects (400 BadRequest)', () => {
  const P = 'invalid continue token: continue key is not valid';
  const cases: Array<{ name: string; text: string; message: string | RegExp }> = [
    { name: 'not JSON', text: b64('not json'), message: `${P}: invalid character 'o' in literal null (expecting 'u')` },
    { name: 'bytes that are not JSON (no V8 text quoting them back)', text: 'a'.repeat(10000), message: `${P}: invalid character 'i' looking for beginning of value` },
    { name: 'nothing', text: b64(''), message: `${P}: unexpected end of JSON input` },
    { name: 'not base64 JSON at all', text: 'abc', message: new RegExp(`^${P}: `) },
    { name: 'a JSON array', text: token([1]), message: `${P}: malformed continue key` },
    { name: 'a JSON string', text: token('x'), message: `${P}: malformed continue key` },
    { name: 'another version', text: token({ v: 'meta.k8s.io/v2', rv: 1, start: 'a' }), message: `${P}: server does not recognize this encoded version meta.k8s.io/v2` },
    { name: 'no version', text: token({ rv: 1, start: 'a' }), message: `${P}: server does not recognize this encoded version ` },
    { name: 'revision 0', text: token({ v: 'meta.k8s.io/v1', rv: 0, start: 'a' }), message: `${P}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)` },
    { name: 'no revision', text: token({ v: 'meta.k8s.io/v1', start: 'a' }), message: `${P}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)` },
    { name: 'a fractional revision', text: token({ v: 'meta.k8s.io/v1', rv: 1.5, start: 'a' }), message: `${P}: malformed resourceVersion` },
    { name: 'a string revision', text: token({ v: 'meta.k8s.io/v1', rv: '5', start: 'a' }), message: `${P}: malformed resourceVersion` },
    { name: 'empty start', text: token({ v: 'meta.k8s.io/v1', rv: 5, start: '' }), message: `${P}: encoded start key empty (version meta.k8s.io/v1)` },
    { name: 'no start', text: token({ v: 'meta.k8s.io/v1', rv: 5 }), message: `${P}: encoded start key empty (version meta.k8s.io/v1)` },
    { name: 'a non-string start', text: token({ v: 'meta.k8s.io/v1', rv: 5, start: 3 }), message: `${P}: malformed start key` },
    // path.Clean must not change the key: no escaping the list's prefix.
    { name: 'a parent reference', text: token({ v: 'meta.k8s.io/v1', rv: 5, start: '../secrets/x' }), message: `${P}: ../secrets/x` },
    { name: 'a nested parent reference', text: token({ v: 'meta.k8s.io/v1', rv: 5, start: 'ns/../../x' }), message: `${P}: ns/../../x` },
    { name: 'a dot segment', text: token({ v: 'meta.k8s.io/v1', rv: 5, start: './a' }), message: `${P}: ./a` },
    { name: 'a double slash', text: token({ v: 'meta.k8s.io/v1', rv: 5, start: 'a//b' }), message: `${P}: a//b` },
    { name: 'a trailing slash', text: token({ v: 'meta.k8s.io/v1', rv: 5, start: 'ns/' }), message: `${P}: ns/` },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.throws(
        () => decodeContinue(c.text),
        (err: unknown) => {
          assert.ok(err instanceof ApiError);
          assert.equal(err.code, 400);
          assert.equal(err.reason, 'BadRequest');
          if (typeof c.message === 'string') assert.equal(err.message, c.message);
          else assert.match(err.message, c.message);
          return true;
        },
      );
    });
  }
});
