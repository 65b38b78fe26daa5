import { audienceAgnostic, type TokenAuthenticator } from '../authn/bearer-token.js';
import { BootstrapTokenAuthenticator } from '../authn/bootstrap-token.js';
import { JwtVerifier } from '../authn/jwt.js';
import { loadServiceAccountKeys, type ServiceAccountKeys } from '../authn/service-account-keys.js';
import { ServiceAccountTokenIssuer } from '../authn/service-account-issuer.js';
import { ServiceAccountTokenAuthenticator, type ServiceAccountLookups } from '../authn/service-account-token.js';
import { TokenFileAuthenticator } from '../authn/token-file.js';
import type { Logger } from '../machinery/logger.js';
import type { TokenRequestSettings } from '../handlers/subresources/token-request.js';
import type { TokenAuthnConfig } from './token-authn-options.js';

/**
 * The token authenticators kube-apiserver builds from its flags
 * (pkg/kubeapiserver/authenticator/config.go), in its order: the token file,
 * service account tokens, bootstrap tokens; and what issues service account
 * tokens (TokenRequest, the token Secret controller).
 */
export interface TokenAuthentication {
  authenticators: TokenAuthenticator[];
  keys: ServiceAccountKeys;
  issuer: ServiceAccountTokenIssuer;
  tokenRequest: TokenRequestSettings;
}

export function buildTokenAuthentication(cfg: TokenAuthnConfig, opts: { keyDir: string | undefined; lookups: ServiceAccountLookups; logger: Logger }): TokenAuthentication {
  const keys = loadServiceAccountKeys({ signingKeyFile: cfg.serviceAccountSigningKeyFile, keyFiles: cfg.serviceAccountKeyFiles, dir: opts.keyDir });
  const authenticators: TokenAuthenticator[] = [];
  // Tokens that name no audience are good for the API's audiences only.
  if (cfg.tokenAuthFile) authenticators.push(audienceAgnostic(TokenFileAuthenticator.fromFile(cfg.tokenAuthFile, opts.logger), cfg.apiAudiences));
  authenticators.push(
    new ServiceAccountTokenAuthenticator({
      issuers: cfg.serviceAccountIssuers,
      verifier: new JwtVerifier(keys.verifying),
      implicitAudiences: cfg.apiAudiences,
      lookup: cfg.serviceAccountLookup,
      lookups: opts.lookups,
    }),
  );
  if (cfg.enableBootstrapTokenAuth) authenticators.push(audienceAgnostic(new BootstrapTokenAuthenticator(opts.lookups.secrets, opts.logger), cfg.apiAudiences));
  return {
    authenticators,
    keys,
    issuer: new ServiceAccountTokenIssuer(cfg.serviceAccountIssuers[0]!, keys.signing),
    tokenRequest: {
      audiences: cfg.apiAudiences,
      maxExpirationSeconds: Math.floor(cfg.serviceAccountMaxTokenExpiration / 1000),
      extendExpiration: cfg.serviceAccountExtendTokenExpiration,
    },
  };
}
