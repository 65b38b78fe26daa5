import { resolve } from 'node:path';
import { FlagError, type FlagSpec, type ParsedFlags } from './flags.js';

/**
 * kube-apiserver's flags for anonymous requests, static and bootstrap tokens
 * and service account tokens, with its help texts, defaults and checks.
 * Where kube has no default but requires the flag (--service-account-issuer,
 * --service-account-key-file), Capstan has one so that `capstan serve` works
 * without configuration: the issuer below, and a signing key generated into
 * the certificate directory.
 */

export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

export interface TokenAuthnConfig {
  tokenAuthFile?: string;
  enableBootstrapTokenAuth: boolean;
  serviceAccountKeyFiles: string[];
  serviceAccountSigningKeyFile?: string;
  /** The first signs; all are accepted. */
  serviceAccountIssuers: string[];
  serviceAccountJwksUri: string;
  /** Default: the issuers. */
  apiAudiences: string[];
  serviceAccountLookup: boolean;
  /** Milliseconds; 0: no bound. */
  serviceAccountMaxTokenExpiration: number;
  serviceAccountExtendTokenExpiration: boolean;
}

export const TOKEN_AUTHN_FLAG_SPECS: FlagSpec[] = [
  { name: 'anonymous-auth', type: 'bool', default: 'true', help: 'Enables anonymous requests to the secure port of the API server. Requests that are not rejected by another authentication method are treated as anonymous requests. Anonymous requests have a username of system:anonymous, and a group name of system:unauthenticated.' },
  { name: 'token-auth-file', type: 'string', default: '', help: 'If set, the file that will be used to secure the secure port of the API server via token authentication.' },
  { name: 'enable-bootstrap-token-auth', type: 'bool', default: 'false', help: "Enable to allow secrets of type 'bootstrap.kubernetes.io/token' in the 'kube-system' namespace to be used for TLS bootstrapping authentication." },
  { name: 'service-account-key-file', type: 'stringArray', default: '', help: 'File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. The specified file can contain multiple keys, and the flag can be specified multiple times with different files. If unspecified, the public half of the signing key is used.' },
  { name: 'service-account-signing-key-file', type: 'string', default: '', help: 'Path to the file that contains the current private key of the service account token issuer. The issuer will sign issued ID tokens with this private key. If unspecified, a key generated into the certificate directory (sa.key) is used.' },
  { name: 'service-account-issuer', type: 'stringArray', default: '', help: `Identifier of the service account token issuer. The issuer will assert this identifier in "iss" claim of issued tokens. This value is a string or URI; it must be an https URL for the discovery documents at /.well-known/openid-configuration to be served. When this flag is specified multiple times, the first is used to generate tokens and all are used to determine which issuers are accepted. (default ${DEFAULT_SERVICE_ACCOUNT_ISSUER})` },
  { name: 'service-account-jwks-uri', type: 'string', default: '', help: "Overrides the URI for the JSON Web Key Set in the discovery doc served at /.well-known/openid-configuration. This flag is useful if the discovery docand key set are served to relying parties from a URL other than the API server's external (as auto-detected or overridden with external-hostname)." },
  { name: 'api-audiences', type: 'stringList', default: '', help: 'Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. If the --service-account-issuer flag is configured and this flag is not, this field defaults to a single element list containing the issuer URL.' },
  { name: 'service-account-lookup', type: 'bool', default: 'true', help: 'If true, validate ServiceAccount tokens exist in etcd as part of authentication.' },
  { name: 'service-account-max-token-expiration', type: 'duration', default: '0s', help: 'The maximum validity duration of a token created by the service account token issuer. If an otherwise valid TokenRequest with a validity duration larger than this value is requested, a token will be issued with a validity duration of this value.' },
  { name: 'service-account-extend-token-expiration', type: 'bool', default: 'true', help: 'Turns on projected service account expiration extension during token generation, which helps safe transition from legacy token to bound service account token feature. If this flag is enabled, admission injected tokens would be extended up to 1 year to prevent unexpected failure during transition, ignoring value of service-account-max-token-expiration.' },
];

/** The flags above as configuration; FlagError with kube's texts for what kube refuses. */
export function tokenAuthnFromFlags(p: ParsedFlags, cwd: string): { anonymousAuth: boolean; tokenAuthn: TokenAuthnConfig } {
  const str = (name: string): string => String(p.values.get(name) ?? '');
  const list = (name: string): string[] => p.values.get(name) as string[];
  const issuers = p.set.has('service-account-issuer') ? list('service-account-issuer') : [DEFAULT_SERVICE_ACCOUNT_ISSUER];
  const seen = new Set<string>();
  for (const issuer of issuers) {
    // What Go's url.Parse refuses among strings with a colon: no scheme before it.
    if (issuer.startsWith(':')) throw new FlagError(`service-account-issuer ${JSON.stringify(issuer)} contained a ':' but was not a valid URL: parse ${JSON.stringify(issuer)}: missing protocol scheme`);
    if (issuer === '') throw new FlagError('service-account-issuer should not be an empty string');
    if (seen.has(issuer)) throw new FlagError(`service-account-issuer ${JSON.stringify(issuer)} is already specified`);
    seen.add(issuer);
  }
  if (issuers.length === 0) throw new FlagError('service-account-issuer is a required flag');
  const jwksUri = str('service-account-jwks-uri');
  if (jwksUri !== '') {
    if (!URL.canParse(jwksUri)) throw new FlagError(`service-account-jwks-uri must be a valid URL: parse ${JSON.stringify(jwksUri)}: invalid URI`);
    if (new URL(jwksUri).protocol !== 'https:') throw new FlagError(`service-account-jwks-uri requires https scheme, parsed as: ${jwksUri}`);
  }
  const maxExpiration = p.values.get('service-account-max-token-expiration') as number;
  if (maxExpiration !== 0 && (maxExpiration < 3_600_000 || maxExpiration > 2 ** 32 * 1000)) throw new FlagError('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds');
  const audiences = list('api-audiences').filter((a) => a !== '');
  const tokenAuthn: TokenAuthnConfig = {
    enableBootstrapTokenAuth: p.values.get('enable-bootstrap-token-auth') === true,
    serviceAccountKeyFiles: list('service-account-key-file').map((f) => resolve(cwd, f)),
    serviceAccountIssuers: issuers,
    serviceAccountJwksUri: jwksUri,
    apiAudiences: audiences.length > 0 ? audiences : issuers,
    serviceAccountLookup: p.values.get('service-account-lookup') === true,
    serviceAccountMaxTokenExpiration: maxExpiration,
    serviceAccountExtendTokenExpiration: p.values.get('service-account-extend-token-expiration') === true,
  };
  if (str('token-auth-file')) tokenAuthn.tokenAuthFile = resolve(cwd, str('token-auth-file'));
  if (str('service-account-signing-key-file')) tokenAuthn.serviceAccountSigningKeyFile = resolve(cwd, str('service-account-signing-key-file'));
  return { anonymousAuth: p.values.get('anonymous-auth') === true, tokenAuthn };
}
