import { cloneObject, nowTimestamp, type KubeObject } from '../machinery/object.js';

/**
 * A write through certificatesigningrequests/approval (kube's
 * csrApprovalStrategy): metadata from the request, spec and the rest of
 * status as stored, the request's conditions with their timestamps filled
 * in (lastUpdateTime now where unset; lastTransitionTime kept from a stored
 * condition of the same type and status, else now).
 */
export function approvalUpdate(desired: KubeObject, current: KubeObject, now: string = nowTimestamp()): KubeObject {
  const next = cloneObject(desired);
  if (current.spec === undefined) delete next.spec;
  else next.spec = cloneObject(current.spec);
  const stored = conditionsOf(current);
  const conditions = conditionsOf(desired).map((c) => {
    const out = cloneObject(c);
    if (!out.lastUpdateTime) out.lastUpdateTime = now;
    if (!out.lastTransitionTime) {
      const same = stored.find((o) => o.type === out.type && o.status === out.status && o.lastTransitionTime);
      out.lastTransitionTime = same?.lastTransitionTime ?? now;
    }
    return out;
  });
  const status: Record<string, unknown> = cloneObject(statusOf(current));
  if (conditions.length > 0) status.conditions = conditions;
  else delete status.conditions;
  if (Object.keys(status).length > 0) next.status = status;
  else delete next.status;
  return next;
}

function statusOf(obj: KubeObject): Record<string, unknown> {
  const s = obj.status;
  return s && typeof s === 'object' && !Array.isArray(s) ? (s as Record<string, unknown>) : {};
}

function conditionsOf(obj: KubeObject): Array<Record<string, unknown>> {
  const c = statusOf(obj).conditions;
  return Array.isArray(c) ? c.filter((x): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x)) : [];
}
