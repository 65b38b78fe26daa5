import type { FieldError } from '../../machinery/errors.js';
import { cloneObject, jsonEqual } from '../../machinery/object.js';
import { goSemanticEqual } from '../../codec/go-json.js';
import { FIELD_IMMUTABLE, goJson, has, invalid, isObj, nonNegative, notSupported, obj, objs, required, str, type Obj } from './field.js';
import { validatePodTemplateSpec } from './pod-spec.js';
import { labelSelectorRepr } from './render.js';
import { selectorIsEmpty, selectorMatches, validateLabelSelector } from './selector.js';
import { cronScheduleError, isKnownTimeZone } from './cron.js';

/** batch/v1 validation (pkg/apis/batch/validation). */

const JOB_NAME = 'batch.kubernetes.io/job-name';
const CONTROLLER_UID = 'batch.kubernetes.io/controller-uid';

function hasLabel(labels: Obj, key: string, expected: string, path: string): FieldError[] {
  if (!(key in labels)) return [required(`${path}.labels[${key}]`, `must be '${expected}'`)];
  if (labels[key] !== expected) return [invalid(`${path}.labels[${key}]`, labels, `must be '${expected}'`)];
  return [];
}

/** The labels generateSelector puts on a Job's template, checked when the selector is not manual. */
function validateGeneratedSelector(job: Obj, requirePrefixed: boolean): FieldError[] {
  const spec = obj(job.spec);
  if (spec.manualSelector === true) return [];
  const meta = obj(job.metadata);
  const uid = str(meta.uid);
  const name = str(meta.name);
  const labels = obj(obj(obj(spec.template).metadata).labels);
  const path = 'spec.template.metadata';
  const errs = [...hasLabel(labels, 'controller-uid', uid, path), ...hasLabel(labels, 'job-name', name, path)];
  const expected: Obj = { 'controller-uid': uid, 'job-name': name };
  if (requirePrefixed) {
    errs.push(...hasLabel(labels, CONTROLLER_UID, uid, path), ...hasLabel(labels, JOB_NAME, name, path));
    expected[CONTROLLER_UID] = uid;
    expected[JOB_NAME] = name;
  }
  if (isObj(spec.selector) && !selectorMatches(spec.selector, expected)) {
    errs.push(invalid('spec.selector', labelSelectorRepr(spec.selector), '`selector` not auto-generated'));
  }
  return errs;
}

const COMPLETION_MODES = ['Indexed', 'NonIndexed'];

function validateJobSpec(spec: Obj, path: string, isTemplate: boolean): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished']) {
    if (has(spec[key])) errs.push(...nonNegative(spec[key], `${path}.${key}`));
  }
  if (has(spec.completionMode) && !COMPLETION_MODES.includes(str(spec.completionMode))) {
    errs.push(notSupported(`${path}.completionMode`, spec.completionMode, COMPLETION_MODES));
  }
  if (spec.completionMode === 'Indexed' && !has(spec.completions)) errs.push(required(`${path}.completions`, 'when completion mode is Indexed'));
  if (has(spec.podReplacementPolicy)) {
    const allowed = isObj(spec.podFailurePolicy) ? ['Failed'] : ['Failed', 'TerminatingOrFailed'];
    if (!allowed.includes(str(spec.podReplacementPolicy))) errs.push(notSupported(`${path}.podReplacementPolicy`, spec.podReplacementPolicy, allowed));
  }
  if (!isTemplate) {
    if (!isObj(spec.selector)) errs.push(required(`${path}.selector`));
    else {
      errs.push(...validateLabelSelector(spec.selector, `${path}.selector`));
      const labels = obj(obj(obj(spec.template).metadata).labels);
      if (!selectorIsEmpty(spec.selector) && !selectorMatches(spec.selector, labels)) {
        errs.push(invalid(`${path}.template.metadata.labels`, labels, '`selector` does not match template `labels`'));
      }
    }
  }
  errs.push(...validatePodTemplateSpec(spec.template, `${path}.template`));
  const rp = obj(obj(spec.template).spec).restartPolicy;
  if (rp !== 'OnFailure' && rp !== 'Never') errs.push(notSupported(`${path}.template.spec.restartPolicy`, rp ?? '', ['OnFailure', 'Never']));
  if (isObj(spec.podFailurePolicy) && rp !== 'Never') {
    errs.push(invalid(`${path}.template.spec.restartPolicy`, rp ?? '', 'only "Never" is supported when podFailurePolicy is specified'));
  }
  return errs;
}

export function validateJob(job: Obj, requirePrefixedLabels = true): FieldError[] {
  return [...validateGeneratedSelector(job, requirePrefixedLabels), ...validateJobSpec(obj(job.spec), 'spec', false)];
}

/** Field mutability on update: completions, selector, template (unless suspended and never started), and friends. */
export function validateJobUpdate(job: Obj, old: Obj): FieldError[] {
  const oldTemplateLabels = obj(obj(obj(obj(old.spec).template).metadata).labels);
  const requirePrefixed = JOB_NAME in oldTemplateLabels && CONTROLLER_UID in oldTemplateLabels;
  const errs = validateJob(job, requirePrefixed);
  const spec = obj(job.spec);
  const oldSpec = obj(old.spec);
  const indexedElastic = spec.completionMode === 'Indexed' && spec.completions === spec.parallelism && oldSpec.completions === oldSpec.parallelism;
  if (!indexedElastic && !jsonEqual(spec.completions ?? null, oldSpec.completions ?? null)) errs.push(invalid('spec.completions', spec.completions ?? null, FIELD_IMMUTABLE));
  if (!jsonEqual(spec.selector ?? null, oldSpec.selector ?? null)) errs.push(invalid('spec.selector', labelSelectorRepr(spec.selector), FIELD_IMMUTABLE));
  const suspendedNeverStarted = oldSpec.suspend === true && !has(obj(old.status).startTime);
  let template = obj(spec.template);
  if (suspendedNeverStarted) {
    // Scheduling directives may change while a suspended job has not started.
    const oldTemplate = obj(oldSpec.template);
    template = cloneObject(template);
    const tspec = obj(template.spec);
    const ospec = obj(oldTemplate.spec);
    for (const k of ['nodeSelector', 'affinity', 'tolerations', 'schedulingGates']) {
      if (ospec[k] === undefined) delete tspec[k];
      else tspec[k] = ospec[k];
    }
    const tmeta = obj(template.metadata);
    const ometa = obj(oldTemplate.metadata);
    for (const k of ['labels', 'annotations']) {
      if (ometa[k] === undefined) delete tmeta[k];
      else tmeta[k] = ometa[k];
    }
  }
  // Semantic equality of the Go values: a client echoing Go's `resources: {}` changes nothing.
  if (!goSemanticEqual('k8s.io.api.core.v1.PodTemplateSpec', template, oldSpec.template ?? {})) {
    // kube prints json.Marshal of the internal core.PodTemplateSpec (untagged, every field); not written yet.
    errs.push(invalid('spec.template', goJson('core.PodTemplateSpec{...}'), FIELD_IMMUTABLE));
  }
  for (const key of ['completionMode', 'podFailurePolicy', 'backoffLimitPerIndex', 'managedBy', 'successPolicy']) {
    if (!jsonEqual(spec[key] ?? null, oldSpec[key] ?? null)) errs.push(invalid(`spec.${key}`, spec[key] ?? null, FIELD_IMMUTABLE));
  }
  return errs;
}

const CONCURRENCY = ['Allow', 'Forbid', 'Replace'];

export function validateCronJob(cj: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(obj(cj.metadata).name);
  // Job names get an 11 character suffix; they must stay DNS-1035 labels.
  if (name.length > 52) errs.push(invalid('metadata.name', name, 'must be no more than 52 characters'));
  const spec = obj(cj.spec);
  const schedule = str(spec.schedule);
  if (!schedule) errs.push(required('spec.schedule'));
  else {
    const e = cronScheduleError(schedule);
    if (e) errs.push(invalid('spec.schedule', schedule, e));
    if (schedule.includes('TZ')) errs.push(invalid('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  }
  if (has(spec.timeZone)) {
    const tz = str(spec.timeZone);
    if (tz === 'Local') errs.push(invalid('spec.timeZone', tz, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
    else if (!/^[A-Za-z\.\-_0-9+]{1,14}(\/[A-Za-z\.\-_0-9+]{1,14})*$/.test(tz)) errs.push(invalid('spec.timeZone', tz, 'unknown time zone ' + tz));
    else if (!isKnownTimeZone(tz)) errs.push(invalid('spec.timeZone', tz, 'unknown time zone ' + tz));
  }
  const cp = str(spec.concurrencyPolicy);
  if (!cp) errs.push(required('spec.concurrencyPolicy'));
  else if (!CONCURRENCY.includes(cp)) errs.push(notSupported('spec.concurrencyPolicy', cp, CONCURRENCY));
  for (const key of ['startingDeadlineSeconds', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit']) errs.push(...nonNegative(spec[key], `spec.${key}`));
  const jobSpec = obj(obj(spec.jobTemplate).spec);
  errs.push(...validateJobSpec(jobSpec, 'spec.jobTemplate.spec', true));
  if (has(jobSpec.selector)) errs.push(invalid('spec.jobTemplate.spec.selector', labelSelectorRepr(jobSpec.selector), '`selector` will be auto-generated'));
  if (jobSpec.manualSelector === true) errs.push(notSupported('spec.jobTemplate.spec.manualSelector', true, ['nil', 'false']));
  return errs;
}

export function validateCronJobUpdate(cj: Obj, old: Obj): FieldError[] {
  void old;
  return validateCronJob(cj);
}

