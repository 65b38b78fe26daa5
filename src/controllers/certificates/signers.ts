import { strconvQuote } from '../../machinery/go-compat.js';

/**
 * The built-in signers kube-controller-manager's csrsigning controller
 * serves, what each accepts (pkg/controller/certificates/signer: isKubeletServing,
 * isKubeletClient, isKubeAPIServerClient, isLegacyUnknown, with
 * pkg/apis/certificates/helpers.go's Validate*CSR), how long what it signs
 * lives, and the X.509 usages a CSR's `usages` stand for
 * (certificates/authority/policies.go). Texts are kube's, word for word.
 */

export const KUBE_APISERVER_CLIENT = 'kubernetes.io/kube-apiserver-client';
export const KUBE_APISERVER_CLIENT_KUBELET = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING = 'kubernetes.io/kubelet-serving';
export const LEGACY_UNKNOWN = 'kubernetes.io/legacy-unknown';

export const BUILT_IN_SIGNERS: readonly string[] = [KUBELET_SERVING, KUBE_APISERVER_CLIENT_KUBELET, KUBE_APISERVER_CLIENT, LEGACY_UNKNOWN];

/** What the signers' checks read of a certificate request (Go's x509.CertificateRequest fields). */
export interface RequestFacts {
  commonName: string;
  organizations: readonly string[];
  dnsNames: readonly string[];
  ipAddresses: readonly string[];
  emailAddresses: readonly string[];
  uris: readonly string[];
  /** The public key is ML-DSA (x509.MLDSA). */
  mlDsa: boolean;
}

const KUBELET_SERVING_USAGES = ['digital signature', 'key encipherment', 'server auth'];
const KUBELET_SERVING_USAGES_NO_RSA = ['digital signature', 'server auth'];
const KUBELET_CLIENT_USAGES = ['client auth', 'digital signature', 'key encipherment'];
const KUBELET_CLIENT_USAGES_NO_RSA = ['client auth', 'digital signature'];
const MLDSA_DISALLOWED = new Set(['key encipherment', 'key agreement', 'data encipherment', 'encipher only', 'decipher only']);
const MLDSA_AT_LEAST_ONE_OF = ['cert sign', 'content commitment', 'crl sign', 'digital signature'];

/**
 * Why the signer refuses the request (the message of kube's Failed
 * condition, reason SignerValidationFailure), or undefined when it may be
 * signed. Only called for the built-in signers.
 */
export function signerValidationError(signerName: string, req: RequestFacts, usages: readonly string[]): string | undefined {
  const set = [...new Set(usages)].sort();
  switch (signerName) {
    case KUBELET_SERVING:
      return kubeletServingError(req, set);
    case KUBE_APISERVER_CLIENT_KUBELET:
      return kubeletClientError(req, set);
    case KUBE_APISERVER_CLIENT:
      return apiServerClientError(req, usages, set);
    default:
      // No restrictions on legacy-unknown, to stay compatible with v1beta1.
      return undefined;
  }
}

function kubeletServingError(req: RequestFacts, usages: string[]): string | undefined {
  if (!onlySystemNodes(req)) return 'subject organization is not system:nodes';
  if (req.dnsNames.length === 0 && req.ipAddresses.length === 0) return 'DNS or IP subjectAltName is required';
  if (req.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!sameSet(usages, KUBELET_SERVING_USAGES) && !sameSet(usages, KUBELET_SERVING_USAGES_NO_RSA)) return `usages did not match ${goList(KUBELET_SERVING_USAGES)}`;
  const mlDsa = req.mlDsa ? mlDsaUsagesError(usages) : undefined;
  if (mlDsa) return mlDsa;
  if (!req.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  return undefined;
}

function kubeletClientError(req: RequestFacts, usages: string[]): string | undefined {
  if (!onlySystemNodes(req)) return 'subject organization is not system:nodes';
  if (req.dnsNames.length > 0) return 'DNS subjectAltNames are not allowed';
  if (req.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (req.ipAddresses.length > 0) return 'IP subjectAltNames are not allowed';
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!req.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  if (!sameSet(usages, KUBELET_CLIENT_USAGES) && !sameSet(usages, KUBELET_CLIENT_USAGES_NO_RSA)) return `usages did not match ${goList(KUBELET_CLIENT_USAGES)}`;
  return req.mlDsa ? mlDsaUsagesError(usages) : undefined;
}

function apiServerClientError(req: RequestFacts, usages: readonly string[], set: string[]): string | undefined {
  let clientAuth = false;
  for (const u of usages) {
    if (u === 'client auth') clientAuth = true;
    else if (u !== 'digital signature' && u !== 'key encipherment') return `invalid usage for client certificate: ${u}`;
  }
  if (!clientAuth) return 'missing required usage for client certificate: client auth';
  return req.mlDsa ? mlDsaUsagesError(set) : undefined;
}

/** ValidateMLDSAKeyUsages, wrapped as the signers wrap it; errors.Join puts one error a line. */
function mlDsaUsagesError(sortedUsages: string[]): string | undefined {
  const errs = sortedUsages.filter((u) => MLDSA_DISALLOWED.has(u)).map((u) => `usage ${u} cannot be used with an ML-DSA signed certificate request`);
  if (!sortedUsages.some((u) => MLDSA_AT_LEAST_ONE_OF.includes(u))) errs.push(`usages must contain at least one of ${goList(MLDSA_AT_LEAST_ONE_OF)}`);
  return errs.length > 0 ? `validating usages for ml-dsa key: ${errs.join('\n')}` : undefined;
}

function onlySystemNodes(req: RequestFacts): boolean {
  return req.organizations.length === 1 && req.organizations[0] === 'system:nodes';
}

function sameSet(sortedUnique: string[], wanted: string[]): boolean {
  return sortedUnique.length === wanted.length && wanted.every((w, i) => sortedUnique[i] === w);
}

/** Go's %v of a []string. */
function goList(values: readonly string[]): string {
  return `[${values.join(' ')}]`;
}

/** The shortest lifetime a request's expirationSeconds gets (twice the 5-minute backdate). */
const MIN_LIFETIME_MS = 10 * 60 * 1000;

/** How long a certificate lives: spec.expirationSeconds when shorter than the signer's duration, but at least 10 minutes. */
export function certificateLifetimeMs(signerDurationMs: number, expirationSeconds: number | undefined): number {
  if (expirationSeconds === undefined) return signerDurationMs;
  const requested = expirationSeconds * 1000;
  if (requested > signerDurationMs) return signerDurationMs;
  return Math.max(requested, MIN_LIFETIME_MS);
}

/** X.509 key usage bits (Go's x509.KeyUsage; RFC 5280's order). */
const KEY_USAGE_BITS: Readonly<Record<string, number>> = {
  signing: 1 << 0,
  'digital signature': 1 << 0,
  'content commitment': 1 << 1,
  'key encipherment': 1 << 2,
  'data encipherment': 1 << 3,
  'key agreement': 1 << 4,
  'cert sign': 1 << 5,
  'crl sign': 1 << 6,
  'encipher only': 1 << 7,
  'decipher only': 1 << 8,
};

/** Extended key usages in Go's x509.ExtKeyUsage order, which is the order they are written in. */
const EXT_KEY_USAGES: ReadonlyArray<readonly [usages: readonly string[], oid: string]> = [
  [['any'], '2.5.29.37.0'],
  [['server auth'], '1.3.6.1.5.5.7.3.1'],
  [['client auth'], '1.3.6.1.5.5.7.3.2'],
  [['code signing'], '1.3.6.1.5.5.7.3.3'],
  [['email protection', 's/mime'], '1.3.6.1.5.5.7.3.4'],
  [['ipsec end system'], '1.3.6.1.5.5.7.3.5'],
  [['ipsec tunnel'], '1.3.6.1.5.5.7.3.6'],
  [['ipsec user'], '1.3.6.1.5.5.7.3.7'],
  [['timestamping'], '1.3.6.1.5.5.7.3.8'],
  [['ocsp signing'], '1.3.6.1.5.5.7.3.9'],
  [['microsoft sgc'], '1.3.6.1.4.1.311.10.3.3'],
  [['netscape sgc'], '2.16.840.1.113730.4.1'],
];

export interface X509Usages {
  /** KeyUsage bits (0: no key usage extension). */
  keyUsage: number;
  /** Extended key usage OIDs, deduplicated, in Go's order. */
  extKeyUsages: string[];
}

/** keyUsagesFromStrings: throws kube's error when a usage is unknown. */
export function x509Usages(usages: readonly string[]): X509Usages {
  let keyUsage = 0;
  const ext = new Set<string>();
  const unrecognized: string[] = [];
  for (const u of usages) {
    const bit = KEY_USAGE_BITS[u];
    const eku = EXT_KEY_USAGES.find(([names]) => names.includes(u));
    if (bit !== undefined) keyUsage |= bit;
    else if (eku) ext.add(eku[1]);
    else unrecognized.push(u);
  }
  if (unrecognized.length > 0) throw new Error(`unrecognized usage values: [${unrecognized.map(strconvQuote).join(' ')}]`);
  return { keyUsage, extKeyUsages: EXT_KEY_USAGES.map(([, oid]) => oid).filter((oid) => ext.has(oid)) };
}
