import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { ensurePki, type ServerPki } from '../../src/server/pki.js';
import type { UserInfo } from '../../src/machinery/context.js';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer } from '../../src/authz/authorizer.js';

/** Test peers of the authenticators: TLS servers with their own CA (an OIDC provider, a token webhook) and an authorizer that records who asked. */

/** A CA with a serving certificate for localhost/127.0.0.1 and a client certificate for `user` in `groups`. */
export function makePki(user: string, groups: string[] = []): Promise<ServerPki> {
  return ensurePki({ servingNames: [], adminUser: user, adminGroups: groups });
}

export interface TlsServer {
  url: string;
  close(): Promise<void>;
}

export async function startTlsServer(pki: ServerPki, handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<TlsServer> {
  const server: Server = createServer({ key: pki.serving.key, cert: pki.serving.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

interface SigningKey {
  kid: string;
  alg: string;
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  jwk: JWK;
}

async function newKey(kid: string, alg: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey, jwk };
}

/** An OpenID provider: discovery and JWKS over TLS, tokens signed with its current key. */
export class OidcProvider {
  keys: SigningKey[] = [];
  jwksFetches = 0;
  private server!: TlsServer;
  pki!: ServerPki;
  /** What discovery reports as the issuer (tests make it lie). */
  reportedIssuer: string | undefined;

  get url(): string {
    return this.server.url;
  }

  get ca(): string {
    return this.pki.servingCa!;
  }

  static async start(): Promise<OidcProvider> {
    const p = new OidcProvider();
    p.pki = await makePki('unused');
    p.keys = [await newKey('key-1', 'RS256')];
    p.server = await startTlsServer(p.pki, (req, res) => {
      if (req.url === '/.well-known/openid-configuration' || req.url === '/other/discovery') {
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ issuer: p.reportedIssuer ?? p.url, jwks_uri: `${p.url}/keys`, id_token_signing_alg_values_supported: ['RS256', 'ES256'] }));
      } else if (req.url === '/keys') {
        p.jwksFetches++;
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ keys: p.keys.map((k) => k.jwk) }));
      } else {
        res.statusCode = 404;
        res.end();
      }
    });
    return p;
  }

  /** A new key with a new kid replaces the served ones. */
  async rotate(kid: string, alg = 'RS256'): Promise<void> {
    this.keys = [await newKey(kid, alg)];
  }

  /** A token with `claims` over sensible defaults (iss, aud, iat, exp in an hour). */
  async token(claims: Record<string, unknown>, opts: { key?: SigningKey; kid?: string } = {}): Promise<string> {
    const key = opts.key ?? this.keys[0]!;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: this.url, aud: 'capstan', iat: now, exp: now + 3600, ...claims })
      .setProtectedHeader({ alg: key.alg, kid: opts.kid ?? key.kid })
      .sign(key.privateKey);
  }

  /** A key the provider never published, for forged tokens. */
  static otherKey(kid: string): Promise<SigningKey> {
    return newKey(kid, 'RS256');
  }

  close(): Promise<void> {
    return this.server.close();
  }
}

/**
 * Allows everything except what `deny` names, and remembers, per resource
 * name asked for, the user the authorizer saw (the impersonated one when
 * impersonating) and every impersonation check.
 */
export class RecordingAuthorizer implements Authorizer {
  readonly users = new Map<string, UserInfo>();
  readonly impersonationChecks: AuthorizationAttributes[] = [];

  constructor(private readonly deny: (a: AuthorizationAttributes) => boolean = () => false) {}

  async authorize(a: AuthorizationAttributes): Promise<AuthorizationDecision> {
    if (a.verb === 'impersonate') this.impersonationChecks.push(a);
    else if (a.name) this.users.set(a.name, a.user);
    if (this.deny(a)) return { decision: 'NoOpinion', reason: '' };
    if (a.user.username === 'system:anonymous' && a.resourceRequest) return { decision: 'NoOpinion', reason: '' };
    return { decision: 'Allow', reason: '' };
  }
}

let probes = 0;

/** A resource name no object has: the GET is authorized (and recorded) and then 404s. */
export function probeName(): string {
  return `probe-${process.pid}-${++probes}`;
}
