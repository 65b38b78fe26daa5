import { badRequest } from '../server/errors.js';

/**
 * Continue tokens of chunked lists, in kube-apiserver's format: base64url of
 * `{"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key after the prefix>"}`.
 * The revision pins every chunk to one snapshot; `start` is the first key of
 * the next chunk, relative to the list's key prefix.
 */

export interface ContinueToken {
  revision: number;
  /** Key suffix (relative to the listed prefix) where the next chunk starts, inclusive. */
  start: string;
}

export function encodeContinue(token: ContinueToken): string {
  const json = JSON.stringify({ v: 'meta.k8s.io/v1', rv: token.revision, start: token.start });
  return Buffer.from(json).toString('base64url');
}

export function decodeContinue(text: string): ContinueToken {
  const bad = (why: string): never => {
    throw badRequest(`continue key is not valid: ${why}`);
  };
  let parsed: unknown;
  try {
    const raw = Buffer.from(text, 'base64url').toString('utf8');
    parsed = JSON.parse(raw);
  } catch {
    return bad('unable to decode continue key');
  }
  if (typeof parsed !== 'object' || parsed === null) return bad('malformed continue key');
  const p = parsed as Record<string, unknown>;
  if (p.v !== 'meta.k8s.io/v1') return bad('incorrect encoded start resourceVersion (version meta.k8s.io/v1 required)');
  if (typeof p.rv !== 'number' || !Number.isInteger(p.rv)) return bad('incorrect encoded start resourceVersion');
  if (typeof p.start !== 'string' || p.start === '') return bad('encoded start key empty');
  // Keys are relative: a token must not escape the list's prefix.
  if (p.start.startsWith('/') || p.start.split('/').includes('..')) return bad('continue key may not contain a relative path');
  return { revision: p.rv, start: p.start };
}
