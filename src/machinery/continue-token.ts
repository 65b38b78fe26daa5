import { badRequest } from './errors.js';
import { JsonSyntaxError, parseJsonAst } from './json-decode.js';

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

/**
 * storage.DecodeContinue, with the 400 message the list path gives
 * (`invalid continue token: continue key is not valid...`). A negative
 * revision is accepted: it asks for the latest state.
 */
export function decodeContinue(text: string): ContinueToken {
  const bad = (why: string): never => {
    throw badRequest(`invalid continue token: ${why}`);
  };
  let parsed: unknown;
  const raw = Buffer.from(text, 'base64url');
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    // json.Unmarshal's text, not V8's (which quotes the token back).
    return bad(`continue key is not valid: ${goJsonSyntaxError(raw)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return bad('continue key is not valid: malformed continue key');
  const p = parsed as Record<string, unknown>;
  if (p.v !== 'meta.k8s.io/v1') return bad(`continue key is not valid: server does not recognize this encoded version ${typeof p.v === 'string' ? p.v : ''}`);
  if (p.rv !== undefined && (typeof p.rv !== 'number' || !Number.isInteger(p.rv))) return bad('continue key is not valid: malformed resourceVersion');
  const rv = (p.rv as number | undefined) ?? 0;
  if (rv === 0) return bad('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (p.start !== undefined && typeof p.start !== 'string') return bad('continue key is not valid: malformed start key');
  const start = (p.start as string | undefined) ?? '';
  if (start === '') return bad('continue key is not valid: encoded start key empty (version meta.k8s.io/v1)');
  // path.Clean must leave "/"+start unchanged, so the key cannot leave the list's prefix.
  const key = start.startsWith('/') ? start : `/${start}`;
  if (cleanPath(key) !== key) return bad(`continue key is not valid: ${start}`);
  return { revision: rv, start: key.slice(1) };
}

/** Go's path.Clean for rooted paths. */
function cleanPath(path: string): string {
  const out: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return `/${out.join('/')}`;
}

function goJsonSyntaxError(raw: Uint8Array): string {
  try {
    parseJsonAst(raw);
  } catch (err) {
    if (err instanceof JsonSyntaxError) return err.message;
  }
  return 'unexpected end of JSON input';
}
