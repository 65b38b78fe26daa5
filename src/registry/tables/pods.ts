import type { KubeObject } from '../../machinery/object.js';
import { ageCol, col, doc, nameCol, printer } from './columns.js';
import { type TableConvertor, type TableRowCondition } from '../../codec/table-convertor.js';
import { age, containerCells, formatLabels, humanDuration, isDeleting, nameOf, timeOf } from './format.js';
import { bool, int, optRec, rec, recs, str, type JsonRecord } from './values.js';

/** printPod and printPodTemplate (pkg/printers/internalversion). */

const CORE = 'io.k8s.api.core.v1';

const POD_SUCCEEDED: TableRowCondition[] = [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
const POD_FAILED: TableRowCondition[] = [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];

/** The later of two restart times (Time.Before, where a zero time never wins). */
function later(current: number | undefined, candidate: number | undefined): number | undefined {
  if (candidate === undefined) return current;
  return current === undefined || candidate > current ? candidate : current;
}

function lastTerminationFinished(status: JsonRecord): number | undefined {
  const terminated = optRec(rec(status.lastState).terminated);
  return terminated ? timeOf(terminated.finishedAt) : undefined;
}

/** The reason a terminated container shows: its reason, else Signal:n, else ExitCode:n. */
function terminatedReason(terminated: JsonRecord, prefix: string): string {
  if (str(terminated.reason) !== '') return prefix + str(terminated.reason);
  const signal = int(terminated.signal);
  return signal !== 0 ? `${prefix}Signal:${signal}` : `${prefix}ExitCode:${int(terminated.exitCode)}`;
}

interface PodSummary {
  ready: number;
  total: number;
  reason: string;
  restarts: number;
  lastRestart: number | undefined;
}

function summarize(pod: KubeObject): PodSummary {
  const spec = rec(pod.spec);
  const status = rec(pod.status);
  const conditions = recs(status.conditions);
  const phase = str(status.phase);
  let reason = str(status.reason) || phase;
  for (const c of conditions) {
    if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';
  }

  let total = recs(spec.containers).length;
  const initSpecs = recs(spec.initContainers);
  // By name, as the printer's map; a sidecar is an init container with restartPolicy Always.
  const sidecars = new Map<string, boolean>();
  for (const c of initSpecs) {
    const isSidecar = c.restartPolicy === 'Always';
    sidecars.set(str(c.name), isSidecar);
    if (isSidecar) total++;
  }

  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart: number | undefined;
  let lastSidecarRestart: number | undefined;
  let initializing = false;
  const initStatuses = recs(status.initContainerStatuses);
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i] ?? {};
    const finished = lastTerminationFinished(cs);
    restarts += int(cs.restartCount);
    lastRestart = later(lastRestart, finished);
    const isSidecar = sidecars.get(str(cs.name)) === true;
    if (isSidecar) {
      sidecarRestarts += int(cs.restartCount);
      lastSidecarRestart = later(lastSidecarRestart, finished);
    }
    const state = rec(cs.state);
    const terminated = optRec(state.terminated);
    const waiting = optRec(state.waiting);
    if (terminated && int(terminated.exitCode) === 0) continue;
    if (isSidecar && cs.started === true) {
      if (bool(cs.ready)) ready++;
      continue;
    }
    if (terminated) reason = terminatedReason(terminated, 'Init:');
    else if (waiting && str(waiting.reason) !== '' && waiting.reason !== 'PodInitializing') reason = `Init:${str(waiting.reason)}`;
    else reason = `Init:${i}/${initSpecs.length}`;
    initializing = true;
    break;
  }

  const initialized = conditions.find((c) => c.type === 'Initialized');
  if (!initializing || initialized?.status === 'True') {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    let errorReason = '';
    const statuses = recs(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i] ?? {};
      restarts += int(cs.restartCount);
      lastRestart = later(lastRestart, lastTerminationFinished(cs));
      const state = rec(cs.state);
      const waiting = optRec(state.waiting);
      const terminated = optRec(state.terminated);
      if (waiting && str(waiting.reason) !== '') {
        reason = str(waiting.reason);
      } else if (terminated) {
        reason = terminatedReason(terminated, '');
        if (int(terminated.exitCode) !== 0) errorReason = reason;
      } else if (bool(cs.ready) && optRec(state.running)) {
        hasRunning = true;
        ready++;
      }
    }
    // A Completed container beside running ones: the pod is Running when Ready,
    // shows a failed container's reason if there is one, and NotReady otherwise.
    if (reason === 'Completed') {
      if (hasRunning && firstReadyTrue(conditions)) reason = 'Running';
      else if (errorReason !== '') reason = errorReason;
      else if (hasRunning) reason = 'NotReady';
    }
  }

  if (isDeleting(pod) && status.reason === 'NodeLost') reason = 'Unknown';
  else if (isDeleting(pod) && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';
  return { ready, total, reason, restarts, lastRestart };
}

/** hasPodReadyCondition: any Ready condition with status True. */
function firstReadyTrue(conditions: JsonRecord[]): boolean {
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

function podIP(status: JsonRecord): string {
  // v1 -> internal conversion fills podIPs from a lone podIP.
  const ips = recs(status.podIPs);
  const first = ips.length > 0 ? str(ips[0]?.ip) : str(status.podIP);
  return first || '<none>';
}

function readinessGates(spec: JsonRecord, status: JsonRecord): string {
  const gates = recs(spec.readinessGates);
  if (gates.length === 0) return '<none>';
  const conditions = recs(status.conditions);
  const met = gates.filter((g) => conditions.find((c) => c.type === g.conditionType)?.status === 'True').length;
  return `${met}/${gates.length}`;
}

function podCells(pod: KubeObject, now: number): unknown[] {
  const s = summarize(pod);
  const spec = rec(pod.spec);
  const status = rec(pod.status);
  const restarts = s.restarts !== 0 && s.lastRestart !== undefined ? `${s.restarts} (${humanDuration(now - s.lastRestart)} ago)` : String(s.restarts);
  return [
    nameOf(pod),
    `${s.ready}/${s.total}`,
    s.reason,
    restarts,
    age(pod, now),
    podIP(status),
    str(spec.nodeName) || '<none>',
    str(status.nominatedNodeName) || '<none>',
    readinessGates(spec, status),
  ];
}

export const podTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    col('Status', 'string', 'The aggregate status of the containers in this pod.'),
    col('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
    ageCol(),
    col('IP', 'string', doc(`${CORE}.PodStatus`, 'podIP'), 1),
    col('Node', 'string', doc(`${CORE}.PodSpec`, 'nodeName'), 1),
    col('Nominated Node', 'string', doc(`${CORE}.PodStatus`, 'nominatedNodeName'), 1),
    col('Readiness Gates', 'string', doc(`${CORE}.PodSpec`, 'readinessGates'), 1),
  ],
  podCells,
  {
    conditions: (pod) => {
      const phase = rec(pod.status).phase;
      return phase === 'Succeeded' ? POD_SUCCEEDED : phase === 'Failed' ? POD_FAILED : undefined;
    },
  },
);

export const podTemplateTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('Containers', 'string', 'Names of each container in the template.'),
    col('Images', 'string', 'Images referenced by each container in the template.'),
    col('Pod Labels', 'string', 'The labels for the pod template.'),
  ],
  (o) => {
    const template = rec(o.template);
    const [names, images] = containerCells(rec(template.spec).containers);
    return [nameOf(o), names, images, formatLabels(rec(template.metadata).labels)];
  },
);

