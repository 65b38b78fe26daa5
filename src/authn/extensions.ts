import { readFileSync } from 'node:fs';
import type { Logger } from '../machinery/logger.js';
import type { Authenticator } from './authenticator.js';
import { JwtAuthenticators } from './authentication-config-controller.js';
import type { OidcFlags } from './oidc.js';
import { parseCertificates, RequestHeaderAuthenticator } from './request-header.js';
import { TokenWebhookAuthenticator, type TokenWebhookOptions } from './token-webhook.js';

/**
 * The authenticators configured by kube-apiserver's flags beyond client
 * certificates: the authenticating proxy (--requestheader-*), JWT issuers
 * (--authentication-config or --oidc-*) and the token webhook. Built once at
 * start; a configuration kube-apiserver would refuse throws
 * AuthenticationSetupError with kube's message.
 */

export interface RequestHeaderFlags {
  usernameHeaders: string[];
  uidHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
  clientCaFile: string;
  allowedNames: string[];
}

export interface AuthnExtensionOptions {
  authenticationConfigFile?: string;
  /** Present when --oidc-issuer-url and --oidc-client-id are given. */
  oidc?: OidcFlags;
  /** --anonymous-auth was given explicitly (refused together with the file's `anonymous` section). */
  anonymousFlagSet?: boolean;
  tokenWebhook?: TokenWebhookOptions;
  /** Present when --requestheader-client-ca-file is given. */
  requestHeader?: RequestHeaderFlags;
  /** How often --authentication-config is read again (ms; default 1 s). */
  authenticationConfigReloadIntervalMs?: number;
}

export class AuthenticationSetupError extends Error {}

export interface ExtensionAuthenticators {
  /** Asked before client certificates, as kube's union does. */
  beforeClientCerts: Authenticator[];
  /** Bearer token authenticators, asked after the others. */
  tokens: Authenticator[];
  jwt: JwtAuthenticators | undefined;
  requestHeader: (RequestHeaderFlags & { clientCaPem: string }) | undefined;
  start(): void;
  stop(): void;
}

export function buildExtensionAuthenticators(opts: AuthnExtensionOptions, deps: { logger: Logger; apiServerId: string; disallowedIssuers?: string[] }): ExtensionAuthenticators {
  const beforeClientCerts: Authenticator[] = [];
  const tokens: Authenticator[] = [];
  let requestHeader: ExtensionAuthenticators['requestHeader'];
  const fail = (err: unknown): never => {
    throw new AuthenticationSetupError((err as Error).message);
  };
  if (opts.requestHeader) {
    const rh = opts.requestHeader;
    let clientCaPem = '';
    try {
      clientCaPem = readFileSync(rh.clientCaFile, 'utf8');
    } catch (err) {
      fail(new Error(`error reading ${rh.clientCaFile}: ${(err as Error).message}`));
    }
    if (parseCertificates(clientCaPem).length === 0) fail(new Error(`error loading certs from  ${rh.clientCaFile}: data does not contain any valid RSA or ECDSA certificates`));
    try {
      beforeClientCerts.push(new RequestHeaderAuthenticator({ ...rh, clientCaPem }));
    } catch (err) {
      fail(err);
    }
    requestHeader = { ...rh, clientCaPem };
  }
  let jwt: JwtAuthenticators | undefined;
  if (opts.authenticationConfigFile || opts.oidc) {
    try {
      jwt = new JwtAuthenticators({
        ...(opts.authenticationConfigFile ? { configFile: opts.authenticationConfigFile } : {}),
        ...(opts.oidc ? { oidc: opts.oidc } : {}),
        anonymousFlagSet: opts.anonymousFlagSet ?? false,
        disallowedIssuers: deps.disallowedIssuers ?? [],
        ...(opts.authenticationConfigReloadIntervalMs !== undefined ? { reloadIntervalMs: opts.authenticationConfigReloadIntervalMs } : {}),
        apiServerId: deps.apiServerId,
        logger: deps.logger,
      });
    } catch (err) {
      fail(err);
    }
    tokens.push(jwt!);
  }
  if (opts.tokenWebhook) {
    try {
      tokens.push(new TokenWebhookAuthenticator(opts.tokenWebhook));
    } catch (err) {
      fail(err);
    }
  }
  return {
    beforeClientCerts,
    tokens,
    jwt,
    requestHeader,
    start: () => jwt?.start(),
    stop: () => jwt?.stop(),
  };
}
