import { cloneObject, nowTimestamp, type KubeObject } from '../machinery/object.js';

/**
 * kube's CertificateSigningRequest strategies for its subresources
 * (registry/certificates/certificates/strategy.go): what a write through
 * /approval and through /status may change, and the condition timestamps
 * the server fills in.
 */

type Condition = Record<string, unknown>;

/**
 * A write through certificatesigningrequests/approval (csrApprovalStrategy):
 * metadata from the request, spec and the rest of status as stored, the
 * request's conditions with their timestamps filled in.
 */
export function approvalUpdate(desired: KubeObject, current: KubeObject, now: string = nowTimestamp()): KubeObject {
  const next = cloneObject(desired);
  if (current.spec === undefined) delete next.spec;
  else next.spec = cloneObject(current.spec);
  const conditions = withTimestamps(conditionsOf(desired).map((c) => cloneObject(c)), conditionsOf(current), now);
  const status: Record<string, unknown> = cloneObject(statusOf(current));
  if (conditions.length > 0) status.conditions = conditions;
  else delete status.conditions;
  if (Object.keys(status).length > 0) next.status = status;
  else delete next.status;
  return next;
}

/**
 * csrStatusStrategy.PrepareForUpdate, in place on the object a /status write
 * stores (spec already as stored): the Approved and Denied conditions stay as
 * stored where the write kept their number (a change of that number is left
 * for validation to refuse), and condition timestamps are filled in.
 */
export function prepareStatusUpdate(next: KubeObject, current: KubeObject, now: string = nowTimestamp()): void {
  const conditions = conditionsOf(next).map((c) => cloneObject(c));
  const stored = conditionsOf(current);
  for (const type of ['Approved', 'Denied']) {
    const oldIndices = indicesOf(stored, type);
    const newIndices = indicesOf(conditions, type);
    if (oldIndices.length !== newIndices.length) continue;
    oldIndices.forEach((oldIndex, i) => {
      conditions[newIndices[i]!] = cloneObject(stored[oldIndex]!);
    });
  }
  if (conditions.length === 0) return;
  (next.status as Record<string, unknown>).conditions = withTimestamps(conditions, stored, now);
}

/** populateConditionTimestamps: lastUpdateTime now where unset; lastTransitionTime kept from a stored condition of the same type and status, else now. */
function withTimestamps(conditions: Condition[], stored: Condition[], now: string): Condition[] {
  for (const c of conditions) {
    if (!c.lastUpdateTime) c.lastUpdateTime = now;
    if (!c.lastTransitionTime) {
      const same = stored.find((o) => o.type === c.type && o.status === c.status && o.lastTransitionTime);
      c.lastTransitionTime = same?.lastTransitionTime ?? now;
    }
  }
  return conditions;
}

function indicesOf(conditions: Condition[], type: string): number[] {
  return conditions.flatMap((c, i) => (c.type === type ? [i] : []));
}

function statusOf(obj: KubeObject): Record<string, unknown> {
  const s = obj.status;
  return s && typeof s === 'object' && !Array.isArray(s) ? (s as Record<string, unknown>) : {};
}

function conditionsOf(obj: KubeObject): Condition[] {
  const c = statusOf(obj).conditions;
  return Array.isArray(c) ? c.filter((x): x is Condition => !!x && typeof x === 'object' && !Array.isArray(x)) : [];
}
