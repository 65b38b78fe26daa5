import { readFileSync } from 'node:fs';
import type { Authenticator } from '../authn/authenticator.js';
import { JwtAuthenticators } from '../authn/authentication-config-controller.js';
import { audienceAgnostic, type TokenAuthenticator } from '../authn/bearer-token.js';
import { BootstrapTokenAuthenticator } from '../authn/bootstrap-token.js';
import { JwtVerifier } from '../authn/jwt.js';
import { parseCertificates, RequestHeaderAuthenticator } from '../authn/request-header.js';
import { loadServiceAccountKeys, type ServiceAccountKeys } from '../authn/service-account-keys.js';
import { ServiceAccountTokenIssuer } from '../authn/service-account-issuer.js';
import { ServiceAccountTokenAuthenticator, type ServiceAccountLookups } from '../authn/service-account-token.js';
import type { LegacyTokenCounters } from '../authn/legacy-token-tracking.js';
import { TokenFileAuthenticator } from '../authn/token-file.js';
import { TokenWebhookAuthenticator } from '../authn/token-webhook.js';
import type { Logger } from '../machinery/logger.js';
import type { TokenRequestSettings } from '../handlers/subresources/token-request.js';
import type { AuthnExtensionOptions, RequestHeaderFlags } from './authn-flags.js';
import type { TokenAuthnConfig } from './token-authn-options.js';

/**
 * The authenticators kube-apiserver builds from its flags
 * (pkg/kubeapiserver/authenticator/config.go), in its order: the
 * authenticating proxy (asked before client certificates), then the token
 * authenticators: the token file, service account tokens, bootstrap tokens,
 * JWT issuers (--authentication-config or --oidc-*), the token webhook; and
 * what issues service account tokens (TokenRequest, the token Secret
 * controller). A configuration kube-apiserver would refuse throws
 * AuthenticationSetupError with kube's message.
 */
export interface TokenAuthentication {
  /** --requestheader-*: asked before client certificates, as kube's union does. */
  requestHeader: Authenticator | undefined;
  /** What the extension-apiserver-authentication ConfigMap publishes about the proxy. */
  requestHeaderInfo: (RequestHeaderFlags & { clientCaPem: string }) | undefined;
  authenticators: TokenAuthenticator[];
  /** The JWT issuers and the file's `anonymous` section (reloaded while running). */
  jwt: JwtAuthenticators | undefined;
  /** kube's serviceaccount_*legacy*_token_uses_total counters, for /metrics. */
  legacyTokenCounters: LegacyTokenCounters;
  keys: ServiceAccountKeys;
  issuer: ServiceAccountTokenIssuer;
  tokenRequest: TokenRequestSettings;
  start(): void;
  stop(): void;
}

/** kube-apiserver exits with this before serving. */
export class AuthenticationSetupError extends Error {}

export function buildTokenAuthentication(
  cfg: TokenAuthnConfig,
  ext: AuthnExtensionOptions,
  opts: {
    keyDir: string | undefined;
    lookups: ServiceAccountLookups;
    logger: Logger;
    apiServerId: string;
    /** The legacy token validator's Secret writer (the legacy-token-last-used label). */
    patchSecret?: (namespace: string, name: string, patch: Record<string, unknown>) => Promise<void>;
  },
): TokenAuthentication {
  const setup = <T>(build: () => T): T => {
    try {
      return build();
    } catch (err) {
      throw new AuthenticationSetupError((err as Error).message);
    }
  };
  const requestHeaderInfo = ext.requestHeader && setup(() => requestHeaderWithCa(ext.requestHeader!));
  const requestHeader = requestHeaderInfo && setup(() => new RequestHeaderAuthenticator(requestHeaderInfo));
  const keys = loadServiceAccountKeys({ signingKeyFile: cfg.serviceAccountSigningKeyFile, keyFiles: cfg.serviceAccountKeyFiles, dir: opts.keyDir });
  const authenticators: TokenAuthenticator[] = [];
  // Tokens that name no audience are good for the API's audiences only.
  if (cfg.tokenAuthFile) authenticators.push(audienceAgnostic(TokenFileAuthenticator.fromFile(cfg.tokenAuthFile, opts.logger), cfg.apiAudiences));
  const serviceAccounts = new ServiceAccountTokenAuthenticator({
    issuers: cfg.serviceAccountIssuers,
    verifier: new JwtVerifier(keys.verifying),
    implicitAudiences: cfg.apiAudiences,
    lookup: cfg.serviceAccountLookup,
    lookups: opts.lookups,
    ...(opts.patchSecret ? { patchSecret: opts.patchSecret } : {}),
    logError: (message) => opts.logger.error(message),
  });
  authenticators.push(serviceAccounts);
  if (cfg.enableBootstrapTokenAuth) authenticators.push(audienceAgnostic(new BootstrapTokenAuthenticator(opts.lookups.secrets, opts.logger), cfg.apiAudiences));
  // After service accounts, as kube keeps them: both read JWTs, and only the issuers may have to fetch keys.
  let jwt: JwtAuthenticators | undefined;
  if (ext.authenticationConfigFile || ext.oidc) {
    jwt = setup(
      () =>
        new JwtAuthenticators({
          ...(ext.authenticationConfigFile ? { configFile: ext.authenticationConfigFile } : {}),
          ...(ext.oidc ? { oidc: ext.oidc } : {}),
          anonymousFlagSet: ext.anonymousFlagSet ?? false,
          disallowedIssuers: cfg.serviceAccountIssuers,
          ...(ext.authenticationConfigReloadIntervalMs !== undefined ? { reloadIntervalMs: ext.authenticationConfigReloadIntervalMs } : {}),
          apiServerId: opts.apiServerId,
          logger: opts.logger,
        }),
    );
    authenticators.push(audienceAgnostic(jwt, cfg.apiAudiences));
  }
  if (ext.tokenWebhook) {
    const webhook = ext.tokenWebhook;
    authenticators.push(setup(() => new TokenWebhookAuthenticator({ ...webhook, audiences: cfg.apiAudiences })));
  }
  return {
    requestHeader,
    requestHeaderInfo,
    authenticators,
    jwt,
    legacyTokenCounters: serviceAccounts.legacyCounters,
    keys,
    issuer: new ServiceAccountTokenIssuer(cfg.serviceAccountIssuers[0]!, keys.signing),
    tokenRequest: {
      audiences: cfg.apiAudiences,
      maxExpirationSeconds: Math.floor(cfg.serviceAccountMaxTokenExpiration / 1000),
      extendExpiration: cfg.serviceAccountExtendTokenExpiration,
    },
    start: () => jwt?.start(),
    stop: () => jwt?.stop(),
  };
}

function requestHeaderWithCa(rh: RequestHeaderFlags): RequestHeaderFlags & { clientCaPem: string } {
  let clientCaPem: string;
  try {
    clientCaPem = readFileSync(rh.clientCaFile, 'utf8');
  } catch (err) {
    throw new Error(`error reading ${rh.clientCaFile}: ${(err as Error).message}`);
  }
  if (parseCertificates(clientCaPem).length === 0) throw new Error(`error loading certs from  ${rh.clientCaFile}: data does not contain any valid RSA or ECDSA certificates`);
  return { ...rh, clientCaPem };
}
