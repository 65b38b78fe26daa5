import { compareQuantities, type Quantity } from '../../api/quantity.js';
import { quantityFromJson } from '../../api/quantity.js';
import type { KubeObject } from '../../machinery/object.js';
import { objectCountName, type QuotaEvaluator } from './evaluator.js';
import { count, type ResourceList } from './resources.js';
import { requirementMatchesValues, type ScopeRequirement } from './scopes.js';

/** pkg/quota/v1/evaluator/core/persistent_volume_claims.go. */
const PVC_COUNT = objectCountName('', 'persistentvolumeclaims');
const PVC_RESOURCES = ['persistentvolumeclaims', 'requests.storage'];
/** `<class>.storageclass.storage.k8s.io/<resource>`. */
const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/';

interface PvcShape {
  metadata?: { annotations?: Record<string, string> };
  spec?: { storageClassName?: string; volumeAttributesClassName?: string; resources?: { requests?: Record<string, unknown> } };
  status?: {
    allocatedResources?: Record<string, unknown>;
    currentVolumeAttributesClassName?: string;
    modifyVolumeStatus?: { targetVolumeAttributesClassName?: string };
  };
}

/** storagehelpers.GetPersistentVolumeClaimClass: the beta annotation first, then spec.storageClassName. */
function storageClassOf(pvc: PvcShape): string {
  const annotated = pvc.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'];
  if (annotated !== undefined) return annotated;
  return pvc.spec?.storageClassName ?? '';
}

/** Quantity.RoundUp(0): storage is counted in whole bytes. */
function roundUpToWhole(q: Quantity): Quantity {
  if (q.exponent >= 0) return q;
  const unit = 10n ** BigInt(-q.exponent);
  let whole = q.mantissa / unit;
  if (q.mantissa % unit !== 0n && q.mantissa > 0n) whole += 1n;
  return { mantissa: whole, exponent: 0, format: q.format };
}

/** The request, or what was allocated when that is more (RecoverVolumeExpansionFailure, on in 1.36). */
function storageUsage(pvc: PvcShape): Quantity | undefined {
  const requested = quantityFromJson(pvc.spec?.resources?.requests?.['storage']);
  if (!requested) return undefined;
  const result = roundUpToWhole(requested);
  const allocated = quantityFromJson(pvc.status?.allocatedResources?.['storage']);
  if (allocated && compareQuantities(allocated, result) > 0) return roundUpToWhole(allocated);
  return result;
}

function pvcUsage(obj: KubeObject): ResourceList {
  const pvc = obj as PvcShape;
  const usage: ResourceList = new Map([
    ['persistentvolumeclaims', count(1)],
    [PVC_COUNT, count(1)],
  ]);
  const storageClass = storageClassOf(pvc);
  if (storageClass) usage.set(`${storageClass}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`, count(1));
  const storage = storageUsage(pvc);
  if (storage) {
    usage.set('requests.storage', storage);
    if (storageClass) usage.set(`${storageClass}${STORAGE_CLASS_SUFFIX}requests.storage`, storage);
  }
  return usage;
}

/** The volume attributes classes a claim names, wants or has. */
function volumeAttributesClasses(pvc: PvcShape): string[] {
  const names = new Set<string>();
  for (const n of [pvc.spec?.volumeAttributesClassName, pvc.status?.currentVolumeAttributesClassName, pvc.status?.modifyVolumeStatus?.targetVolumeAttributesClassName]) {
    if (n) names.add(n);
  }
  return [...names];
}

function pvcMatchesScope(req: ScopeRequirement, obj: KubeObject): boolean {
  if (req.scopeName !== 'VolumeAttributesClass') return false;
  const classes = volumeAttributesClasses(obj as PvcShape);
  if (req.operator === 'Exists') return classes.length > 0;
  return requirementMatchesValues(req, classes);
}

export const PVC_EVALUATOR: QuotaEvaluator = {
  group: '',
  resource: 'persistentvolumeclaims',
  handles: (attrs) => attrs.operation === 'CREATE' || attrs.operation === 'UPDATE',
  matchingResources: (input) =>
    input.filter((name) => name === PVC_COUNT || PVC_RESOURCES.includes(name) || PVC_RESOURCES.some((r) => name.endsWith(STORAGE_CLASS_SUFFIX + r))),
  matchesScope: pvcMatchesScope,
  constraints: () => undefined,
  usage: pvcUsage,
};
