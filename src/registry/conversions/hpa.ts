/**
 * autoscaling/v1 HorizontalPodAutoscaler <-> its storage version
 * autoscaling/v2, as kube-apiserver 1.36 converts them.
 *
 * kube goes through the internal type (shaped like v2):
 *   pkg/apis/autoscaling/v1/conversion.go   v1 <-> internal
 *   pkg/apis/autoscaling/v2/conversion.go   v2 <-> internal (drops the round-trip annotations)
 *   pkg/apis/autoscaling/helpers.go         DropRoundTripHorizontalPodAutoscalerAnnotations
 *   pkg/apis/autoscaling/v1/defaults.go     minReplicas defaults to 1
 *   pkg/apis/autoscaling/v2/defaults.go     minReplicas, the 80% CPU metric, behavior rules
 *
 * v1 only has targetCPUUtilizationPercentage (and its current value). What
 * else v2 holds travels in annotations on the v1 object so a v1 client that
 * reads, edits and writes back an object loses nothing:
 *   autoscaling.alpha.kubernetes.io/metrics          spec metrics other than a CPU utilization target, as v1 MetricSpec JSON
 *   autoscaling.alpha.kubernetes.io/current-metrics  every status metric, as v1 MetricStatus JSON
 *   autoscaling.alpha.kubernetes.io/behavior         spec.behavior, as the *internal* Go struct (no json tags: Go field names)
 *   autoscaling.alpha.kubernetes.io/conditions       status conditions
 * On the way in, well-formed annotations become fields and all of them are
 * removed; malformed ones are dropped silently (upstream "only move
 * well-formed data from annotations to fields").
 *
 * Defaulting: kube defaults a v1 request body before converting it, and
 * defaults the v2 object again each time it decodes it from storage (which
 * also happens for the object a create or update returns). This server has no
 * separate defaulting step, so both are applied here; they are idempotent.
 */
import type { KubeObject, ObjectMeta } from '../../machinery/object.js';
import {
  decode,
  type DecodeOptions,
  encode,
  field,
  GoDecodeError,
  type GoType,
  goInt32,
  goInt64,
  goMap,
  goPtr,
  goQuantity,
  goSlice,
  goString,
  goStruct,
  goTime,
  marshalText,
  optional,
  toPlain,
} from './go-json.js';

export const METRIC_SPECS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
export const METRIC_STATUSES_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
export const BEHAVIOR_SPECS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';
/** Written by the autoscaling/v2beta2 conversion (not served in 1.36) but still dropped with the others. */
export const TOLERANCE_SCALE_DOWN_ANNOTATION = 'autoscaling.alpha.kubernetes.io/scale-down-tolerance';
export const TOLERANCE_SCALE_UP_ANNOTATION = 'autoscaling.alpha.kubernetes.io/scale-up-tolerance';

const ROUND_TRIP_ANNOTATIONS = [
  METRIC_SPECS_ANNOTATION,
  BEHAVIOR_SPECS_ANNOTATION,
  TOLERANCE_SCALE_DOWN_ANNOTATION,
  TOLERANCE_SCALE_UP_ANNOTATION,
  METRIC_STATUSES_ANNOTATION,
  CONDITIONS_ANNOTATION,
];

/** autoscaling.DefaultCPUUtilization. */
const DEFAULT_CPU_UTILIZATION = 80;

// ----------------------------------------------------------------- Go types

/** A *resource.Quantity: null when nil. The text is kept as given (not canonicalized). */
type Quantity = string | null;

interface CrossVersionObjectReference {
  kind: string;
  name: string;
  apiVersion: string;
}

interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values: string[] | null;
}

interface LabelSelector {
  matchLabels: Record<string, string> | null;
  matchExpressions: LabelSelectorRequirement[] | null;
}

const crossVersionObjectReferenceType = goStruct([field('kind', goString), field('name', goString), optional('apiVersion', goString, 'APIVersion')]);
const labelSelectorType = goStruct([
  optional('matchLabels', goMap(goString)),
  optional('matchExpressions', goSlice(goStruct([field('key', goString), field('operator', goString), optional('values', goSlice(goString))]))),
]);
const selectorType = goPtr(labelSelectorType);

// Internal (= v2) types.

interface MetricIdentifier {
  name: string;
  selector: LabelSelector | null;
}

interface MetricTarget {
  type: string;
  value: Quantity;
  averageValue: Quantity;
  averageUtilization: number | null;
}

interface MetricValueStatus {
  value: Quantity;
  averageValue: Quantity;
  averageUtilization: number | null;
}

interface MetricSpec {
  type: string;
  object: { describedObject: CrossVersionObjectReference; target: MetricTarget; metric: MetricIdentifier } | null;
  pods: { metric: MetricIdentifier; target: MetricTarget } | null;
  resource: { name: string; target: MetricTarget } | null;
  containerResource: { name: string; target: MetricTarget; container: string } | null;
  external: { metric: MetricIdentifier; target: MetricTarget } | null;
}

interface MetricStatus {
  type: string;
  object: { metric: MetricIdentifier; current: MetricValueStatus; describedObject: CrossVersionObjectReference } | null;
  pods: { metric: MetricIdentifier; current: MetricValueStatus } | null;
  resource: { name: string; current: MetricValueStatus } | null;
  containerResource: { name: string; current: MetricValueStatus; container: string } | null;
  external: { metric: MetricIdentifier; current: MetricValueStatus } | null;
}

interface ScalingPolicy {
  type: string;
  value: number;
  periodSeconds: number;
}

interface ScalingRules {
  stabilizationWindowSeconds: number | null;
  selectPolicy: string | null;
  policies: ScalingPolicy[] | null;
  tolerance: Quantity;
}

interface Behavior {
  scaleUp: ScalingRules | null;
  scaleDown: ScalingRules | null;
}

/** The same in v1 (carried in the conditions annotation) and v2 of 1.36. */
interface Condition {
  type: string;
  status: string;
  lastTransitionTime: string | null;
  reason: string;
  message: string;
}

interface SpecV2 {
  scaleTargetRef: CrossVersionObjectReference;
  minReplicas: number | null;
  maxReplicas: number;
  metrics: MetricSpec[] | null;
  behavior: Behavior | null;
}

interface StatusV2 {
  observedGeneration: number | null;
  lastScaleTime: string | null;
  currentReplicas: number;
  desiredReplicas: number;
  currentMetrics: MetricStatus[] | null;
  conditions: Condition[] | null;
}

const metricIdentifierType = goStruct([field('name', goString), optional('selector', selectorType)]);
const metricTargetType = goStruct([
  field('type', goString),
  optional('value', goPtr(goQuantity)),
  optional('averageValue', goPtr(goQuantity)),
  optional('averageUtilization', goPtr(goInt32)),
]);
const metricValueStatusType = goStruct([
  optional('value', goPtr(goQuantity)),
  optional('averageValue', goPtr(goQuantity)),
  optional('averageUtilization', goPtr(goInt32)),
]);
const metricSpecV2Type = goStruct([
  field('type', goString),
  optional(
    'object',
    goPtr(goStruct([field('describedObject', crossVersionObjectReferenceType), field('target', metricTargetType), field('metric', metricIdentifierType)])),
  ),
  optional('pods', goPtr(goStruct([field('metric', metricIdentifierType), field('target', metricTargetType)]))),
  optional('resource', goPtr(goStruct([field('name', goString), field('target', metricTargetType)]))),
  optional('containerResource', goPtr(goStruct([field('name', goString), field('target', metricTargetType), field('container', goString)]))),
  optional('external', goPtr(goStruct([field('metric', metricIdentifierType), field('target', metricTargetType)]))),
]);
const metricStatusV2Type = goStruct([
  field('type', goString),
  optional(
    'object',
    goPtr(goStruct([field('metric', metricIdentifierType), field('current', metricValueStatusType), field('describedObject', crossVersionObjectReferenceType)])),
  ),
  optional('pods', goPtr(goStruct([field('metric', metricIdentifierType), field('current', metricValueStatusType)]))),
  optional('resource', goPtr(goStruct([field('name', goString), field('current', metricValueStatusType)]))),
  optional('containerResource', goPtr(goStruct([field('name', goString), field('current', metricValueStatusType), field('container', goString)]))),
  optional('external', goPtr(goStruct([field('metric', metricIdentifierType), field('current', metricValueStatusType)]))),
]);
/**
 * HPAScalingRules. The internal struct declares the same fields in the same
 * order without json tags, so this type also serves the behavior annotation
 * (encoded untagged: `ScaleUp`, `StabilizationWindowSeconds`, ...).
 */
const scalingRulesType = goStruct([
  optional('stabilizationWindowSeconds', goPtr(goInt32)),
  optional('selectPolicy', goPtr(goString)),
  optional('policies', goSlice(goStruct([field('type', goString), field('value', goInt32), field('periodSeconds', goInt32)]))),
  optional('tolerance', goPtr(goQuantity)),
]);
const behaviorType = goStruct([optional('scaleUp', goPtr(scalingRulesType)), optional('scaleDown', goPtr(scalingRulesType))]);
const conditionType = goStruct([
  field('type', goString),
  field('status', goString),
  optional('lastTransitionTime', goTime),
  optional('reason', goString),
  optional('message', goString),
]);
const specV2Type = goStruct([
  field('scaleTargetRef', crossVersionObjectReferenceType),
  optional('minReplicas', goPtr(goInt32)),
  field('maxReplicas', goInt32),
  optional('metrics', goSlice(metricSpecV2Type)),
  optional('behavior', goPtr(behaviorType)),
]);
const statusV2Type = goStruct([
  optional('observedGeneration', goPtr(goInt64)),
  optional('lastScaleTime', goPtr(goTime)),
  optional('currentReplicas', goInt32),
  field('desiredReplicas', goInt32),
  // No omitempty in autoscaling/v2: an HPA without metrics reads back `currentMetrics: null`.
  field('currentMetrics', goSlice(metricStatusV2Type)),
  optional('conditions', goSlice(conditionType)),
]);

// autoscaling/v1 types (the metric types exist only for the annotations).

interface SpecV1 {
  scaleTargetRef: CrossVersionObjectReference;
  minReplicas: number | null;
  maxReplicas: number;
  targetCPUUtilizationPercentage: number | null;
}

interface StatusV1 {
  observedGeneration: number | null;
  lastScaleTime: string | null;
  currentReplicas: number;
  desiredReplicas: number;
  currentCPUUtilizationPercentage: number | null;
}

/** A resource.Quantity held by value: null is the zero quantity, written "0". */
type QuantityValue = string | null;

interface MetricSpecV1 {
  type: string;
  object: {
    target: CrossVersionObjectReference;
    metricName: string;
    targetValue: QuantityValue;
    selector: LabelSelector | null;
    averageValue: Quantity;
  } | null;
  pods: { metricName: string; targetAverageValue: QuantityValue; selector: LabelSelector | null } | null;
  resource: { name: string; targetAverageUtilization: number | null; targetAverageValue: Quantity } | null;
  containerResource: { name: string; targetAverageUtilization: number | null; targetAverageValue: Quantity; container: string } | null;
  external: { metricName: string; metricSelector: LabelSelector | null; targetValue: Quantity; targetAverageValue: Quantity } | null;
}

interface MetricStatusV1 {
  type: string;
  object: {
    target: CrossVersionObjectReference;
    metricName: string;
    currentValue: QuantityValue;
    selector: LabelSelector | null;
    averageValue: Quantity;
  } | null;
  pods: { metricName: string; currentAverageValue: QuantityValue; selector: LabelSelector | null } | null;
  resource: { name: string; currentAverageUtilization: number | null; currentAverageValue: QuantityValue } | null;
  containerResource: { name: string; currentAverageUtilization: number | null; currentAverageValue: QuantityValue; container: string } | null;
  external: { metricName: string; metricSelector: LabelSelector | null; currentValue: QuantityValue; currentAverageValue: Quantity } | null;
}

const specV1Type = goStruct([
  field('scaleTargetRef', crossVersionObjectReferenceType),
  optional('minReplicas', goPtr(goInt32)),
  field('maxReplicas', goInt32),
  optional('targetCPUUtilizationPercentage', goPtr(goInt32), 'TargetCPUUtilizationPercentage'),
]);
const statusV1Type = goStruct([
  optional('observedGeneration', goPtr(goInt64)),
  optional('lastScaleTime', goPtr(goTime)),
  // No omitempty in autoscaling/v1: a new HPA reads back {currentReplicas: 0, desiredReplicas: 0}.
  field('currentReplicas', goInt32),
  field('desiredReplicas', goInt32),
  optional('currentCPUUtilizationPercentage', goPtr(goInt32), 'CurrentCPUUtilizationPercentage'),
]);
const metricSpecV1Type = goStruct([
  field('type', goString),
  optional(
    'object',
    goPtr(
      goStruct([
        field('target', crossVersionObjectReferenceType),
        field('metricName', goString),
        field('targetValue', goQuantity),
        optional('selector', selectorType),
        optional('averageValue', goPtr(goQuantity)),
      ]),
    ),
  ),
  optional('pods', goPtr(goStruct([field('metricName', goString), field('targetAverageValue', goQuantity), optional('selector', selectorType)]))),
  optional(
    'resource',
    goPtr(goStruct([field('name', goString), optional('targetAverageUtilization', goPtr(goInt32)), optional('targetAverageValue', goPtr(goQuantity))])),
  ),
  optional(
    'containerResource',
    goPtr(
      goStruct([
        field('name', goString),
        optional('targetAverageUtilization', goPtr(goInt32)),
        optional('targetAverageValue', goPtr(goQuantity)),
        field('container', goString),
      ]),
    ),
  ),
  optional(
    'external',
    goPtr(
      goStruct([
        field('metricName', goString),
        optional('metricSelector', selectorType),
        optional('targetValue', goPtr(goQuantity)),
        optional('targetAverageValue', goPtr(goQuantity)),
      ]),
    ),
  ),
]);
const metricStatusV1Type = goStruct([
  field('type', goString),
  optional(
    'object',
    goPtr(
      goStruct([
        field('target', crossVersionObjectReferenceType),
        field('metricName', goString),
        field('currentValue', goQuantity),
        optional('selector', selectorType),
        optional('averageValue', goPtr(goQuantity)),
      ]),
    ),
  ),
  optional('pods', goPtr(goStruct([field('metricName', goString), field('currentAverageValue', goQuantity), optional('selector', selectorType)]))),
  optional(
    'resource',
    goPtr(goStruct([field('name', goString), optional('currentAverageUtilization', goPtr(goInt32)), field('currentAverageValue', goQuantity)])),
  ),
  optional(
    'containerResource',
    goPtr(
      goStruct([
        field('name', goString),
        optional('currentAverageUtilization', goPtr(goInt32)),
        field('currentAverageValue', goQuantity),
        field('container', goString),
      ]),
    ),
  ),
  optional(
    'external',
    goPtr(
      goStruct([
        field('metricName', goString),
        optional('metricSelector', selectorType),
        field('currentValue', goQuantity),
        optional('currentAverageValue', goPtr(goQuantity)),
      ]),
    ),
  ),
]);

// ---------------------------------------------------------------- helpers

const BODY = { encodingJson: false } as const;
const ANNOTATION = { encodingJson: true } as const;

function decodeAs<T>(raw: unknown, t: GoType, opts: DecodeOptions): T {
  return decode(raw, t, opts) as T;
}

/**
 * json.Unmarshal of an annotation value: undefined when Go would report an
 * error, which makes the conversion ignore the annotation.
 */
function unmarshalAnnotation<T>(text: string, t: GoType, untagged = false): T | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  try {
    return decodeAs<T>(raw, t, { ...ANNOTATION, untagged });
  } catch (e) {
    if (e instanceof GoDecodeError) return undefined;
    throw e;
  }
}

function annotationsOf(meta: ObjectMeta): Record<string, string> {
  const a = meta.annotations;
  if (typeof a !== 'object' || a === null) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(a)) if (typeof v === 'string') out[k] = v;
  return out;
}

function dropRoundTripAnnotations(annotations: Record<string, string>): void {
  for (const k of ROUND_TRIP_ANNOTATIONS) delete annotations[k];
}

/** The metadata with these annotations; an empty map is omitted (ObjectMeta's omitempty). */
function withAnnotations(meta: ObjectMeta, annotations: Record<string, string>): ObjectMeta {
  const { annotations: _old, ...rest } = meta;
  const keys = Object.keys(annotations).sort();
  if (keys.length === 0) return rest;
  // Go writes maps sorted by key.
  return { ...rest, annotations: Object.fromEntries(keys.map((k) => [k, annotations[k] ?? ''])) };
}

function metadataOf(obj: KubeObject): ObjectMeta {
  return typeof obj.metadata === 'object' && obj.metadata !== null ? obj.metadata : {};
}

function cpuUtilizationMetric(utilization: number): MetricSpec {
  return {
    type: 'Resource',
    object: null,
    pods: null,
    resource: { name: 'cpu', target: { type: 'Utilization', value: null, averageValue: null, averageUtilization: utilization } },
    containerResource: null,
    external: null,
  };
}

function isCpuUtilizationTarget(m: MetricSpec): boolean {
  return m.type === 'Resource' && m.resource !== null && m.resource.name === 'cpu' && m.resource.target.averageUtilization !== null;
}

// ------------------------------------------------------- metric conversion

function metricSpecToV1(m: MetricSpec): MetricSpecV1 {
  return {
    type: m.type,
    object: m.object && {
      target: { ...m.object.describedObject },
      metricName: m.object.metric.name,
      targetValue: m.object.target.value,
      selector: m.object.metric.selector,
      averageValue: m.object.target.averageValue,
    },
    pods: m.pods && { metricName: m.pods.metric.name, targetAverageValue: m.pods.target.averageValue, selector: m.pods.metric.selector },
    resource: m.resource && {
      name: m.resource.name,
      targetAverageUtilization: m.resource.target.averageUtilization,
      targetAverageValue: m.resource.target.averageValue,
    },
    containerResource: m.containerResource && {
      name: m.containerResource.name,
      targetAverageUtilization: m.containerResource.target.averageUtilization,
      targetAverageValue: m.containerResource.target.averageValue,
      container: m.containerResource.container,
    },
    external: m.external && {
      metricName: m.external.metric.name,
      metricSelector: m.external.metric.selector,
      targetValue: m.external.target.value,
      targetAverageValue: m.external.target.averageValue,
    },
  };
}

function metricSpecFromV1(m: MetricSpecV1): MetricSpec {
  // Where v1 holds a quantity by value, the internal pointer points at it, so
  // a zero quantity comes back as "0" rather than absent.
  const o = m.object;
  const p = m.pods;
  const r = m.resource;
  const c = m.containerResource;
  const e = m.external;
  return {
    type: m.type,
    object: o && {
      describedObject: { ...o.target },
      target: { type: o.averageValue === null ? 'Value' : 'AverageValue', value: o.targetValue ?? '0', averageValue: o.averageValue, averageUtilization: null },
      metric: { name: o.metricName, selector: o.selector },
    },
    pods: p && {
      metric: { name: p.metricName, selector: p.selector },
      target: { type: 'AverageValue', value: null, averageValue: p.targetAverageValue ?? '0', averageUtilization: null },
    },
    resource: r && {
      name: r.name,
      target: {
        type: r.targetAverageUtilization === null ? 'AverageValue' : 'Utilization',
        value: null,
        averageValue: r.targetAverageValue,
        averageUtilization: r.targetAverageUtilization,
      },
    },
    containerResource: c && {
      name: c.name,
      target: {
        type: c.targetAverageUtilization === null ? 'AverageValue' : 'Utilization',
        value: null,
        averageValue: c.targetAverageValue,
        averageUtilization: c.targetAverageUtilization,
      },
      container: c.container,
    },
    external: e && {
      metric: { name: e.metricName, selector: e.metricSelector },
      target: { type: e.targetValue === null ? 'AverageValue' : 'Value', value: e.targetValue, averageValue: e.targetAverageValue, averageUtilization: null },
    },
  };
}

function metricStatusToV1(m: MetricStatus): MetricStatusV1 {
  return {
    type: m.type,
    object: m.object && {
      target: { ...m.object.describedObject },
      metricName: m.object.metric.name,
      currentValue: m.object.current.value,
      selector: m.object.metric.selector,
      averageValue: m.object.current.averageValue,
    },
    pods: m.pods && { metricName: m.pods.metric.name, currentAverageValue: m.pods.current.averageValue, selector: m.pods.metric.selector },
    resource: m.resource && {
      name: m.resource.name,
      currentAverageUtilization: m.resource.current.averageUtilization,
      currentAverageValue: m.resource.current.averageValue,
    },
    containerResource: m.containerResource && {
      name: m.containerResource.name,
      currentAverageUtilization: m.containerResource.current.averageUtilization,
      currentAverageValue: m.containerResource.current.averageValue,
      container: m.containerResource.container,
    },
    external: m.external && {
      metricName: m.external.metric.name,
      metricSelector: m.external.metric.selector,
      currentValue: m.external.current.value,
      currentAverageValue: m.external.current.averageValue,
    },
  };
}

function metricStatusFromV1(m: MetricStatusV1): MetricStatus {
  const o = m.object;
  const p = m.pods;
  const r = m.resource;
  const c = m.containerResource;
  const e = m.external;
  return {
    type: m.type,
    object: o && {
      metric: { name: o.metricName, selector: o.selector },
      current: { value: o.currentValue ?? '0', averageValue: o.averageValue, averageUtilization: null },
      describedObject: { ...o.target },
    },
    pods: p && {
      metric: { name: p.metricName, selector: p.selector },
      current: { value: null, averageValue: p.currentAverageValue ?? '0', averageUtilization: null },
    },
    resource: r && {
      name: r.name,
      current: { value: null, averageValue: r.currentAverageValue ?? '0', averageUtilization: r.currentAverageUtilization },
    },
    containerResource: c && {
      name: c.name,
      current: { value: null, averageValue: c.currentAverageValue ?? '0', averageUtilization: c.currentAverageUtilization },
      container: c.container,
    },
    external: e && {
      metric: { name: e.metricName, selector: e.metricSelector },
      current: { value: e.currentValue ?? '0', averageValue: e.currentAverageValue, averageUtilization: null },
    },
  };
}

// --------------------------------------------------------------- defaults

function defaultScaleUpRules(): ScalingRules {
  return {
    stabilizationWindowSeconds: 0,
    selectPolicy: 'Max',
    policies: [
      { type: 'Pods', value: 4, periodSeconds: 15 },
      { type: 'Percent', value: 100, periodSeconds: 15 },
    ],
    tolerance: null,
  };
}

function defaultScaleDownRules(): ScalingRules {
  // No stabilization window: the controller's --horizontal-pod-autoscaler-downscale-stabilization applies.
  return { stabilizationWindowSeconds: null, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }], tolerance: null };
}

/** copyHPAScalingRules: the set fields of `from` over the defaults. */
function withDefaultRules(from: ScalingRules | null, defaults: ScalingRules): ScalingRules {
  if (from === null) return defaults;
  return {
    stabilizationWindowSeconds: from.stabilizationWindowSeconds ?? defaults.stabilizationWindowSeconds,
    selectPolicy: from.selectPolicy ?? defaults.selectPolicy,
    policies: from.policies ?? defaults.policies,
    tolerance: from.tolerance ?? defaults.tolerance,
  };
}

/** autoscaling/v2 SetDefaults_HorizontalPodAutoscaler. */
function applyV2Defaults(spec: SpecV2): void {
  spec.minReplicas ??= 1;
  if (spec.metrics === null || spec.metrics.length === 0) spec.metrics = [cpuUtilizationMetric(DEFAULT_CPU_UTILIZATION)];
  if (spec.behavior !== null) {
    spec.behavior = {
      scaleUp: withDefaultRules(spec.behavior.scaleUp, defaultScaleUpRules()),
      scaleDown: withDefaultRules(spec.behavior.scaleDown, defaultScaleDownRules()),
    };
  }
}

// ------------------------------------------------------- object conversion

/** An autoscaling/v1 HorizontalPodAutoscaler as the autoscaling/v2 object kube stores. */
export function hpaV1ToV2(obj: KubeObject): KubeObject {
  const meta = metadataOf(obj);
  const inSpec = decodeAs<SpecV1>(obj.spec, specV1Type, BODY);
  const inStatus = decodeAs<StatusV1>(obj.status, statusV1Type, BODY);
  // autoscaling/v1 SetDefaults_HorizontalPodAutoscaler, applied when the request is decoded.
  inSpec.minReplicas ??= 1;

  const spec: SpecV2 = {
    scaleTargetRef: { ...inSpec.scaleTargetRef },
    minReplicas: inSpec.minReplicas,
    maxReplicas: inSpec.maxReplicas,
    metrics: inSpec.targetCPUUtilizationPercentage === null ? null : [cpuUtilizationMetric(inSpec.targetCPUUtilizationPercentage)],
    behavior: null,
  };
  const status: StatusV2 = {
    observedGeneration: inStatus.observedGeneration,
    lastScaleTime: inStatus.lastScaleTime,
    currentReplicas: inStatus.currentReplicas,
    desiredReplicas: inStatus.desiredReplicas,
    currentMetrics:
      inStatus.currentCPUUtilizationPercentage === null
        ? null
        : [
            {
              type: 'Resource',
              object: null,
              pods: null,
              resource: { name: 'cpu', current: { value: null, averageValue: null, averageUtilization: inStatus.currentCPUUtilizationPercentage } },
              containerResource: null,
              external: null,
            },
          ],
    conditions: null,
  };

  const annotations = annotationsOf(meta);
  const metricsText = annotations[METRIC_SPECS_ANNOTATION];
  if (metricsText !== undefined) {
    const other = unmarshalAnnotation<MetricSpecV1[] | null>(metricsText, goSlice(metricSpecV1Type));
    if (other !== undefined) {
      // The CPU target from targetCPUUtilizationPercentage goes after the annotated metrics.
      spec.metrics = [...(other ?? []).map(metricSpecFromV1), ...(spec.metrics ?? []).slice(0, 1)];
    }
  }
  const behaviorText = annotations[BEHAVIOR_SPECS_ANNOTATION];
  if (behaviorText !== undefined) {
    // The annotation holds the internal struct, whose fields have no json tags.
    const behavior = unmarshalAnnotation<Behavior>(behaviorText, behaviorType, true);
    if (behavior !== undefined && (behavior.scaleUp !== null || behavior.scaleDown !== null)) spec.behavior = behavior;
  }
  const currentText = annotations[METRIC_STATUSES_ANNOTATION];
  if (currentText !== undefined) {
    // These carry more than currentCPUUtilizationPercentage, so they replace it.
    const current = unmarshalAnnotation<MetricStatusV1[] | null>(currentText, goSlice(metricStatusV1Type));
    if (current !== undefined) status.currentMetrics = (current ?? []).map(metricStatusFromV1);
  }
  if (spec.metrics === null || spec.metrics.length === 0) {
    // v1 used to apply this default in the controller; the conversion makes it explicit.
    spec.metrics = [cpuUtilizationMetric(DEFAULT_CPU_UTILIZATION)];
  }
  const conditionsText = annotations[CONDITIONS_ANNOTATION];
  if (conditionsText !== undefined) {
    const conditions = unmarshalAnnotation<Condition[] | null>(conditionsText, goSlice(conditionType));
    if (conditions !== undefined) status.conditions = conditions ?? [];
  }
  dropRoundTripAnnotations(annotations);

  applyV2Defaults(spec);
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: withAnnotations(meta, annotations),
    spec: toPlain(encode(spec, specV2Type)),
    status: toPlain(encode(status, statusV2Type)),
  };
}

/** A stored autoscaling/v2 HorizontalPodAutoscaler as autoscaling/v1 serves it. */
export function hpaV2ToV1(obj: KubeObject): KubeObject {
  const meta = metadataOf(obj);
  const spec = decodeAs<SpecV2>(obj.spec, specV2Type, BODY);
  const status = decodeAs<StatusV2>(obj.status, statusV2Type, BODY);
  // Decoding from storage defaults the v2 object.
  applyV2Defaults(spec);
  const metrics = spec.metrics ?? [];

  // Clear any round-trip annotations first so the only ones left are those written here.
  const annotations = annotationsOf(meta);
  dropRoundTripAnnotations(annotations);
  const otherMetrics = metrics.filter((m) => !isCpuUtilizationTarget(m)).map(metricSpecToV1);
  if (otherMetrics.length > 0) annotations[METRIC_SPECS_ANNOTATION] = marshalText(encode(otherMetrics, goSlice(metricSpecV1Type)));
  // Every current metric, the CPU one included: the annotation also keeps its raw value.
  const currentMetrics = status.currentMetrics ?? [];
  if (currentMetrics.length > 0) {
    annotations[METRIC_STATUSES_ANNOTATION] = marshalText(encode(currentMetrics.map(metricStatusToV1), goSlice(metricStatusV1Type)));
  }
  if (spec.behavior !== null) annotations[BEHAVIOR_SPECS_ANNOTATION] = marshalText(encode(spec.behavior, behaviorType, { untagged: true }));
  const conditions = status.conditions ?? [];
  if (conditions.length > 0) annotations[CONDITIONS_ANNOTATION] = marshalText(encode(conditions, goSlice(conditionType)));

  // The first CPU utilization target; a CPU target by value does not count.
  const cpuTarget = metrics.find(isCpuUtilizationTarget)?.resource?.target.averageUtilization ?? null;
  // Upstream's loop has no break here: the last CPU utilization reading wins.
  let currentCpu: number | null = null;
  for (const m of currentMetrics) {
    if (m.type === 'Resource' && m.resource !== null && m.resource.name === 'cpu' && m.resource.current.averageUtilization !== null) {
      currentCpu = m.resource.current.averageUtilization;
    }
  }
  const outSpec: SpecV1 = {
    scaleTargetRef: { ...spec.scaleTargetRef },
    minReplicas: spec.minReplicas,
    maxReplicas: spec.maxReplicas,
    targetCPUUtilizationPercentage: cpuTarget,
  };
  const outStatus: StatusV1 = {
    observedGeneration: status.observedGeneration,
    lastScaleTime: status.lastScaleTime,
    currentReplicas: status.currentReplicas,
    desiredReplicas: status.desiredReplicas,
    currentCPUUtilizationPercentage: currentCpu,
  };
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: withAnnotations(meta, annotations),
    spec: toPlain(encode(outSpec, specV1Type)),
    status: toPlain(encode(outStatus, statusV1Type)),
  };
}
