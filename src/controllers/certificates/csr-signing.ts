import type { ApiClient, ObjectRef } from '../../machinery/client.js';
import { strconvQuote } from '../../machinery/go-compat.js';
import { cloneObject, nowTimestamp, type KubeObject } from '../../machinery/object.js';
import { Informer, WorkQueue, type ResourceFollower } from '../../registry/informer.js';
import type { ResourceStore } from '../../registry/resource-store.js';
import { followerFactory, type Controller, type ControllerShared } from '../controller.js';
import { CSR_SIGNING } from '../controller-names.js';
import { CaLoader, type CaSource } from './certificate-authority.js';
import { parseCertificateRequest, type CertificateRequest } from './certificate-request.js';
import { csrConditions, hasTrueCondition, isApproved, issuedCertificate } from './csr-status.js';
import { certificateLifetimeMs, signerValidationError } from './signers.js';

/**
 * kube-controller-manager's certificatesigningrequest-signing-controller
 * (pkg/controller/certificates/signer): an approved CSR for one of the
 * built-in signers that has no certificate yet is checked against the
 * signer's rules, then signed with the signer's CA and the certificate
 * written to status.certificate through /status; a request the signer's
 * rules refuse gets a Failed condition (reason SignerValidationFailure)
 * instead. kube runs one loop per signer; here one queue serves them all.
 */

export interface CsrSigningOptions {
  /** signerName → its CA; requests for other signers are left to whoever serves them. */
  signers: ReadonlyMap<string, CaSource>;
  /** --cluster-signing-duration: the longest lifetime a certificate gets. */
  durationMs: number;
  /** Told of each failed sync, as kube's utilruntime.HandleError. */
  log?: (message: string) => void;
}

const CSRS = { group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests' } as const;

/** The certificate controller's per-item backoff (200 ms doubling up to 1000 s). */
const BACKOFF = { baseMs: 200, maxMs: 1000 * 1000 };

export class CsrSigning implements Controller {
  readonly name = CSR_SIGNING;
  private readonly csrs: ResourceFollower;
  private readonly queue: WorkQueue;
  private readonly cas: ReadonlyMap<string, CaLoader>;

  constructor(
    csrs: ResourceStore,
    private readonly client: ApiClient,
    private readonly opts: CsrSigningOptions,
    shared: ControllerShared = {},
  ) {
    this.cas = new Map([...opts.signers].map(([signer, source]) => [signer, new CaLoader(source)]));
    const log = opts.log;
    this.queue = new WorkQueue((key) => this.sync(key), {
      name: 'certificate',
      workers: 5,
      backoff: BACKOFF,
      ...(shared.metrics ? { metrics: shared.metrics } : {}),
      ...(log ? { onError: (key: string, err: unknown) => log(`Sync ${key} failed with : ${(err as Error).message}`) } : {}),
    });
    this.csrs = followerFactory(shared)(csrs, (_type, csr) => this.queue.add(Informer.keyOf(csr)));
  }

  async start(): Promise<void> {
    await this.csrs.start();
  }

  stop(): void {
    this.csrs.stop();
    this.queue.stop();
  }

  private async sync(key: string): Promise<void> {
    const csr = this.csrs.get(key);
    if (!csr || issuedCertificate(csr)) return;
    if (!isApproved(csr) || hasTrueCondition(csr, 'Failed')) return;
    const spec = (csr.spec ?? {}) as { signerName?: string; request?: string; usages?: string[]; expirationSeconds?: number };
    const ca = this.cas.get(spec.signerName ?? '');
    if (!ca) return;
    const name = csr.metadata?.name ?? '';
    const usages = spec.usages ?? [];
    let request: CertificateRequest;
    try {
      request = await parseCertificateRequest(Buffer.from(spec.request ?? '', 'base64'));
    } catch (err) {
      throw new Error(`unable to parse csr ${strconvQuote(name)}: ${(err as Error).message}`);
    }
    const refusal = signerValidationError(spec.signerName!, request.facts, usages);
    if (refusal !== undefined) {
      const failed = { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: refusal, lastUpdateTime: nowTimestamp() };
      await this.writeStatus(csr, { conditions: [...csrConditions(csr), failed] }, 'error adding failure condition for csr');
      return;
    }
    let pem: string;
    try {
      pem = await (await ca.load()).sign(request, usages, certificateLifetimeMs(this.opts.durationMs, spec.expirationSeconds));
    } catch (err) {
      throw new Error(`error auto signing csr: ${(err as Error).message}`);
    }
    await this.writeStatus(csr, { certificate: Buffer.from(pem).toString('base64') }, 'error updating signature for csr');
  }

  /** UpdateStatus of the informer's copy with `change`; a stale copy is a Conflict, retried from the next sync. */
  private async writeStatus(csr: KubeObject, change: Record<string, unknown>, context: string): Promise<void> {
    const next = cloneObject(csr);
    next.status = { ...((next.status as Record<string, unknown> | undefined) ?? {}), ...change };
    const ref: ObjectRef = { ...CSRS, name: csr.metadata?.name ?? '', subresource: 'status' };
    try {
      await this.client.update(ref, next);
    } catch (err) {
      throw new Error(`${context}: ${(err as Error).message}`);
    }
  }
}
