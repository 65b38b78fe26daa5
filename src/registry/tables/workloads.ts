import type { KubeObject } from '../../machinery/object.js';
import { hpaV1ToV2 } from '../conversions/hpa.js';
import { ageCol, col, containerCols, doc, nameCol, printer } from './columns.js';
import { type TableConvertor } from '../../codec/table-convertor.js';
import {
  age,
  containerCells,
  firstConditionTrue,
  formatLabelSelector,
  formatLabels,
  groupQualified,
  humanDuration,
  isDeleting,
  labelSelectorString,
  nameOf,
  printBoolPtr,
  since,
  timeOf,
} from './format.js';
import { quantityPtrString } from '../../api/quantity.js';
import { int, list, optRec, present, rec, recs, str, type JsonRecord } from './values.js';

/**
 * Workload printers: replication controllers, replica sets, deployments,
 * stateful sets, daemon sets, jobs, cron jobs, controller revisions,
 * horizontal pod autoscalers and pod disruption budgets.
 */

const CORE = 'io.k8s.api.core.v1';
const APPS = 'io.k8s.api.apps.v1';
const BATCH = 'io.k8s.api.batch.v1';
const HPA = 'io.k8s.api.autoscaling.v2';
const READY_DESCRIPTION = 'Number of the pod with ready state';
const GO_ZERO_TIME = -62135596800000; // 0001-01-01T00:00:00Z

/** spec.replicas after defaulting: the v1 workload types default it to 1. */
function replicas(spec: JsonRecord): number {
  return present(spec.replicas) ? int(spec.replicas) : 1;
}

function templateContainers(spec: JsonRecord): [string, string] {
  return containerCells(rec(rec(spec.template).spec).containers);
}

export const replicationControllerTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('Desired', 'integer', doc(`${CORE}.ReplicationControllerSpec`, 'replicas')),
    col('Current', 'integer', doc(`${CORE}.ReplicationControllerStatus`, 'replicas')),
    col('Ready', 'integer', doc(`${CORE}.ReplicationControllerStatus`, 'readyReplicas')),
    ageCol(),
    ...containerCols(),
    col('Selector', 'string', doc(`${CORE}.ReplicationControllerSpec`, 'selector'), 1),
  ],
  (o, now) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    const [names, images] = templateContainers(spec);
    return [nameOf(o), replicas(spec), int(status.replicas), int(status.readyReplicas), age(o, now), names, images, formatLabels(spec.selector)];
  },
);

export const replicaSetTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('Desired', 'integer', doc(`${APPS}.ReplicaSetSpec`, 'replicas')),
    col('Current', 'integer', doc(`${APPS}.ReplicaSetStatus`, 'replicas')),
    col('Ready', 'integer', doc(`${APPS}.ReplicaSetStatus`, 'readyReplicas')),
    ageCol(),
    ...containerCols(),
    col('Selector', 'string', doc(`${APPS}.ReplicaSetSpec`, 'selector'), 1),
  ],
  (o, now) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    const [names, images] = templateContainers(spec);
    return [nameOf(o), replicas(spec), int(status.replicas), int(status.readyReplicas), age(o, now), names, images, formatLabelSelector(spec.selector)];
  },
);

export const deploymentTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('Ready', 'string', READY_DESCRIPTION),
    col('Up-to-date', 'string', doc(`${APPS}.DeploymentStatus`, 'updatedReplicas')),
    col('Available', 'string', doc(`${APPS}.DeploymentStatus`, 'availableReplicas')),
    ageCol(),
    ...containerCols(),
    col('Selector', 'string', doc(`${APPS}.DeploymentSpec`, 'selector'), 1),
  ],
  (o, now) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    const [names, images] = templateContainers(spec);
    // Unlike the other workloads, an empty selector shows as "" here (LabelSelectorAsSelector().String()).
    const selector = labelSelectorString(spec.selector) ?? '<invalid>';
    return [
      nameOf(o),
      `${int(status.readyReplicas)}/${replicas(spec)}`,
      int(status.updatedReplicas),
      int(status.availableReplicas),
      age(o, now),
      names,
      images,
      selector,
    ];
  },
);

export const statefulSetTable: TableConvertor = printer(
  () => [nameCol(), col('Ready', 'string', READY_DESCRIPTION), ageCol(), ...containerCols()],
  (o, now) => {
    const spec = rec(o.spec);
    const [names, images] = templateContainers(spec);
    return [nameOf(o), `${int(rec(o.status).readyReplicas)}/${replicas(spec)}`, age(o, now), names, images];
  },
);

export const daemonSetTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('Desired', 'integer', doc(`${APPS}.DaemonSetStatus`, 'desiredNumberScheduled')),
    col('Current', 'integer', doc(`${APPS}.DaemonSetStatus`, 'currentNumberScheduled')),
    col('Ready', 'integer', doc(`${APPS}.DaemonSetStatus`, 'numberReady')),
    col('Up-to-date', 'integer', doc(`${APPS}.DaemonSetStatus`, 'updatedNumberScheduled')),
    col('Available', 'integer', doc(`${APPS}.DaemonSetStatus`, 'numberAvailable')),
    col('Node Selector', 'string', doc(`${CORE}.PodSpec`, 'nodeSelector')),
    ageCol(),
    ...containerCols(),
    col('Selector', 'string', doc(`${APPS}.DaemonSetSpec`, 'selector'), 1),
  ],
  (o, now) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    const [names, images] = templateContainers(spec);
    return [
      nameOf(o),
      int(status.desiredNumberScheduled),
      int(status.currentNumberScheduled),
      int(status.numberReady),
      int(status.updatedNumberScheduled),
      int(status.numberAvailable),
      formatLabels(rec(rec(spec.template).spec).nodeSelector),
      age(o, now),
      names,
      images,
      formatLabelSelector(spec.selector),
    ];
  },
);

/** The Job STATUS column, conditions checked in kube's order of precedence. */
function jobStatus(job: KubeObject): string {
  const conditions = rec(job.status).conditions;
  if (firstConditionTrue(conditions, 'Complete')) return 'Complete';
  if (firstConditionTrue(conditions, 'Failed')) return 'Failed';
  if (isDeleting(job)) return 'Terminating';
  if (firstConditionTrue(conditions, 'Suspended')) return 'Suspended';
  if (firstConditionTrue(conditions, 'FailureTarget')) return 'FailureTarget';
  if (firstConditionTrue(conditions, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

function jobCompletions(spec: JsonRecord, status: JsonRecord): string {
  const succeeded = int(status.succeeded);
  if (present(spec.completions)) return `${succeeded}/${int(spec.completions)}`;
  const parallelism = int(spec.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(status: JsonRecord, now: number): string {
  if (!present(status.startTime)) return '';
  // A start time that does not parse counts as Go's zero time.
  const start = timeOf(status.startTime) ?? GO_ZERO_TIME;
  if (!present(status.completionTime)) return humanDuration(now - start);
  const end = timeOf(status.completionTime) ?? GO_ZERO_TIME;
  return humanDuration(end - start);
}

export const jobTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('Status', 'string', 'Status of the job.'),
    col('Completions', 'string', doc(`${BATCH}.JobStatus`, 'succeeded')),
    col('Duration', 'string', 'Time required to complete the job.'),
    ageCol(),
    ...containerCols(),
    col('Selector', 'string', doc(`${BATCH}.JobSpec`, 'selector'), 1),
  ],
  (o, now) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    const [names, images] = templateContainers(spec);
    return [nameOf(o), jobStatus(o), jobCompletions(spec, status), jobDuration(status, now), age(o, now), names, images, formatLabelSelector(spec.selector)];
  },
);

export const cronJobTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('Schedule', 'string', doc(`${BATCH}.CronJobSpec`, 'schedule')),
    col('Timezone', 'string', doc(`${BATCH}.CronJobSpec`, 'timeZone')),
    col('Suspend', 'boolean', doc(`${BATCH}.CronJobSpec`, 'suspend')),
    col('Active', 'integer', doc(`${BATCH}.CronJobStatus`, 'active')),
    col('Last Schedule', 'string', doc(`${BATCH}.CronJobStatus`, 'lastScheduleTime')),
    ageCol(),
    ...containerCols(),
    col('Selector', 'string', doc(`${BATCH}.JobSpec`, 'selector'), 1),
  ],
  (o, now) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    const jobSpec = rec(rec(spec.jobTemplate).spec);
    const [names, images] = templateContainers(jobSpec);
    const lastSchedule = present(status.lastScheduleTime) ? since(status.lastScheduleTime, now) : '<none>';
    const timeZone = typeof spec.timeZone === 'string' ? spec.timeZone : '<none>';
    return [
      nameOf(o),
      str(spec.schedule),
      timeZone,
      printBoolPtr(spec.suspend),
      list(status.active).length,
      lastSchedule,
      age(o, now),
      names,
      images,
      formatLabelSelector(jobSpec.selector),
    ];
  },
);

/** formatResourceName of the controller owner reference ("<none>" without one). */
function controllerName(obj: KubeObject): string {
  const owner = (obj.metadata?.ownerReferences ?? []).find((r) => r.controller === true);
  if (!owner) return '<none>';
  const apiVersion = str(owner.apiVersion);
  const parts = apiVersion.split('/');
  // schema.ParseGroupVersion fails on more than one slash, and so does the request.
  if (parts.length > 2) throw new Error(`unexpected GroupVersion string: ${apiVersion}`);
  const group = parts.length === 2 ? (parts[0] ?? '') : '';
  const kind = str(owner.kind);
  if (kind === '' && group === '') return str(owner.name);
  return `${groupQualified(kind, group).toLowerCase()}/${str(owner.name)}`;
}

export const controllerRevisionTable: TableConvertor = printer(
  () => [nameCol(), col('Controller', 'string', 'Controller of the object'), col('Revision', 'string', doc(`${APPS}.ControllerRevision`, 'revision')), ageCol()],
  (o, now) => [nameOf(o), controllerName(o), int(o.revision), age(o, now)],
);

// --------------------------------------------------------------- autoscaling

function averageOrValue(target: JsonRecord, current: JsonRecord | undefined): string {
  if (present(target.averageValue)) {
    const cur = current && present(rec(current.current).averageValue) ? quantityPtrString(rec(current.current).averageValue) : '<unknown>';
    return `${cur}/${quantityPtrString(target.averageValue)} (avg)`;
  }
  const cur = current ? quantityPtrString(rec(current.current).value) : '<unknown>';
  return `${cur}/${quantityPtrString(target.value)}`;
}

function resourceMetric(source: JsonRecord, current: JsonRecord | undefined): string {
  const target = rec(source.target);
  const name = str(source.name);
  if (present(target.averageValue)) {
    const cur = current ? quantityPtrString(rec(current.current).averageValue) : '<unknown>';
    return `${name}: ${cur}/${quantityPtrString(target.averageValue)}`;
  }
  const utilization = current ? rec(current.current).averageUtilization : undefined;
  const cur = present(utilization) ? `${int(utilization)}%` : '<unknown>';
  const want = present(target.averageUtilization) ? `${int(target.averageUtilization)}%` : '<auto>';
  return `${name}: ${cur}/${want}`;
}

/** formatHPAMetrics: each spec metric against the status metric at the same index. */
function formatHPAMetrics(specs: JsonRecord[], statuses: JsonRecord[]): string {
  if (specs.length === 0) return '<none>';
  const shown = specs.map((m, i) => {
    const st = statuses[i];
    switch (m.type) {
      case 'External':
        return averageOrValue(rec(rec(m.external).target), st ? optRec(st.external) : undefined);
      case 'Pods': {
        const pods = st ? optRec(st.pods) : undefined;
        const cur = pods ? quantityPtrString(rec(pods.current).averageValue) : '<unknown>';
        return `${cur}/${quantityPtrString(rec(rec(m.pods).target).averageValue)}`;
      }
      case 'Object':
        return averageOrValue(rec(rec(m.object).target), st ? optRec(st.object) : undefined);
      case 'Resource':
        return resourceMetric(rec(m.resource), st ? optRec(st.resource) : undefined);
      case 'ContainerResource':
        return resourceMetric(rec(m.containerResource), st ? optRec(st.containerResource) : undefined);
      default:
        return '<unknown type>';
    }
  });
  if (shown.length > 2) return `${shown.slice(0, 2).join(', ')} + ${shown.length - 2} more...`;
  return shown.join(', ');
}

export const horizontalPodAutoscalerTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('Reference', 'string', doc(`${HPA}.HorizontalPodAutoscalerSpec`, 'scaleTargetRef')),
    col('Targets', 'string', doc(`${HPA}.HorizontalPodAutoscalerSpec`, 'metrics')),
    col('MinPods', 'string', doc(`${HPA}.HorizontalPodAutoscalerSpec`, 'minReplicas')),
    col('MaxPods', 'string', doc(`${HPA}.HorizontalPodAutoscalerSpec`, 'maxReplicas')),
    col('Replicas', 'string', doc(`${HPA}.HorizontalPodAutoscalerStatus`, 'currentReplicas')),
    ageCol(),
  ],
  (served, now) => {
    // kube prints the internal (autoscaling/v2-shaped) object whatever version was asked for.
    const o = served.apiVersion === 'autoscaling/v1' ? hpaV1ToV2(served) : served;
    const spec = rec(o.spec);
    const status = rec(o.status);
    const ref = rec(spec.scaleTargetRef);
    const minPods = present(spec.minReplicas) ? String(int(spec.minReplicas)) : '<unset>';
    return [
      nameOf(o),
      `${str(ref.kind)}/${str(ref.name)}`,
      formatHPAMetrics(recs(spec.metrics), recs(status.currentMetrics)),
      minPods,
      int(spec.maxReplicas),
      int(status.currentReplicas),
      age(o, now),
    ];
  },
);

/** intstr.IntOrString.String(). */
function intOrString(v: unknown): string {
  return typeof v === 'number' ? String(Math.trunc(v)) : str(v);
}

export const podDisruptionBudgetTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('Min Available', 'string', 'The minimum number of pods that must be available.'),
    col('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    col('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
    ageCol(),
  ],
  (o, now) => {
    const spec = rec(o.spec);
    const minAvailable = present(spec.minAvailable) ? intOrString(spec.minAvailable) : 'N/A';
    const maxUnavailable = present(spec.maxUnavailable) ? intOrString(spec.maxUnavailable) : 'N/A';
    return [nameOf(o), minAvailable, maxUnavailable, int(rec(o.status).disruptionsAllowed), age(o, now)];
  },
);
