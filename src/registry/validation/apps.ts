import type { FieldError } from '../../machinery/errors.js';
import { jsonEqual } from '../../machinery/object.js';
import { isDns1123Label } from '../../machinery/name-validation.js';
import { FIELD_IMMUTABLE, forbidden, goStruct, has, invalid, isObj, nonNegative, notSupported, num, obj, objs, required, str, type GoJson, type Obj } from './field.js';
import { validatePodTemplateSpec } from './pod-spec.js';
import { labelSelectorRepr } from './render.js';
import { selectorIsEmpty, selectorMatches, validateLabelSelector } from './selector.js';
import { validatePvcSpec } from './core.js';

/** apps/v1 validation (pkg/apis/apps/validation). */

type Kind = 'deployment' | 'replicaset' | 'statefulset' | 'daemonset';

const KIND_NAME: Record<Kind, string> = { deployment: 'Deployment', replicaset: 'ReplicaSet', statefulset: 'StatefulSet', daemonset: 'DaemonSet' };

/** Selector present, non-empty and matching the template; the template valid and always restarting. */
function validateSelectorAndTemplate(spec: Obj, kind: Kind): FieldError[] {
  const errs: FieldError[] = [];
  const selector = spec.selector;
  if (!isObj(selector)) {
    errs.push(required('spec.selector'));
  } else {
    errs.push(...validateLabelSelector(selector, 'spec.selector'));
    if (selectorIsEmpty(selector)) errs.push(invalid('spec.selector', labelSelectorRepr(selector), `empty selector is invalid for ${kind}`));
  }
  const template = obj(spec.template);
  const labels = obj(obj(template.metadata).labels);
  if (isObj(selector) && !selectorIsEmpty(selector) && !selectorMatches(selector, labels)) {
    errs.push(invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  }
  errs.push(...validatePodTemplateSpec(template, 'spec.template'));
  const tspec = obj(template.spec);
  if (tspec.restartPolicy !== 'Always') errs.push(notSupported('spec.template.spec.restartPolicy', tspec.restartPolicy ?? '', ['Always']));
  if (has(tspec.activeDeadlineSeconds)) {
    const field = 'spec.template.spec.activeDeadlineSeconds';
    if (kind === 'statefulset' || kind === 'daemonset') errs.push(forbidden(field, `activeDeadlineSeconds in ${KIND_NAME[kind]} is not Supported`));
    else errs.push(invalid(field, tspec.activeDeadlineSeconds, `activeDeadlineSeconds in ${KIND_NAME[kind]} is not Supported`));
  }
  return errs;
}

function isPercent(v: string): boolean {
  return /^[0-9]+%$/.test(v);
}

/** ValidatePositiveIntOrPercent plus IsNotMoreThan100Percent. */
function validateIntOrPercent(v: unknown, field: string, allowOver100 = false): FieldError[] {
  if (typeof v === 'string') {
    if (!isPercent(v)) return [invalid(field, v, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")];
    if (!allowOver100 && Number.parseInt(v, 10) > 100) return [invalid(field, v, 'must not be greater than 100%')];
    return [];
  }
  return nonNegative(v, field);
}

function isZeroIntOrPercent(v: unknown): boolean {
  return v === 0 || v === '0%' || v === undefined || v === null;
}

export function validateDeployment(d: Obj): FieldError[] {
  const spec = obj(d.spec);
  const errs: FieldError[] = [...nonNegative(spec.replicas, 'spec.replicas')];
  errs.push(...validateSelectorAndTemplate(spec, 'deployment'));
  const strategy = obj(spec.strategy);
  const type = str(strategy.type);
  if (type === 'Recreate') {
    if (has(strategy.rollingUpdate)) errs.push(forbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'"));
  } else if (type === 'RollingUpdate') {
    if (!isObj(strategy.rollingUpdate)) errs.push(required('spec.strategy.rollingUpdate', 'this should be defaulted and never be nil'));
    else {
      const ru = strategy.rollingUpdate;
      errs.push(...validateIntOrPercent(ru.maxUnavailable, 'spec.strategy.rollingUpdate.maxUnavailable'));
      errs.push(...validateIntOrPercent(ru.maxSurge, 'spec.strategy.rollingUpdate.maxSurge', true));
      if (isZeroIntOrPercent(ru.maxUnavailable) && isZeroIntOrPercent(ru.maxSurge)) {
        errs.push(invalid('spec.strategy.rollingUpdate.maxUnavailable', ru.maxUnavailable ?? 0, 'may not be 0 when `maxSurge` is 0'));
      }
    }
  } else {
    errs.push(notSupported('spec.strategy.type', type, ['Recreate', 'RollingUpdate']));
  }
  errs.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  errs.push(...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  if (has(spec.progressDeadlineSeconds)) {
    errs.push(...nonNegative(spec.progressDeadlineSeconds, 'spec.progressDeadlineSeconds'));
    if (num(spec.progressDeadlineSeconds) <= num(spec.minReadySeconds)) {
      errs.push(invalid('spec.progressDeadlineSeconds', spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
    }
  }
  return errs;
}

/** apps/v1 selectors are immutable (extensions/v1beta1 allowed changes). */
function selectorImmutable(spec: Obj, oldSpec: Obj): FieldError[] {
  return jsonEqual(spec.selector ?? null, oldSpec.selector ?? null) ? [] : [invalid('spec.selector', labelSelectorRepr(spec.selector), FIELD_IMMUTABLE)];
}

export function validateDeploymentUpdate(d: Obj, old: Obj): FieldError[] {
  return [...validateDeployment(d), ...selectorImmutable(obj(d.spec), obj(old.spec))];
}

export function validateReplicaSet(rs: Obj): FieldError[] {
  const spec = obj(rs.spec);
  return [...nonNegative(spec.replicas, 'spec.replicas'), ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'), ...validateSelectorAndTemplate(spec, 'replicaset')];
}

export function validateReplicaSetUpdate(rs: Obj, old: Obj): FieldError[] {
  return [...validateReplicaSet(rs), ...selectorImmutable(obj(rs.spec), obj(old.spec))];
}

export function validateDaemonSet(ds: Obj): FieldError[] {
  const spec = obj(ds.spec);
  const errs = validateSelectorAndTemplate(spec, 'daemonset');
  errs.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  errs.push(...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  const strategy = obj(spec.updateStrategy);
  const type = str(strategy.type);
  if (type === 'RollingUpdate') {
    if (!isObj(strategy.rollingUpdate)) errs.push(required('spec.updateStrategy.rollingUpdate'));
    else {
      const ru = strategy.rollingUpdate;
      errs.push(...validateIntOrPercent(ru.maxUnavailable, 'spec.updateStrategy.rollingUpdate.maxUnavailable'));
      errs.push(...validateIntOrPercent(ru.maxSurge, 'spec.updateStrategy.rollingUpdate.maxSurge'));
      const unavailZero = isZeroIntOrPercent(ru.maxUnavailable);
      const surgeZero = isZeroIntOrPercent(ru.maxSurge);
      if (unavailZero && surgeZero) {
        errs.push(invalid('spec.updateStrategy.rollingUpdate.maxUnavailable', ru.maxUnavailable ?? 0, 'may not be 0 when `maxSurge` is 0'));
      } else if (!unavailZero && !surgeZero) {
        errs.push(invalid('spec.updateStrategy.rollingUpdate.maxSurge', ru.maxSurge, 'may not be set when maxUnavailable is non-zero'));
      }
    }
  } else if (type !== 'OnDelete') {
    errs.push(notSupported('spec.updateStrategy.type', type, ['OnDelete', 'RollingUpdate']));
  }
  return errs;
}

export function validateDaemonSetUpdate(ds: Obj, old: Obj): FieldError[] {
  return [...validateDaemonSet(ds), ...selectorImmutable(obj(ds.spec), obj(old.spec))];
}

const PVC_RETENTION = ['Delete', 'Retain'];

export function validateStatefulSet(sts: Obj): FieldError[] {
  const spec = obj(sts.spec);
  const errs: FieldError[] = [];
  const pmp = str(spec.podManagementPolicy);
  if (!pmp) errs.push(required('spec.podManagementPolicy'));
  else if (pmp !== 'OrderedReady' && pmp !== 'Parallel') errs.push(invalid('spec.podManagementPolicy', pmp, "must be 'OrderedReady' or 'Parallel'"));
  const strategy = obj(spec.updateStrategy);
  const type = str(strategy.type);
  if (type === 'RollingUpdate') {
    if (isObj(strategy.rollingUpdate)) {
      errs.push(...nonNegative(strategy.rollingUpdate.partition, 'spec.updateStrategy.rollingUpdate.partition'));
    }
  } else if (type === 'OnDelete') {
    if (has(strategy.rollingUpdate)) errs.push(invalid('spec.updateStrategy.rollingUpdate', rollingUpdateRepr(obj(strategy.rollingUpdate)), "only allowed for updateStrategy 'RollingUpdate'"));
  } else if (!type) {
    errs.push(required('spec.updateStrategy'));
  } else {
    errs.push(invalid('spec.updateStrategy', type, "must be 'RollingUpdate' or 'OnDelete'"));
  }
  const retention = obj(spec.persistentVolumeClaimRetentionPolicy);
  for (const key of ['whenDeleted', 'whenScaled']) {
    const v = str(retention[key]);
    if (isObj(spec.persistentVolumeClaimRetentionPolicy) && !PVC_RETENTION.includes(v)) {
      errs.push(notSupported(`spec.persistentVolumeClaimRetentionPolicy.${key}`, v, PVC_RETENTION));
    }
  }
  errs.push(...nonNegative(spec.replicas, 'spec.replicas'));
  errs.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  if (isObj(spec.ordinals)) errs.push(...nonNegative(spec.ordinals.start, 'spec.ordinals.start'));
  if (str(spec.serviceName)) errs.push(...isDns1123Label(str(spec.serviceName)).map((m) => invalid('spec.serviceName', spec.serviceName, m)));
  errs.push(...validateSelectorAndTemplate(spec, 'statefulset'));
  objs(spec.volumeClaimTemplates).forEach((claim, i) => errs.push(...validatePvcSpec(obj(claim.spec), `spec.volumeClaimTemplates[${i}].spec`)));
  return errs;
}

const STS_MUTABLE = ['replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

export function validateStatefulSetUpdate(sts: Obj, old: Obj): FieldError[] {
  const errs = validateStatefulSet(sts);
  const spec = { ...obj(sts.spec) };
  const oldSpec = { ...obj(old.spec) };
  for (const k of STS_MUTABLE) {
    delete spec[k];
    delete oldSpec[k];
  }
  if (!jsonEqual(spec, oldSpec)) {
    errs.push(forbidden('spec', "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
  }
  return errs;
}

/** json.Marshal of the internal apps.RollingUpdateStatefulSetStrategy (untagged: Go field names). */
function rollingUpdateRepr(rollingUpdate: Obj): GoJson {
  return goStruct([
    ['Partition', num(rollingUpdate.partition)],
    ['MaxUnavailable', rollingUpdate.maxUnavailable ?? null],
  ]);
}
