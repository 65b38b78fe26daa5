import { resolve } from 'node:path';

import { CaLoader, type CaPem, type CaSource } from '../controllers/certificates/certificate-authority.js';
import { BUILT_IN_SIGNERS, KUBE_APISERVER_CLIENT, KUBE_APISERVER_CLIENT_KUBELET, KUBELET_SERVING, LEGACY_UNKNOWN } from '../controllers/certificates/signers.js';
import { FlagError, type FlagSpec, type ParsedFlags } from './flags.js';

/**
 * kube-controller-manager's CSR signing flags (cmd/kube-controller-manager/app/options/csrsigningcontroller.go),
 * with its help texts, default and checks. Without any of them Capstan signs
 * with its generated CA (README: Flags, "Security").
 */

export interface CsrSigningFiles {
  certFile: string;
  keyFile: string;
}

export interface CsrSigningConfig {
  /** --cluster-signing-cert-file / --cluster-signing-key-file, as given ('' when not). */
  cluster: CsrSigningFiles;
  /** The per-signer pairs given, by signerName (both files, or neither). */
  perSigner: ReadonlyMap<string, CsrSigningFiles>;
  /** --cluster-signing-duration in milliseconds. */
  durationMs: number;
}

/** Each signer's flag prefix and the name kube's Validate reports it under. */
const SIGNER_FLAGS: ReadonlyArray<{ signer: string; flag: string; reported: string }> = [
  { signer: KUBELET_SERVING, flag: 'cluster-signing-kubelet-serving', reported: 'cluster-signing-kubelet-serving' },
  { signer: KUBE_APISERVER_CLIENT_KUBELET, flag: 'cluster-signing-kubelet-client', reported: 'cluster-signing-kube-apiserver-client' },
  { signer: KUBE_APISERVER_CLIENT, flag: 'cluster-signing-kube-apiserver-client', reported: 'cluster-signing-kube-apiserver' },
  { signer: LEGACY_UNKNOWN, flag: 'cluster-signing-legacy-unknown', reported: 'cluster-signing-legacy-unknown' },
];

export const DEFAULT_CLUSTER_SIGNING_DURATION_MS = 8760 * 3600 * 1000;

export const CSR_SIGNING_FLAG_SPECS: FlagSpec[] = [
  { name: 'cluster-signing-cert-file', type: 'string', default: '', help: 'Filename containing a PEM-encoded X509 CA certificate used to issue cluster-scoped certificates.  If specified, no more specific --cluster-signing-* flag may be specified.' },
  { name: 'cluster-signing-key-file', type: 'string', default: '', help: 'Filename containing a PEM-encoded RSA or ECDSA private key used to sign cluster-scoped certificates.  If specified, no more specific --cluster-signing-* flag may be specified.' },
  ...SIGNER_FLAGS.flatMap(({ signer, flag }) => [
    { name: `${flag}-cert-file`, type: 'string' as const, default: '', help: `Filename containing a PEM-encoded X509 CA certificate used to issue certificates for the ${signer} signer.  If specified, --cluster-signing-{cert,key}-file must not be set.` },
    { name: `${flag}-key-file`, type: 'string' as const, default: '', help: `Filename containing a PEM-encoded RSA or ECDSA private key used to sign certificates for the ${signer} signer.  If specified, --cluster-signing-{cert,key}-file must not be set.` },
  ]),
  { name: 'cluster-signing-duration', type: 'duration', default: '8760h0m0s', help: 'The length of duration signed certificates will be given.' },
];

/** CSRSigningControllerOptions.Validate, then the files resolved against `cwd`; undefined when no such flag is given. */
export function csrSigningFromFlags(p: ParsedFlags, cwd: string): CsrSigningConfig | undefined {
  if (!CSR_SIGNING_FLAG_SPECS.some((f) => p.set.has(f.name))) return undefined;
  const str = (name: string): string => String(p.values.get(name) ?? '');
  const path = (name: string): string => (str(name) ? resolve(cwd, str(name)) : '');
  const errs: string[] = [];
  const perSigner = new Map<string, CsrSigningFiles>();
  for (const { signer, flag, reported } of SIGNER_FLAGS) {
    const certFile = path(`${flag}-cert-file`);
    const keyFile = path(`${flag}-key-file`);
    if (certFile === '' && keyFile !== '') errs.push(`"${reported}": cannot specify key without cert`);
    if (certFile !== '' && keyFile === '') errs.push(`"${reported}": cannot specify cert without key`);
    if (certFile !== '' || keyFile !== '') perSigner.set(signer, { certFile, keyFile });
  }
  const cluster = { certFile: path('cluster-signing-cert-file'), keyFile: path('cluster-signing-key-file') };
  if ((cluster.certFile !== '' || cluster.keyFile !== '') && perSigner.size > 0) errs.push('cannot specify --cluster-signing-{cert,key}-file and other --cluster-signing-*-file flags at the same time');
  // utilerrors.NewAggregate: one error as itself, several as [a, b].
  if (errs.length === 1) throw new FlagError(errs[0]!);
  if (errs.length > 1) throw new FlagError(`[${errs.join(', ')}]`);
  return { cluster, perSigner, durationMs: p.values.get('cluster-signing-duration') as number };
}

/**
 * The CA of each built-in signer (startCertificateSigningRequestSigningController):
 * the per-signer flags' files when any is given (signers without one are
 * not served), else --cluster-signing-{cert,key}-file for all four, else
 * `generated` (the server's own CA, when client certificates it signs are
 * accepted). Files are read now, so that a bad one stops the start as it
 * stops kube-controller-manager.
 */
export async function csrSigners(cfg: CsrSigningConfig | undefined, generated: { pem: CaPem; name: string } | undefined, log: (message: string) => void): Promise<Map<string, CaSource>> {
  const signers = new Map<string, CaSource>();
  if (cfg && cfg.perSigner.size > 0) {
    for (const signer of BUILT_IN_SIGNERS) {
      const files = cfg.perSigner.get(signer);
      if (files) signers.set(signer, files);
      else log(`Skipping CSR signer controller because specific files were specified for other signers and not this one (${signer})`);
    }
  } else if (cfg && (cfg.cluster.certFile !== '' || cfg.cluster.keyFile !== '')) {
    if (cfg.cluster.certFile === '' || cfg.cluster.keyFile === '') {
      log('Skipping CSR signer controller because no csr cert/key was specified');
      return signers;
    }
    for (const signer of BUILT_IN_SIGNERS) signers.set(signer, cfg.cluster);
  } else {
    if (!generated) log('Skipping CSR signer controller because no csr cert/key was specified (and --client-ca-file is not the generated CA)');
    else for (const signer of BUILT_IN_SIGNERS) signers.set(signer, generated);
    return signers;
  }
  for (const [signer, source] of signers) {
    try {
      await new CaLoader(source).load();
    } catch (err) {
      throw new Error(`failed to start ${signer} certificate controller: ${(err as Error).message}`);
    }
  }
  return signers;
}

