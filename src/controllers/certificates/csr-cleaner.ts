import { X509Certificate } from 'node:crypto';

import type { ApiClient } from '../../machinery/client.js';
import { isApiError } from '../../machinery/errors.js';
import { firstPemBlock } from '../../machinery/pem.js';
import type { KubeObject } from '../../machinery/object.js';
import { Informer, WorkQueue, type ResourceFollower } from '../../registry/informer.js';
import type { ResourceStore } from '../../registry/resource-store.js';
import { followerFactory, type Controller, type ControllerShared } from '../controller.js';
import { CSR_CLEANER } from '../controller-names.js';
import { csrConditions, issuedCertificate } from './csr-status.js';

/**
 * kube-controller-manager's certificatesigningrequest-cleaner-controller
 * (pkg/controller/certificates/cleaner): a CSR is deleted once it is
 * approved and issued for more than an hour, denied or failed for more than
 * an hour (from the condition's lastUpdateTime), pending (no condition at
 * all) for more than a day since its creation, or issued with a certificate
 * past its notAfter. kube sweeps every CSR once an hour; here each CSR is
 * looked at again when its earliest deadline passes, so it goes at the
 * deadline rather than up to an hour later.
 */

const HOUR_MS = 3600 * 1000;
const APPROVED_EXPIRATION_MS = HOUR_MS;
const DENIED_EXPIRATION_MS = HOUR_MS;
const PENDING_EXPIRATION_MS = 24 * HOUR_MS;
/** setTimeout's longest delay; a later deadline is looked at again then. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/** Why and when a CSR is to be deleted: it is deleted once the clock is past `at`. */
export interface CleanupDeadline {
  at: number;
  reason: string;
}

/** The earliest of the cleaner's deadlines for `csr`, or undefined when none applies (yet). */
export function cleanupDeadline(csr: KubeObject): CleanupDeadline | undefined {
  const conditions = csrConditions(csr);
  const certificate = issuedCertificate(csr);
  const deadlines: CleanupDeadline[] = [];
  for (const c of conditions) {
    const updated = goTime(c.lastUpdateTime);
    if (c.type === 'Approved' && certificate && updated !== undefined) deadlines.push({ at: updated + APPROVED_EXPIRATION_MS, reason: 'it is more than approvedExpiration duration old and approved' });
    if (c.type === 'Denied' && updated !== undefined) deadlines.push({ at: updated + DENIED_EXPIRATION_MS, reason: 'it is more than deniedExpiration duration old and denied' });
    if (c.type === 'Failed' && updated !== undefined) deadlines.push({ at: updated + DENIED_EXPIRATION_MS, reason: 'it is more than deniedExpiration duration old and failed' });
  }
  const created = goTime(csr.metadata?.creationTimestamp ?? undefined);
  if (conditions.length === 0 && created !== undefined) deadlines.push({ at: created + PENDING_EXPIRATION_MS, reason: 'it is more than pendingExpiration duration old and unhandled' });
  const notAfter = certificate && conditions.some((c) => c.type === 'Approved') ? certificateNotAfter(certificate) : undefined;
  if (notAfter !== undefined) deadlines.push({ at: notAfter, reason: 'the associated certificate is expired' });
  return deadlines.reduce<CleanupDeadline | undefined>((earliest, d) => (!earliest || d.at < earliest.at ? d : earliest), undefined);
}

/** A timestamp's milliseconds; undefined for a missing or zero (0001-01-01) time. */
function goTime(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) || text.startsWith('0001-01-01') ? undefined : ms;
}

/** isExpired's view: the first PEM block as certificates, the first one's notAfter; unreadable: never expires. */
function certificateNotAfter(pem: Buffer): number | undefined {
  const block = firstPemBlock(pem.toString('latin1'));
  if (!block) return undefined;
  try {
    const ms = Date.parse(new X509Certificate(block.bytes).validTo);
    return Number.isNaN(ms) ? undefined : ms;
  } catch {
    return undefined;
  }
}

export class CsrCleaner implements Controller {
  readonly name = CSR_CLEANER;
  private readonly csrs: ResourceFollower;
  private readonly queue: WorkQueue;

  constructor(
    csrs: ResourceStore,
    private readonly client: ApiClient,
    shared: ControllerShared = {},
    private readonly log: (message: string) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.queue = new WorkQueue((key) => this.sync(key), { name: 'certificatesigningrequest_cleaner', ...(shared.metrics ? { metrics: shared.metrics } : {}) });
    this.csrs = followerFactory(shared)(csrs, (type, csr) => {
      if (type !== 'DELETED') this.queue.add(Informer.keyOf(csr));
    });
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
    if (!csr) return;
    const deadline = cleanupDeadline(csr);
    if (!deadline) return;
    const now = this.now();
    if (now <= deadline.at) {
      this.queue.addAfter(key, Math.min(deadline.at - now + 1, MAX_DELAY_MS));
      return;
    }
    const m = csr.metadata!;
    this.log(`Cleaning CSR ${JSON.stringify(m.name)} as ${deadline.reason}.`);
    try {
      await this.client.delete({ group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', name: m.name! }, m.uid ? { preconditions: { uid: m.uid } } : {});
    } catch (err) {
      // Gone already, or replaced by a new CSR of the same name (the uid precondition failed).
      if (isApiError(err, 'NotFound') || isApiError(err, 'Conflict')) return;
      throw new Error(`unable to delete CSR ${JSON.stringify(m.name)}: ${(err as Error).message}`);
    }
  }
}
