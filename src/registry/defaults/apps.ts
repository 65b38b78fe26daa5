import type { KubeObject } from '../../machinery/object.js';
import { defaultPodTemplate } from './pod-spec.js';
import { defaultPvcSpec } from './pvc.js';
import { defaultPtr, defaultString, ensureObject, isEmptyString, isNil, objectAt, objectsAt } from './util.js';

/** apps/v1 defaulting (pkg/apis/apps/v1/defaults.go and the generated walk into pod templates). */

export function defaultDeployment(obj: KubeObject): void {
  const spec = ensureObject(obj, 'spec');
  defaultPtr(spec, 'replicas', 1);
  const strategy = ensureObject(spec, 'strategy');
  defaultString(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const ru = ensureObject(strategy, 'rollingUpdate');
    defaultPtr(ru, 'maxUnavailable', '25%');
    defaultPtr(ru, 'maxSurge', '25%');
  }
  defaultPtr(spec, 'revisionHistoryLimit', 10);
  defaultPtr(spec, 'progressDeadlineSeconds', 600);
  defaultPodTemplate(ensureObject(spec, 'template'));
}

export function defaultReplicaSet(obj: KubeObject): void {
  const spec = ensureObject(obj, 'spec');
  defaultPtr(spec, 'replicas', 1);
  defaultPodTemplate(ensureObject(spec, 'template'));
}

export function defaultDaemonSet(obj: KubeObject): void {
  const spec = ensureObject(obj, 'spec');
  const strategy = ensureObject(spec, 'updateStrategy');
  defaultString(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const ru = ensureObject(strategy, 'rollingUpdate');
    defaultPtr(ru, 'maxUnavailable', 1);
    defaultPtr(ru, 'maxSurge', 0);
  }
  defaultPtr(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplate(ensureObject(spec, 'template'));
}

export function defaultStatefulSet(obj: KubeObject): void {
  const spec = ensureObject(obj, 'spec');
  defaultString(spec, 'podManagementPolicy', 'OrderedReady');
  const strategy = ensureObject(spec, 'updateStrategy');
  if (isEmptyString(strategy.type)) {
    strategy.type = 'RollingUpdate';
    ensureObject(strategy, 'rollingUpdate');
  }
  // A partition is only filled in when rollingUpdate is present.
  const ru = objectAt(strategy, 'rollingUpdate');
  if (strategy.type === 'RollingUpdate' && ru && isNil(ru.partition)) ru.partition = 0;
  const retention = ensureObject(spec, 'persistentVolumeClaimRetentionPolicy');
  defaultString(retention, 'whenDeleted', 'Retain');
  defaultString(retention, 'whenScaled', 'Retain');
  defaultPtr(spec, 'replicas', 1);
  defaultPtr(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplate(ensureObject(spec, 'template'));
  for (const claim of objectsAt(spec, 'volumeClaimTemplates')) {
    // apps/v1 conversion writes apiVersion/kind into each claim template
    // (kept from before 1.17), and the claim gets the PVC defaults, status included.
    claim.apiVersion = 'v1';
    claim.kind = 'PersistentVolumeClaim';
    defaultPvcSpec(ensureObject(claim, 'spec'));
    defaultString(ensureObject(claim, 'status'), 'phase', 'Pending');
  }
}
