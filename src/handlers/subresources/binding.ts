import type { AdmissionChain } from '../../admission/admission.js';
import { isPlainObject } from '../../codec/codec.js';
import { cloneObject, nowTimestamp, type KubeObject } from '../../machinery/object.js';
import type { ResourceStore } from '../../registry/resource-store.js';
import { readObjectBody } from '../../http/body.js';
import { badRequest, conflict, invalid, notFound, successStatus } from '../../machinery/errors.js';
import { writeEncoded } from '../../http/respond.js';
import { checkBodyObject, createOptions, parseWriteOptions } from '../create.js';
import type { ResourceScope } from '../scope.js';

/**
 * Binding a pod to a node (what a scheduler does): POST of a v1 Binding to
 * pods/<name>/binding or to the bindings resource. The pod gets spec.nodeName
 * and a PodScheduled=True condition; a pod already bound is a 409.
 * `copyLabels`: the PodTopologyLabelsAdmission feature gate.
 */
export async function handleBinding(scope: ResourceScope, pods: ResourceStore, admission: AdmissionChain, copyLabels = true): Promise<void> {
  const { ctx } = scope;
  const neg = scope.negotiate({ table: false });
  const opts = parseWriteOptions(scope, 'CreateOptions');
  const binding = checkBodyObject(scope, await readObjectBody(ctx, { apiVersion: 'v1', kind: 'Binding' }), 'Binding', '', 'v1');
  const podName = scope.subresource === 'binding' ? scope.name : (binding.metadata?.name ?? '');
  // kube's create handler runs mutating admission; BindingREST.Create checks and validates the
  // Binding, then runs createValidation, then assigns the pod.
  const admitted = { operation: 'CREATE' as const, name: podName, object: binding, options: createOptions(opts), dryRun: opts.dryRun };
  await scope.admitMutating(admission, admitted);
  if (scope.subresource === 'binding' && binding.metadata?.name && binding.metadata.name !== scope.name) {
    throw badRequest(`name in URL does not match name in Binding object`);
  }
  const target = isPlainObject(binding.target) ? (binding.target as { kind?: unknown; name?: unknown }) : {};
  const nodeName = typeof target.name === 'string' ? target.name : '';
  if (!podName || !nodeName) {
    throw invalid({ group: '', kind: 'Binding' }, podName, [
      ...(!podName ? [{ type: 'FieldValueRequired' as const, field: 'metadata.name' }] : []),
      ...(!nodeName ? [{ type: 'FieldValueRequired' as const, field: 'target.name' }] : []),
    ]);
  }
  if (target.kind !== undefined && target.kind !== '' && target.kind !== 'Node') {
    throw invalid({ group: '', kind: 'Binding' }, podName, [{ type: 'FieldValueNotSupported', field: 'target.kind', value: target.kind, supported: ['Node'] }]);
  }
  await scope.admitValidating(admission, admitted);
  await pods.update(scope.namespace, { name: podName, dryRun: opts.dryRun, subresource: 'internal' }, (current) => {
    if (!current) throw notFound({ group: '', resource: 'pods' }, podName);
    if (current.metadata?.deletionTimestamp) throw conflict({ group: '', resource: 'pods' }, podName, 'pod is being deleted, cannot be assigned to a host');
    const spec = (current.spec ?? {}) as { nodeName?: string };
    if (spec.nodeName) throw conflict({ group: '', resource: 'pods' }, podName, `pod ${podName} is already assigned to node "${spec.nodeName}"`);
    const next: KubeObject = cloneObject(current);
    next.spec = { ...spec, nodeName };
    // setPodNodeAndMetadata: the Binding's annotations go on the pod, and with PodTopologyLabelsAdmission its labels (that plugin puts the node's topology there).
    const meta = (next.metadata ??= {});
    const bindingAnnotations = stringEntries(binding.metadata?.annotations);
    const bindingLabels = copyLabels ? stringEntries(binding.metadata?.labels) : [];
    if (bindingAnnotations.length > 0) meta.annotations = { ...(meta.annotations ?? {}), ...Object.fromEntries(bindingAnnotations) };
    if (bindingLabels.length > 0) meta.labels = { ...(meta.labels ?? {}), ...Object.fromEntries(bindingLabels) };
    const status = { ...((next.status as Record<string, unknown> | undefined) ?? {}) };
    const conditions = (Array.isArray(status.conditions) ? status.conditions : []) as Array<Record<string, unknown>>;
    status.conditions = [...conditions.filter((c) => c.type !== 'PodScheduled'), { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: nowTimestamp() }];
    next.status = status;
    return next;
  });
  writeEncoded(ctx, 201, { ...successStatus(), code: 201 }, neg.encoding);
}

function stringEntries(map: unknown): Array<[string, string]> {
  return isPlainObject(map) ? Object.entries(map as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string') : [];
}
