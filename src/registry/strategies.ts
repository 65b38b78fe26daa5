import { FeatureGates } from '../machinery/feature-gates.js';
import { cloneObject, metaOf, nowTimestamp, type KubeObject } from '../machinery/object.js';
import { isRecord } from '../machinery/json.js';
import { DEFAULT_STRATEGY, type Strategy } from './strategy.js';
import type { GarbageCollectionPolicy } from './gc-finalizers.js';
import { STRATEGY_FACTS, type StrategyFacts } from './strategy-facts.js';
import { NAMESPACE_FINALIZER } from './namespaces.js';
import { dropDisabledSliceFields } from './resource-slices.js';
import { prepareJobForCreate, preparePodForCreate } from './defaults/index.js';
import { hasValidation, validateObject, validateObjectUpdate } from './validation/index.js';
import { validateCustomResourceDefinitionStatusUpdate } from './validation/crd.js';
import { prepareCreate as prepareCsrCreate, prepareMainUpdate as prepareCsrUpdate, prepareStatusUpdate as prepareCsrStatusUpdate } from './csr-strategy.js';
import { validateCertificateSigningRequestUpdate } from './validation/certificates.js';
import { validateDeviceTaintRuleStatusUpdate, validateResourceClaimStatusUpdate } from './validation/resource.js';

/**
 * The strategy of each resource: kube-apiserver's per-type facts
 * (strategy-facts.ts) plus the behaviour a few types need in code.
 */

function fromFacts(facts: StrategyFacts | undefined): Strategy {
  if (!facts) return { ...DEFAULT_STRATEGY };
  const s: Strategy = {
    nameRule: facts.nameRule,
    tracksGeneration: facts.tracksGeneration,
    hasStatusSubresource: facts.statusSplit,
    allowCreateOnUpdate: facts.allowCreateOnUpdate,
    allowUnconditionalUpdate: facts.allowUnconditionalUpdate,
    returnDeletedObject: facts.returnDeletedObject,
  };
  const onCreate = facts.statusOnCreate;
  if (onCreate === 'keep') s.initialStatus = (obj) => obj.status;
  else if (onCreate === 'reset') s.initialStatus = () => ({});
  else if (onCreate === 'drop') s.initialStatus = () => undefined;
  else s.initialStatus = () => cloneObject(onCreate);
  return s;
}

/** kube's NamespaceDefaultLabelName: every namespace carries its own name as a label. */
const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

function labelNamespaceName(obj: KubeObject): void {
  const meta = metaOf(obj);
  meta.labels = { ...(meta.labels ?? {}), [NAMESPACE_NAME_LABEL]: meta.name ?? '' };
}

function namespaceStrategy(base: Strategy): Strategy {
  return {
    ...base,
    initialStatus: () => ({ phase: 'Active' }),
    prepareForCreate(obj) {
      const spec = (obj.spec ?? {}) as { finalizers?: string[] };
      const finalizers = Array.isArray(spec.finalizers) ? spec.finalizers : [];
      if (!finalizers.includes(NAMESPACE_FINALIZER)) finalizers.push(NAMESPACE_FINALIZER);
      obj.spec = { ...spec, finalizers };
      labelNamespaceName(obj);
    },
    prepareForUpdate(obj, old) {
      // spec.finalizers change only through the finalize subresource.
      obj.spec = { ...((obj.spec as object | undefined) ?? {}), finalizers: (old.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [] };
      labelNamespaceName(obj);
    },
  };
}

/** Pods bound to a node wait for the kubelet; unbound or finished pods go at once (CheckGracefulDelete). */
function podStrategy(base: Strategy): Strategy {
  return {
    ...base,
    gracePeriodSeconds(obj, requested) {
      const spec = (obj.spec ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
      const phase = (obj.status as { phase?: string } | undefined)?.phase;
      if (!spec.nodeName || phase === 'Succeeded' || phase === 'Failed') return 0;
      // rest.BeforeDelete treats a negative grace period as 1s.
      if (requested !== undefined) return requested < 0 ? 1 : requested;
      return spec.terminationGracePeriodSeconds ?? 30;
    },
  };
}

/** Secrets: stringData is write-only and lands base64-encoded in data (kube's v1 conversion). */
function mergeStringData(obj: KubeObject): void {
  const stringData = obj.stringData;
  if (stringData && typeof stringData === 'object' && !Array.isArray(stringData)) {
    const data = { ...((obj.data as Record<string, string> | undefined) ?? {}) };
    for (const [k, v] of Object.entries(stringData as Record<string, unknown>)) data[k] = Buffer.from(String(v)).toString('base64');
    obj.data = data;
  }
  delete obj.stringData;
}

/** The storage version joins status.storedVersions on create and whenever it changes (kube's CRD strategy). */
function recordStorageVersion(crd: KubeObject, status: Record<string, unknown>): void {
  const versions = Array.isArray((crd.spec as { versions?: unknown } | undefined)?.versions) ? ((crd.spec as { versions: Array<{ name?: string; storage?: boolean }> }).versions) : [];
  const storage = versions.find((v) => v?.storage === true)?.name;
  const stored = Array.isArray(status.storedVersions) ? (status.storedVersions as string[]) : [];
  if (storage !== undefined && !stored.includes(storage)) status.storedVersions = [...stored, storage];
}

function crdStrategy(base: Strategy): Strategy {
  return {
    ...base,
    genericMetaValidation: true,
    validateStatusUpdate: (obj) => validateCustomResourceDefinitionStatusUpdate(obj),
    prepareForCreate(obj) {
      const status: Record<string, unknown> = { acceptedNames: { kind: '', plural: '' } };
      recordStorageVersion(obj, status);
      obj.status = status;
    },
    prepareForUpdate(obj) {
      const status = { ...((obj.status as Record<string, unknown> | undefined) ?? {}) };
      recordStorageVersion(obj, status);
      obj.status = status;
    },
  };
}

/** metav1.Time.Equal on two optional timestamps: both unset, or the same instant whatever the zone. */
function sameInstant(a: unknown, b: unknown): boolean {
  if (a === undefined || a === null || b === undefined || b === null) return (a ?? null) === (b ?? null);
  const [ta, tb] = [Date.parse(String(a)), Date.parse(String(b))];
  return Number.isNaN(ta) || Number.isNaN(tb) ? a === b : ta === tb;
}

function taintOf(rule: KubeObject): Record<string, unknown> | undefined {
  return isRecord(rule.spec) && isRecord(rule.spec.taint) ? rule.spec.taint : undefined;
}

/**
 * kube's DeviceTaintRule PrepareForUpdate: timeAdded says when the current
 * *effect* began (tolerationSeconds count from it), so a new effect that kept
 * the old timeAdded starts now.
 */
function restartTaintTimeOnNewEffect(rule: KubeObject, old: KubeObject): void {
  const taint = taintOf(rule);
  const oldTaint = taintOf(old) ?? {};
  if (taint && (taint.effect ?? '') !== (oldTaint.effect ?? '') && sameInstant(taint.timeAdded, oldTaint.timeAdded)) {
    taint.timeAdded = nowTimestamp();
  }
}

const OVERRIDES: Record<string, (base: Strategy, gates: FeatureGates) => Strategy> = {
  'apiextensions.k8s.io/customresourcedefinitions': crdStrategy,
  '/namespaces': namespaceStrategy,
  '/pods': (base) => ({ ...podStrategy(base), prepareForCreate: preparePodForCreate }),
  '/secrets': (base) => ({ ...base, prepareForCreate: mergeStringData, prepareForUpdate: mergeStringData }),
  'batch/jobs': (base) => ({ ...base, prepareForCreate: prepareJobForCreate }),
  'certificates.k8s.io/certificatesigningrequests': (base) => ({
    ...base,
    // csrStrategy's and csrStatusStrategy's GetResetFields: the main resource owns neither spec nor status.
    resetFields: { main: [['spec'], ['status']], status: [['spec'], ['status', 'conditions']] },
    prepareForCreate: (obj, ctx) => prepareCsrCreate(obj, ctx.user),
    prepareForUpdate: prepareCsrUpdate,
    prepareForStatusUpdate: (obj, old) => prepareCsrStatusUpdate(obj, old),
    validateStatusUpdate: (obj, old) => validateCertificateSigningRequestUpdate(obj, old, 'status'),
    validateApprovalUpdate: (obj, old) => validateCertificateSigningRequestUpdate(obj, old, 'approval'),
  }),
  // resourceclaimStatusStrategy: /status writes are checked by the status rules, not the spec's immutability.
  'resource.k8s.io/resourceclaims': (base) => ({ ...base, validateStatusUpdate: (obj, old) => validateResourceClaimStatusUpdate(obj, old) }),
  'resource.k8s.io/devicetaintrules': (base) => ({ ...base, prepareForUpdate: restartTaintTimeOnNewEffect, validateStatusUpdate: (obj) => validateDeviceTaintRuleStatusUpdate(obj) }),
  'resource.k8s.io/resourceslices': (base, gates) => ({
    ...base,
    prepareForCreate: (obj) => dropDisabledSliceFields(obj, undefined, gates),
    prepareForUpdate: (obj, old) => dropDisabledSliceFields(obj, old, gates),
  }),
};

/** The type's validation (registry/validation), where it has one, on top of the metadata rules. */
function withValidation(s: Strategy, group: string, kind: string): Strategy {
  if (!hasValidation(group, kind)) return s;
  return {
    ...s,
    validate: (obj, ctx) => validateObject(group, kind, obj, ctx),
    validateUpdate: (obj, old, _warn, ctx) => validateObjectUpdate(group, kind, obj, old, ctx),
  };
}

/**
 * Types whose DefaultGarbageCollectionPolicy is not DeleteDependents: events
 * take no part in garbage collection; ReplicationControllers (core/v1) and
 * Jobs (batch/v1) orphan their dependents by default, for backward
 * compatibility (their only served versions).
 */
const GC_POLICIES: Record<string, GarbageCollectionPolicy> = {
  '/events': 'Unsupported',
  'events.k8s.io/events': 'Unsupported',
  '/replicationcontrollers': 'OrphanDependents',
  'batch/jobs': 'OrphanDependents',
};

/**
 * The strategy of a stored resource (`group`/`resource` of its storage
 * version, `kind` its storage kind); `gates` are the server's feature gates,
 * for the types whose writes depend on them (ResourceSlice).
 */
export function strategyFor(group: string, resource: string, kind: string, gates: FeatureGates = FeatureGates.defaults()): Strategy {
  const key = `${group}/${resource}`;
  const base = withValidation(fromFacts(STRATEGY_FACTS[key]), group, kind);
  const gcPolicy = GC_POLICIES[key];
  if (gcPolicy) base.garbageCollectionPolicy = gcPolicy;
  const override = OVERRIDES[key];
  return override ? override(base, gates) : base;
}
