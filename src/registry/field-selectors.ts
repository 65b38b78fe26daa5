import { badRequest } from '../machinery/errors.js';
import { valueAt, type KubeObject } from '../machinery/object.js';
import type { FieldSelector } from '../machinery/selectors.js';

/**
 * The field labels each resource supports in field selectors and how they
 * are read from an object (kube's GetAttrs and field label conversions).
 */

/** Field values a resource exposes to field selectors, keyed by field label. */
export type FieldExtractor = (obj: KubeObject) => Record<string, string>;

function str(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : String(v);
}

const at = valueAt;

/**
 * Field labels beyond metadata.name/namespace that kube-apiserver supports,
 * per `group/resource` (its GetAttrs and field label conversion functions).
 */
const EXTRA_FIELDS: Record<string, Record<string, (o: KubeObject) => string>> = {
  '/pods': {
    'spec.nodeName': (o) => str(at(o, 'spec', 'nodeName')),
    'spec.restartPolicy': (o) => str(at(o, 'spec', 'restartPolicy')),
    'spec.schedulerName': (o) => str(at(o, 'spec', 'schedulerName')),
    'spec.serviceAccountName': (o) => str(at(o, 'spec', 'serviceAccountName')),
    'spec.hostNetwork': (o) => String(at(o, 'spec', 'hostNetwork') === true),
    'status.phase': (o) => str(at(o, 'status', 'phase')),
    'status.podIP': (o) => str(at(o, 'status', 'podIP')),
    'status.nominatedNodeName': (o) => str(at(o, 'status', 'nominatedNodeName')),
  },
  '/events': {
    'involvedObject.kind': (o) => str(at(o, 'involvedObject', 'kind')),
    'involvedObject.namespace': (o) => str(at(o, 'involvedObject', 'namespace')),
    'involvedObject.name': (o) => str(at(o, 'involvedObject', 'name')),
    'involvedObject.uid': (o) => str(at(o, 'involvedObject', 'uid')),
    'involvedObject.apiVersion': (o) => str(at(o, 'involvedObject', 'apiVersion')),
    'involvedObject.resourceVersion': (o) => str(at(o, 'involvedObject', 'resourceVersion')),
    'involvedObject.fieldPath': (o) => str(at(o, 'involvedObject', 'fieldPath')),
    reason: (o) => str(at(o, 'reason')),
    reportingComponent: (o) => str(at(o, 'reportingComponent')),
    source: (o) => str(at(o, 'source', 'component')),
    type: (o) => str(at(o, 'type')),
  },
  '/secrets': { type: (o) => str(at(o, 'type')) },
  '/services': {
    'spec.clusterIP': (o) => str(at(o, 'spec', 'clusterIP')),
    'spec.type': (o) => str(at(o, 'spec', 'type')),
  },
  '/namespaces': { 'status.phase': (o) => str(at(o, 'status', 'phase')) },
  '/nodes': { 'spec.unschedulable': (o) => String(at(o, 'spec', 'unschedulable') === true) },
  '/replicationcontrollers': { 'status.replicas': (o) => str(at(o, 'status', 'replicas') ?? 0) },
  'apps/replicasets': { 'status.replicas': (o) => str(at(o, 'status', 'replicas') ?? 0) },
  'batch/jobs': { 'status.successful': (o) => str(at(o, 'status', 'succeeded') ?? 0) },
  'certificates.k8s.io/certificatesigningrequests': { 'spec.signerName': (o) => str(at(o, 'spec', 'signerName')) },
  // resource.k8s.io's ResourceSliceSelectorNodeName / ResourceSliceSelectorDriver (kubelets list their own slices with them).
  'resource.k8s.io/resourceslices': {
    'spec.nodeName': (o) => str(at(o, 'spec', 'nodeName')),
    'spec.driver': (o) => str(at(o, 'spec', 'driver')),
  },
};

/** Kinds whose field label conversion does not accept metadata.namespace (Node, Namespace). */
const NO_NAMESPACE_LABEL = new Set(['/nodes', '/namespaces']);

export interface FieldSupport {
  fields: string[];
  extract: FieldExtractor;
  /** The type has its own field label conversion (kube's wording for unknown labels differs). */
  custom: boolean;
}

export function fieldExtractorFor(group: string, resource: string, namespaced: boolean): FieldSupport {
  const custom = `${group}/${resource}` in EXTRA_FIELDS;
  const extra = EXTRA_FIELDS[`${group}/${resource}`] ?? {};
  const base = NO_NAMESPACE_LABEL.has(`${group}/${resource}`) ? ['metadata.name'] : ['metadata.name', 'metadata.namespace'];
  const fields = [...base, ...Object.keys(extra)];
  return {
    fields,
    custom,
    extract(obj) {
      const out: Record<string, string> = {
        'metadata.name': str(obj.metadata?.name),
        'metadata.namespace': namespaced ? str(obj.metadata?.namespace) : '',
      };
      for (const [k, f] of Object.entries(extra)) out[k] = f(obj);
      return out;
    },
  };
}

/**
 * 400 for field labels the resource does not support, in kube-apiserver's
 * words: its own conversion function's for types that have one, else
 * DefaultMetaV1FieldSelectorConversion's.
 */
export function checkFieldSelectorSupported(sel: FieldSelector, support: Pick<FieldSupport, 'fields' | 'custom'>): void {
  for (const r of sel.requirements) {
    if (support.fields.includes(r.field)) continue;
    if (support.custom) throw badRequest(`field label not supported: ${r.field}`);
    throw badRequest(`"${r.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
  }
}


/**
 * A custom resource's field labels: metadata.name, metadata.namespace (when namespaced) and its
 * selectableFields (".spec.color" is label "spec.color"), values as strings
 * (booleans and integers printed); kube answers others with its custom
 * conversion's "field label not supported".
 */
export function customFieldSupport(namespaced: boolean, selectableFields: readonly string[]): FieldSupport {
  const labels = selectableFields.map((p) => p.replace(/^\./, ''));
  return {
    // kube's crConverter: metadata.namespace only for namespaced resources.
    fields: ['metadata.name', ...(namespaced ? ['metadata.namespace'] : []), ...labels],
    custom: true,
    extract(obj) {
      const out: Record<string, string> = {
        'metadata.name': str(obj.metadata?.name),
        'metadata.namespace': namespaced ? str(obj.metadata?.namespace) : '',
      };
      for (const label of labels) {
        const v = at(obj, ...label.split('.'));
        out[label] = typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
      }
      return out;
    },
  };
}
