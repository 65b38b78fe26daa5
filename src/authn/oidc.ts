import { readFileSync } from 'node:fs';
import type { JwtAuthenticatorConfig } from './authentication-config.js';

/**
 * The --oidc-* flags, turned into one JWT authenticator of the
 * authentication configuration as kube-apiserver does: the client id is the
 * audience; without --oidc-username-prefix, usernames from claims other
 * than `email` get the issuer URL and `#` in front, and `-` means no prefix;
 * --oidc-required-claim becomes claim rules.
 */

export interface OidcFlags {
  issuerUrl: string;
  clientId: string;
  caFile?: string;
  usernameClaim: string;
  usernamePrefix: string;
  groupsClaim: string;
  groupsPrefix: string;
  requiredClaims: Record<string, string>;
  signingAlgs: string[];
}

export const OIDC_DEFAULTS: Pick<OidcFlags, 'usernameClaim' | 'signingAlgs'> = { usernameClaim: 'sub', signingAlgs: ['RS256'] };

export function jwtAuthenticatorFromOidcFlags(f: OidcFlags): JwtAuthenticatorConfig {
  let prefix = f.usernamePrefix;
  if (prefix === '' && f.usernameClaim !== 'email') prefix = `${f.issuerUrl}#`;
  if (prefix === '-') prefix = '';
  const config: JwtAuthenticatorConfig = {
    issuer: { url: f.issuerUrl, audiences: [f.clientId] },
    claimMappings: { username: { claim: f.usernameClaim, prefix } },
  };
  if (f.groupsClaim) config.claimMappings.groups = { claim: f.groupsClaim, prefix: f.groupsPrefix };
  if (f.caFile) config.issuer.certificateAuthority = readFileSync(f.caFile, 'utf8');
  const required = Object.entries(f.requiredClaims);
  if (required.length > 0) config.claimValidationRules = required.map(([claim, requiredValue]) => ({ claim, requiredValue }));
  return config;
}
