import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { OIDC_DEFAULTS, type OidcFlags } from '../authn/oidc.js';
import { parseCertificates } from '../authn/request-header.js';
import type { TokenWebhookOptions } from '../authn/token-webhook.js';
import { FlagError, type FlagSpec, type ParsedFlags } from './flags.js';

/**
 * kube-apiserver's flags for the authenticating proxy, OIDC, the
 * authentication configuration file and the token webhook, with kube's
 * names, defaults and the combinations it refuses at start (--anonymous-auth
 * and --api-audiences are token-authn-options.ts').
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
  /** The webhook's audiences are --api-audiences (token-authn.ts). */
  tokenWebhook?: Omit<TokenWebhookOptions, 'audiences'>;
  /** Present when --requestheader-client-ca-file is given. */
  requestHeader?: RequestHeaderFlags;
  /** How often --authentication-config is read again (ms; default 1 s). */
  authenticationConfigReloadIntervalMs?: number;
}

export const AUTHN_EXTENSION_FLAG_SPECS: FlagSpec[] = [
  { name: 'authentication-config', type: 'string', default: '', help: 'File with Authentication Configuration to configure the JWT Token authenticator or the anonymous authenticator. This flag is mutually exclusive with the --oidc-* flags if the file configures the JWT Token authenticator. This flag is mutually exclusive with --anonymous-auth if the file configures the Anonymous authenticator.' },
  { name: 'oidc-issuer-url', type: 'string', default: '', help: 'The URL of the OpenID issuer, only HTTPS scheme will be accepted. If set, it will be used to verify the OIDC JSON Web Token (JWT).' },
  { name: 'oidc-client-id', type: 'string', default: '', help: 'The client ID for the OpenID Connect client, must be set if oidc-issuer-url is set.' },
  { name: 'oidc-ca-file', type: 'string', default: '', help: "If set, the OpenID server's certificate will be verified by one of the authorities in the oidc-ca-file, otherwise the host's root CA set will be used." },
  { name: 'oidc-username-claim', type: 'string', default: OIDC_DEFAULTS.usernameClaim, help: "The OpenID claim to use as the user name. Note that claims other than the default ('sub') is not guaranteed to be unique and immutable. This flag is experimental, please see the authentication documentation for further details." },
  { name: 'oidc-username-prefix', type: 'string', default: '', help: "If provided, all usernames will be prefixed with this value. If not provided, username claims other than 'email' are prefixed by the issuer URL to avoid clashes. To skip any prefixing, provide the value '-'." },
  { name: 'oidc-groups-claim', type: 'string', default: '', help: 'If provided, the name of a custom OpenID Connect claim for specifying user groups. The claim value is expected to be a string or array of strings. This flag is experimental, please see the authentication documentation for further details.' },
  { name: 'oidc-groups-prefix', type: 'string', default: '', help: 'If provided, all groups will be prefixed with this value to prevent conflicts with other authentication strategies.' },
  { name: 'oidc-signing-algs', type: 'stringList', default: OIDC_DEFAULTS.signingAlgs.join(','), help: "Comma-separated list of allowed JOSE asymmetric signing algorithms. JWTs with a supported 'alg' header values are: RS256, RS384, RS512, ES256, ES384, ES512, PS256, PS384, PS512. Values are defined by RFC 7518 https://tools.ietf.org/html/rfc7518#section-3.1." },
  { name: 'oidc-required-claim', type: 'stringArray', default: '', help: 'A key=value pair that describes a required claim in the ID Token. If set, the claim is verified to be present in the ID Token with a matching value. Repeat this flag to specify multiple claims.' },
  { name: 'authentication-token-webhook-config-file', type: 'string', default: '', help: 'File with webhook configuration for token authentication in kubeconfig format. The API server will query the remote service to determine authentication for bearer tokens.' },
  { name: 'authentication-token-webhook-version', type: 'string', default: 'v1beta1', help: 'The API version of the authentication.k8s.io TokenReview to send to and expect from the webhook.' },
  { name: 'authentication-token-webhook-cache-ttl', type: 'duration', default: '2m0s', help: 'The duration to cache responses from the webhook token authenticator.' },
  { name: 'requestheader-username-headers', type: 'stringList', default: '', help: 'List of request headers to inspect for usernames. X-Remote-User is common.' },
  { name: 'requestheader-uid-headers', type: 'stringList', default: '', help: 'List of request headers to inspect for UIDs. X-Remote-Uid is suggested.' },
  { name: 'requestheader-group-headers', type: 'stringList', default: '', help: 'List of request headers to inspect for groups. X-Remote-Group is suggested.' },
  { name: 'requestheader-extra-headers-prefix', type: 'stringList', default: '', help: 'List of request header prefixes to inspect. X-Remote-Extra- is suggested.' },
  { name: 'requestheader-client-ca-file', type: 'string', default: '', help: 'Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers. WARNING: generally do not depend on authorization being already done for incoming requests.' },
  { name: 'requestheader-allowed-names', type: 'stringList', default: '', help: 'List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed.' },
];

const OIDC_FLAGS = AUTHN_EXTENSION_FLAG_SPECS.map((s) => s.name).filter((n) => n.startsWith('oidc-'));

export function authnExtensionsFromFlags(p: ParsedFlags, cwd: string): AuthnExtensionOptions {
  const str = (name: string): string => String(p.values.get(name) ?? '');
  const list = (name: string): string[] => p.values.get(name) as string[];
  const out: AuthnExtensionOptions = {};
  const configFile = str('authentication-config');
  const oidcSet = OIDC_FLAGS.some((f) => p.set.has(f));
  // BuiltInAuthenticationOptions.validateOIDCOptions.
  if (configFile) {
    if (oidcSet) throw new FlagError('authentication-config file and oidc-* flags are mutually exclusive');
    out.authenticationConfigFile = resolve(cwd, configFile);
  } else if (oidcSet && (!str('oidc-issuer-url') || !str('oidc-client-id'))) {
    throw new FlagError('oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set');
  }
  if (p.set.has('anonymous-auth')) out.anonymousFlagSet = true;
  if (str('oidc-issuer-url') && str('oidc-client-id')) {
    const requiredClaims: Record<string, string> = {};
    for (const pair of list('oidc-required-claim')) {
      const eq = pair.indexOf('=');
      if (eq < 0) throw new FlagError(`invalid argument "${pair}" for "--oidc-required-claim" flag: malformed pair, expect string=string`);
      requiredClaims[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
    out.oidc = {
      issuerUrl: str('oidc-issuer-url'),
      clientId: str('oidc-client-id'),
      ...(str('oidc-ca-file') ? { caFile: resolve(cwd, str('oidc-ca-file')) } : {}),
      usernameClaim: str('oidc-username-claim'),
      usernamePrefix: str('oidc-username-prefix'),
      groupsClaim: str('oidc-groups-claim'),
      groupsPrefix: str('oidc-groups-prefix'),
      requiredClaims,
      signingAlgs: list('oidc-signing-algs'),
    };
  }
  const webhookFile = str('authentication-token-webhook-config-file');
  if (webhookFile) {
    const version = str('authentication-token-webhook-version');
    if (version !== 'v1' && version !== 'v1beta1') throw new FlagError(`unsupported authentication webhook version "${version}", supported versions are "v1", "v1beta1"`);
    out.tokenWebhook = { configFile: resolve(cwd, webhookFile), version, cacheTtlMs: p.values.get('authentication-token-webhook-cache-ttl') as number };
  }
  for (const name of ['requestheader-username-headers', 'requestheader-uid-headers', 'requestheader-group-headers', 'requestheader-extra-headers-prefix']) {
    if (list(name).some((v) => v.trim() === '')) throw new FlagError(`empty value in "${name}"`);
  }
  const rhCa = str('requestheader-client-ca-file');
  if (rhCa && str('client-ca-file') && list('requestheader-allowed-names').length === 0 && bundlesOverlap(resolve(cwd, str('client-ca-file')), resolve(cwd, rhCa))) {
    throw new FlagError('--requestheader-client-ca-file and --client-ca-file contain overlapping certificates; --requestheader-allowed-names must be specified to ensure regular client certificates cannot set authenticating proxy headers for arbitrary users');
  }
  if (rhCa) {
    out.requestHeader = {
      usernameHeaders: list('requestheader-username-headers'),
      uidHeaders: list('requestheader-uid-headers'),
      groupHeaders: list('requestheader-group-headers'),
      extraHeaderPrefixes: list('requestheader-extra-headers-prefix'),
      clientCaFile: resolve(cwd, rhCa),
      allowedNames: list('requestheader-allowed-names'),
    };
  }
  return out;
}

/** Whether the two CA files share a certificate (unreadable files are left to the start-up that reads them). */
function bundlesOverlap(a: string, b: string): boolean {
  try {
    const ders = new Set(parseCertificates(readFileSync(a, 'utf8')).map((c) => c.raw.toString('base64')));
    return parseCertificates(readFileSync(b, 'utf8')).some((c) => ders.has(c.raw.toString('base64')));
  } catch {
    return false;
  }
}
