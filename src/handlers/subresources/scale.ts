import type { AdmissionChain } from '../../admission/admission.js';
import { isPlainObject } from '../../codec/codec.js';
import { getReadAt } from '../../cache/read-semantics.js';
import { cloneObject, type KubeObject } from '../../machinery/object.js';
import { labelSelectorString } from '../../registry/tables/format.js';
import { readObjectBody } from '../../http/body.js';
import { badRequest, conflict, invalid, notFound } from '../../machinery/errors.js';
import { writeEncoded } from '../../http/respond.js';
import { checkBodyObject, createOptions, parseWriteOptions } from '../create.js';
import { readPatch } from '../patch.js';
import type { ResourceScope } from '../scope.js';
import type { ScaleView } from '../../registry/descriptor.js';

/**
 * The scale subresource (autoscaling/v1 Scale) of deployments, replicasets,
 * statefulsets and replicationcontrollers: a view of spec.replicas and
 * status.replicas (+ the selector as a string, for HPAs); writes change only
 * the parent's spec.replicas. `kubectl scale` patches it.
 */

const SCALE_DEFINITION = 'io.k8s.api.autoscaling.v1.Scale';

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

/** The built-in workloads' Scale view: spec.replicas, status.replicas and the selector (descriptors with another view say so). */
const WORKLOAD_SCALE: ScaleView = {
  scaleOf,
  withReplicas(parent, replicas) {
    const next = cloneObject(parent);
    next.spec = { ...((next.spec as object | undefined) ?? {}), replicas };
    return next;
  },
};

/** The Scale view of a parent object (served version). */
export function scaleOf(parent: KubeObject): KubeObject {
  const meta = parent.metadata ?? {};
  const spec = (parent.spec ?? {}) as Record<string, unknown>;
  const status = (parent.status ?? {}) as Record<string, unknown>;
  // ReplicationControllers select with a plain map; the apps kinds with a LabelSelector.
  const rawSelector = spec.selector;
  const selector = parent.kind === 'ReplicationController' ? labelSelectorString({ matchLabels: rawSelector }) : labelSelectorString(rawSelector);
  const scaleStatus: Record<string, unknown> = { replicas: num(status.replicas) };
  if (selector) scaleStatus.selector = selector;
  const scaleMeta: Record<string, unknown> = { name: meta.name, namespace: meta.namespace, uid: meta.uid, resourceVersion: meta.resourceVersion, creationTimestamp: meta.creationTimestamp };
  return { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: scaleMeta, spec: { replicas: num(spec.replicas) }, status: scaleStatus };
}

export async function handleScale(scope: ResourceScope, admission: AdmissionChain): Promise<void> {
  const { ctx, info } = scope;
  const view = scope.descriptor.scale ?? WORKLOAD_SCALE;
  const scaleOf = (parent: KubeObject): KubeObject => view.scaleOf(parent);
  const neg = scope.negotiate({ table: false });
  const ns = info.namespaced ? scope.namespace : undefined;
  if (ctx.method === 'GET' || ctx.method === 'HEAD') {
    const parent = await scope.store.get(ns, scope.name, getReadAt(ctx.query.get('resourceVersion') ?? undefined));
    writeEncoded(ctx, 200, scaleOf(await scope.servedOne(parent)), neg.encoding, neg.contentType);
    return;
  }
  const optionsKind = ctx.method === 'PUT' ? 'UpdateOptions' : 'PatchOptions';
  const opts = parseWriteOptions(scope, optionsKind);
  const admitted = { operation: 'UPDATE' as const, subresource: 'scale', options: createOptions(opts, optionsKind), dryRun: opts.dryRun };
  // The desired Scale: the body (PUT), or the patch applied to the current Scale (PATCH).
  let desiredScale: (current: KubeObject) => KubeObject;
  if (ctx.method === 'PUT') {
    const body = checkBodyObject(scope, await readObjectBody(ctx, { apiVersion: 'autoscaling/v1', kind: 'Scale' }), 'Scale', 'autoscaling', 'v1');
    if (body.metadata?.name !== scope.name) {
      throw badRequest(`the name of the object (${body.metadata?.name ?? ''}) does not match the name on the URL (${scope.name})`);
    }
    desiredScale = () => cloneObject(body);
  } else {
    const patch = await readPatch(scope, SCALE_DEFINITION);
    desiredScale = (current) => patch(cloneObject(scaleOf(current)));
  }
  // Both admission phases see Scale objects, as in kube: the mutating phase the
  // requested Scale before it is applied, the validating phase the Scales of
  // the parent as it will be stored and as it was (ScaleREST's validations).
  const validate = async (obj: KubeObject, old: KubeObject | undefined): Promise<void> =>
    scope.admitValidating(admission, { ...admitted, object: scaleOf(await scope.servedOne(obj)), ...(old ? { oldObject: scaleOf(await scope.servedOne(old)) } : {}) });
  const result = await scope.store.update(ns, { name: scope.name, dryRun: opts.dryRun, validate }, async (current) => {
    if (!current) throw notFound(scope.groupResource, scope.name);
    const served = await scope.servedOne(current);
    const oldScale = scaleOf(served);
    const scale = desiredScale(served);
    await scope.admitMutating(admission, { ...admitted, object: scale, oldObject: oldScale });
    const replicas = isPlainObject(scale.spec) ? (scale.spec as { replicas?: unknown }).replicas : undefined;
    if (replicas !== undefined && (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0)) {
      throw invalid({ group: 'autoscaling', kind: 'Scale' }, scope.name, [
        { type: 'FieldValueInvalid', field: 'spec.replicas', value: replicas, detail: 'must be greater than or equal to 0' },
      ]);
    }
    const rv = scale.metadata?.resourceVersion;
    if (rv && rv !== served.metadata?.resourceVersion) throw conflict(scope.groupResource, scope.name);
    return scope.storageOf(view.withReplicas(served, replicas ?? 0));
  });
  writeEncoded(ctx, 200, scaleOf(await scope.servedOne(result.object)), neg.encoding, neg.contentType);
}
