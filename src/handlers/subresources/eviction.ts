import type { AdmissionChain } from '../../admission/admission.js';
import { isPlainObject } from '../../codec/codec.js';
import { cloneObject, nowTimestamp, type KubeObject } from '../../machinery/object.js';
import type { ResourceStore } from '../../registry/resource-store.js';
import { readObjectBody } from '../../http/body.js';
import { ApiError, badRequest, internalError, successStatus } from '../../machinery/errors.js';
import { writeEncoded } from '../../http/respond.js';
import { checkBodyObject, createOptions, parseWriteOptions } from '../create.js';
import type { ResourceScope } from '../scope.js';
import { labelSelectorMatches } from '../../machinery/selectors.js';

/**
 * pods/<name>/eviction (policy/v1 Eviction): a delete that respects
 * PodDisruptionBudgets, as kube-apiserver's eviction REST does: pods that
 * cannot count against a budget (finished, pending, terminating) go at once;
 * otherwise the one matching budget must allow a disruption, which is taken
 * from its status before the pod is deleted; none → 429.
 */

const VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";

function tooManyRequests(cause: string): ApiError {
  return new ApiError({
    message: VIOLATION,
    reason: 'TooManyRequests',
    details: { causes: [{ reason: 'DisruptionBudget', message: cause }] },
    code: 429,
  });
}

export interface EvictionStores {
  pods: ResourceStore;
  podDisruptionBudgets: ResourceStore;
}

export async function handleEviction(scope: ResourceScope, stores: EvictionStores, admission: AdmissionChain): Promise<void> {
  const { ctx } = scope;
  const neg = scope.negotiate({ table: false });
  const opts = parseWriteOptions(scope, 'CreateOptions');
  const eviction = checkBodyObject(scope, await readObjectBody(ctx, { apiVersion: 'policy/v1', kind: 'Eviction' }), 'Eviction', 'policy', 'v1');
  // kube's create handler runs mutating admission; EvictionREST.Create checks the name, then createValidation.
  const admitted = { operation: 'CREATE' as const, subresource: 'eviction', object: eviction, options: createOptions(opts), dryRun: opts.dryRun };
  await scope.admitMutating(admission, admitted);
  if (eviction.metadata?.name && eviction.metadata.name !== scope.name) throw badRequest('name in URL does not match name in Eviction object');
  await scope.admitValidating(admission, admitted);
  const pod = await stores.pods.get(scope.namespace, scope.name);

  if (!canIgnoreBudget(pod)) {
    const budgets = (await stores.podDisruptionBudgets.list({ namespace: scope.namespace, readAt: { kind: 'consistent' } })).items
      .map((c) => c.object)
      .filter((pdb) => labelSelectorMatches((pdb.spec as { selector?: unknown } | undefined)?.selector, pod.metadata?.labels));
    if (budgets.length > 1) throw internalError('This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
    if (budgets.length === 1) await takeDisruption(stores.podDisruptionBudgets, budgets[0]!, scope.name, !!opts.dryRun);
  }

  const deleteOptions = isPlainObject(eviction.deleteOptions) ? (eviction.deleteOptions as Record<string, unknown>) : {};
  const pre = isPlainObject(deleteOptions.preconditions) ? (deleteOptions.preconditions as { uid?: string; resourceVersion?: string }) : undefined;
  await stores.pods.delete(scope.namespace, scope.name, {
    dryRun: opts.dryRun,
    ...(typeof deleteOptions.gracePeriodSeconds === 'number' ? { gracePeriodSeconds: deleteOptions.gracePeriodSeconds } : {}),
    ...(pre ? { preconditions: pre } : {}),
  });
  writeEncoded(ctx, 201, { ...successStatus(), code: 201 }, neg.encoding);
}

/** Pods that cannot hurt availability (finished, pending, already terminating) ignore budgets. */
function canIgnoreBudget(pod: KubeObject): boolean {
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || phase === undefined || !!pod.metadata?.deletionTimestamp;
}

/** Takes one allowed disruption from the budget's status (what the disruption controller handed out). */
async function takeDisruption(pdbs: ResourceStore, pdb: KubeObject, podName: string, dryRun: boolean): Promise<void> {
  const name = pdb.metadata!.name!;
  const namespace = pdb.metadata!.namespace!;
  await pdbs.update(namespace, { name, dryRun, subresource: 'status' }, (current) => {
    if (!current) throw tooManyRequests(`The disruption budget ${name} is still being processed by the server.`);
    const status = (current.status ?? {}) as Record<string, unknown>;
    const observed = typeof status.observedGeneration === 'number' ? status.observedGeneration : 0;
    if (observed < (current.metadata?.generation ?? 0)) throw tooManyRequests(`The disruption budget ${name} is still being processed by the server.`);
    const allowed = typeof status.disruptionsAllowed === 'number' ? status.disruptionsAllowed : 0;
    if (allowed <= 0) {
      throw tooManyRequests(`The disruption budget ${name} needs ${num(status.desiredHealthy)} healthy pods and has ${num(status.currentHealthy)} currently`);
    }
    const next = cloneObject(current);
    next.status = {
      ...status,
      disruptionsAllowed: allowed - 1,
      disruptedPods: { ...((status.disruptedPods as Record<string, string> | undefined) ?? {}), [podName]: nowTimestamp() },
    };
    return next;
  });
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}
