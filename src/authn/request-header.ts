import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import type { UserInfo } from '../machinery/context.js';
import { AuthenticationError, type AuthenticationResult, type Authenticator } from './authenticator.js';

/**
 * kube-apiserver's authenticating proxy (--requestheader-*): a front proxy
 * whose client certificate verifies against --requestheader-client-ca-file
 * (and whose CN is in --requestheader-allowed-names, when given) names the
 * user in headers. Without a certificate, or without a username header, it
 * has no opinion; a certificate that does not verify fails it. The headers
 * it read are removed before the request goes further.
 */

export interface RequestHeaderOptions {
  usernameHeaders: string[];
  uidHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
  /** PEM bundle of the CAs that sign front proxies' client certificates. */
  clientCaPem: string;
  allowedNames: string[];
}

const TRUSTED = '';
const NO_CERTIFICATE = 'no certificate';
const CLIENT_AUTH_EKU = '1.3.6.1.5.5.7.3.2';
const ANY_EKU = '2.5.29.37.0';

export class RequestHeaderAuthenticator implements Authenticator {
  private readonly roots: X509Certificate[];
  private readonly usernameHeaders: string[];
  private readonly uidHeaders: string[];
  private readonly groupHeaders: string[];
  private readonly extraPrefixes: string[];
  /** Per connection; its certificate's validity period is checked when the connection is first used. */
  private readonly verdicts = new WeakMap<object, string>();

  constructor(private readonly opts: RequestHeaderOptions) {
    this.roots = parseCertificates(opts.clientCaPem);
    if (this.roots.length === 0) throw new Error('error loading certs from --requestheader-client-ca-file: data does not contain any valid RSA or ECDSA certificates');
    this.usernameHeaders = trimmed(opts.usernameHeaders);
    this.uidHeaders = trimmed(opts.uidHeaders);
    this.groupHeaders = trimmed(opts.groupHeaders);
    this.extraPrefixes = trimmed(opts.extraHeaderPrefixes);
  }

  async authenticate(req: IncomingMessage): Promise<AuthenticationResult | undefined> {
    const socket = req.socket as TLSSocket;
    if (typeof socket.getPeerCertificate !== 'function') return undefined;
    let verdict = this.verdicts.get(socket);
    if (verdict === undefined) {
      verdict = this.judge(socket);
      this.verdicts.set(socket, verdict);
    }
    if (verdict === NO_CERTIFICATE) return undefined;
    if (verdict !== TRUSTED) throw new AuthenticationError(verdict);
    return this.fromHeaders(req);
  }

  /** The connection's certificate, checked once per connection (it cannot change on it): TRUSTED, NO_CERTIFICATE or why not. */
  private judge(socket: TLSSocket): string {
    const peer = socket.getPeerCertificate(true);
    if (!peer || !peer.raw) return NO_CERTIFICATE;
    const leaf = new X509Certificate(peer.raw);
    const failure = this.verify(leaf, intermediatesOf(peer));
    if (failure) return `verifying certificate ${describe(leaf)} failed: ${failure}`;
    if (this.opts.allowedNames.length > 0) {
      const cn = commonName(leaf);
      if (!this.opts.allowedNames.includes(cn)) return `x509: subject with cn=${cn} is not in the allowed list`;
    }
    return TRUSTED;
  }

  /** The user the headers name; undefined without a username. */
  private fromHeaders(req: IncomingMessage): AuthenticationResult | undefined {
    const headers = req.headersDistinct;
    const first = (names: string[]): string => {
      for (const n of names) {
        const v = headers[n.toLowerCase()]?.[0];
        if (v) return v;
      }
      return '';
    };
    const username = first(this.usernameHeaders);
    if (!username) return undefined;
    const uid = first(this.uidHeaders);
    const groups = this.groupHeaders.flatMap((n) => (headers[n.toLowerCase()] ?? []).filter((v) => v !== ''));
    const extra: Record<string, string[]> = {};
    for (const prefix of this.extraPrefixes) {
      const p = prefix.toLowerCase();
      for (const [name, values] of Object.entries(headers)) {
        if (!name.startsWith(p) || !values) continue;
        const key = unescapeExtraKey(name.slice(p.length).toLowerCase());
        (extra[key] ??= []).push(...values);
      }
    }
    this.clear(req);
    const user: UserInfo = { username, groups, ...(Object.keys(extra).length > 0 ? { extra } : {}) };
    if (uid) user.uid = uid;
    return { user };
  }

  private clear(req: IncomingMessage): void {
    for (const n of [...this.usernameHeaders, ...this.uidHeaders, ...this.groupHeaders]) delete req.headers[n.toLowerCase()];
    for (const prefix of this.extraPrefixes) {
      const p = prefix.toLowerCase();
      for (const name of Object.keys(req.headers)) if (name.startsWith(p)) delete req.headers[name];
    }
  }

  /** Why the chain does not lead to one of the roots, or undefined when it does (x509 VerifyOptions with client auth usage). */
  private verify(leaf: X509Certificate, intermediates: X509Certificate[]): string | undefined {
    const now = Date.now();
    const usable = (c: X509Certificate): boolean => Date.parse(c.validFrom) <= now && now <= Date.parse(c.validTo);
    if (!usable(leaf)) return 'x509: certificate has expired or is not yet valid';
    const usages = leaf.keyUsage;
    if (usages && usages.length > 0 && !usages.includes(CLIENT_AUTH_EKU) && !usages.includes(ANY_EKU)) return 'x509: certificate specifies an incompatible key usage';
    let current = leaf;
    for (let depth = 0; depth <= intermediates.length; depth++) {
      if (this.roots.some((root) => usable(root) && issuedBy(current, root))) return undefined;
      const next = intermediates.find((c) => c !== current && usable(c) && c.ca && issuedBy(current, c));
      if (!next) break;
      current = next;
    }
    return 'x509: certificate signed by unknown authority';
  }
}

function issuedBy(cert: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

function intermediatesOf(peer: DetailedPeerCertificate): X509Certificate[] {
  const out: X509Certificate[] = [];
  const seen = new Set<DetailedPeerCertificate>([peer]);
  let c = peer.issuerCertificate;
  while (c && !seen.has(c) && c.raw && out.length < 8) {
    seen.add(c);
    out.push(new X509Certificate(c.raw));
    c = c.issuerCertificate;
  }
  return out;
}

export function parseCertificates(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const out: X509Certificate[] = [];
  for (const b of blocks) {
    try {
      out.push(new X509Certificate(b));
    } catch {
      // kube skips what does not parse as long as one certificate does.
    }
  }
  return out;
}

function commonName(cert: X509Certificate): string {
  const m = /(?:^|\n)CN=([^\n]*)/.exec(cert.subject);
  return m ? m[1]! : '';
}

function describe(cert: X509Certificate): string {
  return `#${BigInt(`0x${cert.serialNumber}`).toString()}`;
}

function trimmed(names: string[]): string[] {
  return names.map((n) => n.trim()).filter((n) => n !== '');
}

function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** Token characters a header name may hold as they are (RFC 7230), '%' excepted. */
const HEADER_KEY_CHARS = /^[A-Za-z0-9!#$&'*+\-.^_`|~]$/;

/** An extra's key as a header name suffix, as client-go's headerKeyEscape writes it (what unescapeExtraKey reads). */
export function escapeExtraKey(key: string): string {
  let out = '';
  for (const byte of Buffer.from(key, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += HEADER_KEY_CHARS.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
