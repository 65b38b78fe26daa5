import type { Environment } from '@marcbachmann/cel-js';

import { libraryError } from './errors.js';

/**
 * A URL as Go's net/url parses it, reduced to what kube's URL library reads:
 * scheme, host (with port), the path as given and as decoded, and the raw
 * query.
 */
export interface GoURL {
  readonly scheme: string;
  readonly opaque: string;
  readonly host: string;
  readonly path: string;
  readonly rawPath: string;
  readonly rawQuery: string;
}

/** A `kubernetes.URL` value. */
export class CelURL {
  readonly celTypeName = 'kubernetes.URL';
  constructor(readonly url: GoURL) {}
  equals(other: CelURL): boolean {
    return JSON.stringify(this.url) === JSON.stringify(other.url);
  }
}

class URLError extends Error {}

const UNRESERVED = /[A-Za-z0-9\-_.~]/;

function unhex(c: string): number {
  return parseInt(c, 16);
}

/** url.unescape in encodePath / encodeHost mode: %XX sequences must be complete hex pairs. */
function unescape(s: string, mode: 'path' | 'host' | 'query'): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; ) {
    const c = s[i]!;
    if (c === '%') {
      const pair = s.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(pair)) {
        throw new URLError(`invalid URL escape ${JSON.stringify(s.slice(i, Math.min(i + 3, s.length)))}`);
      }
      bytes.push((unhex(pair[0]!) << 4) | unhex(pair[1]!));
      i += 3;
      continue;
    }
    if (c === '+' && mode === 'query') bytes.push(0x20);
    else bytes.push(...Buffer.from(c, 'utf8'));
    i += c.length;
  }
  return Buffer.from(bytes).toString('utf8');
}

/** shouldEscape(c, encodePath). */
function escapePath(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    if (b < 0x80 && (UNRESERVED.test(c) || '$&+,/:;=@'.includes(c))) out += c;
    else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** validEncoded(s, encodePath). */
function validEncodedPath(s: string): boolean {
  for (const c of s) {
    if ("!$&'()*+,;=:@[]".includes(c) || c === '%') continue;
    if (c.length === 1 && c.charCodeAt(0) < 0x80 && (UNRESERVED.test(c) || c === '/')) continue;
    return false;
  }
  return true;
}

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const end = host.lastIndexOf(']');
    if (end < 0) throw new URLError("missing ']' in host");
    const port = host.slice(end + 1);
    if (port !== '' && !/^:[0-9]*$/.test(port)) throw new URLError(`invalid port ${JSON.stringify(port)} after host`);
    return unescape(host, 'host');
  }
  const colon = host.lastIndexOf(':');
  if (colon >= 0) {
    const port = host.slice(colon);
    if (!/^:[0-9]*$/.test(port)) throw new URLError(`invalid port ${JSON.stringify(port)} after host`);
  }
  return unescape(host, 'host');
}

/** url.Parse (viaRequest = false) or url.ParseRequestURI (true), without the fragment handling kube does not read. */
export function parseGoURL(raw: string, viaRequest: boolean): GoURL {
  try {
    return parse(raw, viaRequest);
  } catch (e) {
    if (e instanceof URLError) throw new URLError(`parse ${JSON.stringify(raw)}: ${e.message}`);
    throw e;
  }
}

function parse(input: string, viaRequest: boolean): GoURL {
  let raw = input;
  if (!viaRequest) {
    const hash = raw.indexOf('#');
    if (hash >= 0) raw = raw.slice(0, hash);
  }
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new URLError('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new URLError('empty url');
  if (raw === '*') return { scheme: '', opaque: '', host: '', path: '*', rawPath: '', rawQuery: '' };
  let scheme = '';
  let rest = raw;
  const m = /^([A-Za-z][A-Za-z0-9+\-.]*):/.exec(raw);
  if (m) {
    scheme = m[1]!.toLowerCase();
    rest = raw.slice(m[0].length);
  } else if (raw.startsWith(':')) {
    throw new URLError('missing protocol scheme');
  }
  let rawQuery = '';
  if (rest.endsWith('?') && rest.split('?').length === 2) {
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (scheme !== '') return { scheme, opaque: rest, host: '', path: '', rawPath: '', rawQuery };
    if (viaRequest) throw new URLError('invalid URI for request');
    const colon = rest.indexOf(':');
    const slash = rest.indexOf('/');
    if (colon >= 0 && (slash < 0 || colon < slash)) throw new URLError('first path segment in URL cannot contain colon');
  }
  let host = '';
  if ((scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    const after = rest.slice(2);
    const slash = after.indexOf('/');
    const authority = slash >= 0 ? after.slice(0, slash) : after;
    rest = slash >= 0 ? after.slice(slash) : '';
    const at = authority.lastIndexOf('@');
    host = parseHost(at >= 0 ? authority.slice(at + 1) : authority);
  }
  const path = unescape(rest, 'path');
  const rawPath = escapePath(path) === rest ? '' : rest;
  return { scheme, opaque: '', host, path, rawPath, rawQuery };
}

/** URL.EscapedPath. */
function escapedPath(u: GoURL): string {
  if (u.rawPath !== '' && validEncodedPath(u.rawPath)) {
    try {
      if (unescape(u.rawPath, 'path') === u.path) return u.rawPath;
    } catch {
      // fall through to escaping the decoded path
    }
  }
  if (u.path === '*') return '*';
  return escapePath(u.path);
}

/** URL.Hostname: the host without port and IPv6 brackets. */
function hostname(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end >= 0 ? host.slice(1, end) : host.slice(1);
  }
  const colon = host.indexOf(':');
  return colon >= 0 ? host.slice(0, colon) : host;
}

/** URL.Port: the digits after the host's last colon (after "]" for IPv6), or "". */
function port(host: string): string {
  const end = host.startsWith('[') ? host.indexOf(']') + 1 : 0;
  const colon = host.indexOf(':', end);
  return colon >= 0 && /^:[0-9]*$/.test(host.slice(colon)) ? host.slice(colon + 1) : '';
}

/** url.ParseQuery, keeping what parses: pairs with a semicolon or a bad escape are dropped. */
function parseQuery(q: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of q.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const eq = part.indexOf('=');
    let key: string;
    let value: string;
    try {
      key = unescape(eq >= 0 ? part.slice(0, eq) : part, 'query');
      value = unescape(eq >= 0 ? part.slice(eq + 1) : '', 'query');
    } catch {
      continue;
    }
    out.set(key, [...(out.get(key) ?? []), value]);
  }
  return out;
}

/** kube's stringToUrl: ParseRequestURI to validate (absolute URLs or absolute paths), Parse to read. */
function toURL(s: string): CelURL {
  try {
    parseGoURL(s, true);
    return new CelURL(parseGoURL(s, false));
  } catch (e) {
    if (e instanceof URLError) throw libraryError(`URL parse error during conversion from string: ${e.message}`);
    throw e;
  }
}

/** kube's library.URLs (from 1.0). */
export function registerURLs(env: Environment): void {
  const T = 'kubernetes.URL';
  env.registerType(T, CelURL);
  env.registerFunction(`url(string): ${T}`, toURL);
  env.registerFunction('isURL(string): bool', (s: string) => {
    try {
      parseGoURL(s, true);
      return true;
    } catch {
      return false;
    }
  });
  env.registerFunction(`${T}.getScheme(): string`, (u: CelURL) => u.url.scheme);
  env.registerFunction(`${T}.getHost(): string`, (u: CelURL) => u.url.host);
  env.registerFunction(`${T}.getHostname(): string`, (u: CelURL) => hostname(u.url.host));
  env.registerFunction(`${T}.getPort(): string`, (u: CelURL) => port(u.url.host));
  env.registerFunction(`${T}.getEscapedPath(): string`, (u: CelURL) => escapedPath(u.url));
  env.registerFunction(`${T}.getQuery(): map<string, list<string>>`, (u: CelURL) => parseQuery(u.url.rawQuery));
  env.registerOperator(`${T} == ${T}`, (a: CelURL, b: CelURL) => a.equals(b));
}
