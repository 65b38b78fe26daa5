import type { Environment } from '@marcbachmann/cel-js';

import { libraryError } from './errors.js';

/**
 * kube's library.Regex (from 1.0): find and findAll. Patterns are RE2 in
 * kube; here they run as JavaScript regular expressions with the `u` flag,
 * which agree on the common syntax. RE2's leading flag group ((?i), (?s),
 * (?m)), named groups (?P<name>) and \z are translated; a pattern that still
 * does not compile fails with Go's "error parsing regexp: ..." for the common
 * mistakes. JavaScript-only syntax (lookaround, backreferences) is accepted
 * where RE2 would reject it.
 */
export function registerRegex(env: Environment): void {
  env.registerFunction('string.find(string): string', (s: string, re: string) => compile(re, '').exec(s)?.[0] ?? '');
  env.registerFunction('string.findAll(string): list<string>', (s: string, re: string) => findAll(s, re, -1n));
  env.registerFunction('string.findAll(string, int): list<string>', findAll);
}

const cache = new Map<string, RegExp>();

/** RE2 syntax JavaScript spells differently, rewritten; the flags a leading (?flags) group sets. */
function translate(pattern: string): { source: string; flags: string } {
  let source = pattern;
  let flags = '';
  const lead = /^\(\?([ims]+)\)/.exec(source);
  if (lead) {
    flags = [...new Set(lead[1])].join('');
    source = source.slice(lead[0].length);
  }
  source = source.replace(/\(\?P</g, '(?<').replace(/(^|[^\\])\\z/g, '$1(?![\\s\\S])');
  return { source, flags };
}

/** Go's regexp/syntax error for the mistakes JavaScript reports, by JavaScript's message. */
function goRegexpError(pattern: string, jsMessage: string): string {
  if (/Unterminated group/.test(jsMessage)) return `missing closing ): \`${pattern}\``;
  if (/Unmatched '\)'/.test(jsMessage)) return `unexpected ): \`${pattern}\``;
  if (/Unterminated character class/.test(jsMessage)) return `missing closing ]: \`${pattern.slice(pattern.lastIndexOf('['))}\``;
  const rep = /Nothing to repeat/.test(jsMessage) ? /(^|[(|])([*+?])/.exec(pattern) : null;
  if (rep) return `missing argument to repetition operator: \`${rep[2]}\``;
  return `invalid regular expression: \`${pattern}\``;
}

function compile(pattern: string, flags: string): RegExp {
  const key = `${flags}/${pattern}`;
  let re = cache.get(key);
  if (re === undefined) {
    const t = translate(pattern);
    try {
      re = new RegExp(t.source, `u${flags}${t.flags}`);
    } catch (e) {
      throw libraryError(`error parsing regexp: ${goRegexpError(pattern, e instanceof Error ? e.message : String(e))}`);
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
