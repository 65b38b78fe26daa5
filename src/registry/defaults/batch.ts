import type { KubeObject } from '../../machinery/object.js';
import { defaultPodTemplate } from './pod-spec.js';
import { defaultPtr, defaultString, ensureObject, isEmptyCollection, isNil, isObject, objectAt, objectsAt, type JsonObject } from './util.js';

/** batch/v1 defaulting and the Job registry's generated selector. */

const INT32_MAX = 2147483647;

export function defaultJob(job: KubeObject): void {
  const spec = ensureObject(job, 'spec');
  defaultJobSpec(spec);
  // A Job without labels takes its template's (kube shares the map, so the
  // selector labels PrepareForCreate adds to the template show up here too:
  // see prepareJobForCreate).
  const templateLabels = objectAt(objectAt(objectAt(spec, 'template') ?? {}, 'metadata') ?? {}, 'labels');
  if (templateLabels && isEmptyCollection(job.metadata?.labels)) {
    (job.metadata ??= {}).labels = { ...(templateLabels as Record<string, string>) };
  }
}

/** SetDefaults_Job's spec part; CronJob job templates get only the pod template defaults. */
function defaultJobSpec(spec: JsonObject): void {
  if (isNil(spec.completions) && isNil(spec.parallelism)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  defaultPtr(spec, 'parallelism', 1);
  // With a per-index backoff limit the global limit is effectively unbounded.
  if (isNil(spec.backoffLimit)) spec.backoffLimit = isNil(spec.backoffLimitPerIndex) ? 6 : INT32_MAX;
  defaultPtr(spec, 'completionMode', 'NonIndexed');
  defaultPtr(spec, 'suspend', false);
  if (isNil(spec.podReplacementPolicy)) spec.podReplacementPolicy = isNil(spec.podFailurePolicy) ? 'TerminatingOrFailed' : 'Failed';
  defaultPtr(spec, 'manualSelector', false);
  defaultPodFailurePolicy(spec);
  defaultPodTemplate(ensureObject(spec, 'template'));
}

function defaultPodFailurePolicy(spec: JsonObject): void {
  const policy = objectAt(spec, 'podFailurePolicy');
  if (!policy) return;
  for (const rule of objectsAt(policy, 'rules')) {
    for (const pattern of objectsAt(rule, 'onPodConditions')) defaultString(pattern, 'status', 'True');
  }
}

export function defaultCronJob(cj: KubeObject): void {
  const spec = ensureObject(cj, 'spec');
  defaultString(spec, 'concurrencyPolicy', 'Allow');
  defaultPtr(spec, 'suspend', false);
  defaultPtr(spec, 'successfulJobsHistoryLimit', 3);
  defaultPtr(spec, 'failedJobsHistoryLimit', 1);
  const jobSpec = ensureObject(ensureObject(spec, 'jobTemplate'), 'spec');
  defaultPodFailurePolicy(jobSpec);
  defaultPodTemplate(ensureObject(jobSpec, 'template'));
}

export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
export const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
export const LEGACY_JOB_NAME_LABEL = 'job-name';
export const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';

/**
 * The Job registry's PrepareForCreate, after metadata.name and metadata.uid
 * are set: unless spec.manualSelector, the template gets the job-name and
 * controller-uid labels (prefixed and legacy; values the user already set are
 * kept, validation rejects conflicts) and the selector matches the prefixed
 * controller-uid. kube's defaulting shares one map between the Job's labels
 * and its template's when the Job had none, and every read defaults again, so
 * such a Job is read back with the generated labels as well; this does the
 * same once, here.
 */
export function prepareJobForCreate(job: KubeObject): void {
  const spec = ensureObject(job, 'spec');
  if (spec.manualSelector === true) return;
  const name = job.metadata?.name ?? '';
  const uid = job.metadata?.uid ?? '';
  const template = ensureObject(spec, 'template');
  const tmeta = ensureObject(template, 'metadata');
  const labels = (isObject(tmeta.labels) ? tmeta.labels : (tmeta.labels = {})) as Record<string, string>;
  const jobLabelsWereTemplates = job.metadata?.labels !== undefined && sameLabels(job.metadata.labels, labels);
  for (const key of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) if (!(key in labels)) labels[key] = name;
  for (const key of [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL]) if (!(key in labels)) labels[key] = uid;
  const selector = ensureObject(spec, 'selector');
  const matchLabels = ensureObject(selector, 'matchLabels') as Record<string, unknown>;
  if (!(CONTROLLER_UID_LABEL in matchLabels)) matchLabels[CONTROLLER_UID_LABEL] = uid;
  if (jobLabelsWereTemplates || isEmptyCollection(job.metadata?.labels)) {
    // An empty template label map was nil before: the Job's labels stay unset then in kube,
    // until a read re-defaults them from the template, which now has labels.
    (job.metadata ??= {}).labels = { ...labels };
  }
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const ak = Object.keys(a);
  return ak.length === Object.keys(b).length && ak.every((k) => a[k] === b[k]);
}
