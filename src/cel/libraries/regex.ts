import type { Environment } from '@marcbachmann/cel-js';

import { libraryError } from './errors.js';

/**
 * kube's library.Regex (from 1.0): find and findAll. Patterns are RE2 in
 * kube; here they run as JavaScript regular expressions with the `u` flag,
 * which agree on the common syntax. A pattern JavaScript rejects fails with
 * Go's "error parsing regexp" prefix; RE2-only syntax (\z, (?P<name>), \C)
 * and JavaScript-only syntax (lookaround, backreferences) are not translated.
 */
export function registerRegex(env: Environment): void {
  env.registerFunction('string.find(string): string', (s: string, re: string) => compile(re, '').exec(s)?.[0] ?? '');
  env.registerFunction('string.findAll(string): list<string>', (s: string, re: string) => findAll(s, re, -1n));
  env.registerFunction('string.findAll(string, int): list<string>', findAll);
}

const cache = new Map<string, RegExp>();

function compile(pattern: string, flags: string): RegExp {
  const key = `${flags}/${pattern}`;
  let re = cache.get(key);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, `u${flags}`);
    } catch (e) {
      throw libraryError(`error parsing regexp: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (cache.size > 1000) cache.clear();
    cache.set(key, re);
  }
  re.lastIndex = 0;
  return re;
}

/** regexp.FindAllString(s, n): at most n matches (all when n < 0); an empty match right after a match is skipped, as Go does. */
function findAll(s: string, pattern: string, limit: bigint): string[] {
  const re = compile(pattern, 'g');
  if (limit === 0n) return [];
  const out: string[] = [];
  let prevEnd = -1;
  for (const m of s.matchAll(re)) {
    if (m[0] === '' && m.index === prevEnd) continue;
    out.push(m[0]);
    prevEnd = m.index + m[0].length;
    if (limit > 0n && BigInt(out.length) >= limit) break;
  }
  return out;
}
