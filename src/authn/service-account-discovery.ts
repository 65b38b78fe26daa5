import { publicJwk, type VerificationKey } from './service-account-keys.js';

/**
 * The service account issuer's OpenID Connect discovery documents (kube's
 * openidmetadata.go): `/.well-known/openid-configuration` and the JWKS at
 * `/openid/v1/jwks`, rendered once. kube skips serving them (and logs why)
 * when the issuer is not an https URL without query or fragment.
 */

export const OPENID_CONFIG_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';
/** Cache-Control max-age of both documents (kube's for static keys). */
export const DISCOVERY_MAX_AGE_SECONDS = 3600;

export interface IssuerDiscovery {
  configJson: string;
  keysetJson: string;
}

export function issuerDiscovery(issuerUrl: string, jwksUri: string, externalAddress: string, keys: readonly VerificationKey[]): IssuerDiscovery {
  if (issuerUrl === '') throw new Error('empty issuer URL');
  let iss: URL;
  try {
    iss = new URL(issuerUrl);
  } catch {
    throw new Error(`parse "${issuerUrl}": invalid URL`);
  }
  if (iss.protocol !== 'https:') throw new Error(`issuer URL must use https scheme, got: ${issuerUrl}`);
  if (iss.search !== '') throw new Error(`issuer URL may not include a query, got: ${issuerUrl}`);
  if (iss.hash !== '') throw new Error(`issuer URL may not include a fragment, got: ${issuerUrl}`);
  let uri = jwksUri;
  if (uri === '') {
    if (externalAddress === '') throw new Error(`attempted to build jwks_uri from external address ${externalAddress}, but could not construct a valid URL. Error: empty address`);
    uri = `https://${externalAddress}${JWKS_PATH}`;
  } else if (!uri.startsWith('https:')) {
    throw new Error(`jwksURI requires https scheme, parsed as: ${uri}`);
  }
  if (keys.length === 0) throw new Error('no keys provided for validating keyset');
  const jwks = keys.map(publicJwk);
  const algs = [...new Set(jwks.map((k) => k.alg!))].sort();
  return {
    configJson: JSON.stringify({ issuer: issuerUrl, jwks_uri: uri, response_types_supported: ['id_token'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: algs }),
    keysetJson: JSON.stringify({ keys: jwks }),
  };
}
