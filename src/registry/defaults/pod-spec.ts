import { defaultPullPolicy } from './image.js';
import {
  defaultNumber,
  defaultPtr,
  defaultString,
  ensureObject,
  isEmptyString,
  isNil,
  isObject,
  objectAt,
  objectsAt,
  type JsonObject,
} from './util.js';
import { defaultPvcSpec } from './pvc.js';

/**
 * core/v1 pod spec defaulting: SetDefaults_PodSpec plus everything the
 * generated defaulter walks inside a PodSpec (volumes, containers, probes,
 * env, ports). It runs for Pods and for every PodTemplateSpec (PodTemplates,
 * ReplicationControllers, Deployments, ReplicaSets, StatefulSets, DaemonSets,
 * Jobs and CronJobs). The Pod-only part (SetDefaults_Pod) is in pod.ts:
 * kube keeps it out of templates so that adding pod defaults never changes a
 * template's hash and rolls every workload.
 */

export function defaultPodSpec(spec: JsonObject): void {
  defaultString(spec, 'dnsPolicy', 'ClusterFirst');
  defaultString(spec, 'restartPolicy', 'Always');
  defaultPtr(spec, 'securityContext', {});
  defaultPtr(spec, 'terminationGracePeriodSeconds', 30);
  defaultString(spec, 'schedulerName', 'default-scheduler');
  syncServiceAccount(spec);

  for (const volume of objectsAt(spec, 'volumes')) defaultVolume(volume);
  for (const c of objectsAt(spec, 'initContainers')) defaultContainer(c);
  for (const c of objectsAt(spec, 'containers')) defaultContainer(c);
  for (const c of objectsAt(spec, 'ephemeralContainers')) defaultContainer(c);
}

/**
 * serviceAccount is the deprecated alias of serviceAccountName. The v1 to
 * internal conversion takes the alias when the name is empty, and the way back
 * writes the name into both, so clients read them equal.
 */
function syncServiceAccount(spec: JsonObject): void {
  const name = spec.serviceAccountName;
  const alias = spec.serviceAccount;
  const effective = !isEmptyString(name) ? name : alias;
  if (typeof effective === 'string' && effective !== '') {
    spec.serviceAccountName = effective;
    spec.serviceAccount = effective;
  }
}

function defaultContainer(c: JsonObject): void {
  if (isEmptyString(c.imagePullPolicy)) c.imagePullPolicy = defaultPullPolicy(c.image);
  defaultString(c, 'terminationMessagePath', '/dev/termination-log');
  defaultString(c, 'terminationMessagePolicy', 'File');
  for (const port of objectsAt(c, 'ports')) defaultString(port, 'protocol', 'TCP');
  for (const env of objectsAt(c, 'env')) {
    const fieldRef = objectAt(objectAt(env, 'valueFrom') ?? {}, 'fieldRef');
    if (fieldRef) defaultObjectFieldSelector(fieldRef);
  }
  for (const key of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
    const probe = objectAt(c, key);
    if (probe) defaultProbe(probe);
  }
  const lifecycle = objectAt(c, 'lifecycle');
  if (lifecycle) {
    for (const key of ['postStart', 'preStop']) {
      const httpGet = objectAt(objectAt(lifecycle, key) ?? {}, 'httpGet');
      if (httpGet) defaultHttpGet(httpGet);
    }
  }
}

function defaultProbe(probe: JsonObject): void {
  defaultNumber(probe, 'timeoutSeconds', 1);
  defaultNumber(probe, 'periodSeconds', 10);
  defaultNumber(probe, 'successThreshold', 1);
  defaultNumber(probe, 'failureThreshold', 3);
  const httpGet = objectAt(probe, 'httpGet');
  if (httpGet) defaultHttpGet(httpGet);
  // grpc.service is a *string with a declarative default of "".
  const grpc = objectAt(probe, 'grpc');
  if (grpc) defaultPtr(grpc, 'service', '');
}

function defaultHttpGet(action: JsonObject): void {
  defaultString(action, 'path', '/');
  defaultString(action, 'scheme', 'HTTP');
}

export function defaultObjectFieldSelector(sel: JsonObject): void {
  defaultString(sel, 'apiVersion', 'v1');
}

/** The VolumeSource members: a volume naming none of them becomes an emptyDir. */
const VOLUME_SOURCES = [
  'hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi',
  'glusterfs', 'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc',
  'azureFile', 'configMap', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected',
  'portworxVolume', 'scaleIO', 'storageos', 'csi', 'ephemeral', 'image',
];

const FILE_MODE_DEFAULT = 0o644; // 420: Secret/ConfigMap/DownwardAPI/Projected defaultMode

export function defaultVolume(volume: JsonObject): void {
  if (VOLUME_SOURCES.every((k) => isNil(volume[k]))) volume.emptyDir = {};

  const image = objectAt(volume, 'image');
  if (image && isEmptyString(image.pullPolicy)) image.pullPolicy = defaultPullPolicy(image.reference);

  defaultPersistentVolumeSources(volume);
  const secret = objectAt(volume, 'secret');
  if (secret) defaultPtr(secret, 'defaultMode', FILE_MODE_DEFAULT);
  const configMap = objectAt(volume, 'configMap');
  if (configMap) defaultPtr(configMap, 'defaultMode', FILE_MODE_DEFAULT);
  const downwardAPI = objectAt(volume, 'downwardAPI');
  if (downwardAPI) {
    defaultPtr(downwardAPI, 'defaultMode', FILE_MODE_DEFAULT);
    defaultDownwardItems(downwardAPI);
  }
  const projected = objectAt(volume, 'projected');
  if (projected) {
    defaultPtr(projected, 'defaultMode', FILE_MODE_DEFAULT);
    for (const source of objectsAt(projected, 'sources')) {
      const dapi = objectAt(source, 'downwardAPI');
      if (dapi) defaultDownwardItems(dapi);
      const token = objectAt(source, 'serviceAccountToken');
      if (token) defaultPtr(token, 'expirationSeconds', 3600);
    }
  }
  const ephemeral = objectAt(volume, 'ephemeral');
  const claimTemplate = ephemeral && objectAt(ephemeral, 'volumeClaimTemplate');
  if (claimTemplate) defaultPvcSpec(ensureObject(claimTemplate, 'spec'));
}

/**
 * Defaults of the volume sources a pod's Volume shares with a
 * PersistentVolumeSpec (SetDefaults_HostPathVolumeSource, _ISCSI..., _RBD...,
 * _AzureDisk..., _ScaleIO...).
 */
export function defaultPersistentVolumeSources(source: JsonObject): void {
  const hostPath = objectAt(source, 'hostPath');
  if (hostPath) defaultPtr(hostPath, 'type', '');
  const iscsi = objectAt(source, 'iscsi');
  if (iscsi) defaultIscsi(iscsi);
  const rbd = objectAt(source, 'rbd');
  if (rbd) defaultRbd(rbd);
  const azureDisk = objectAt(source, 'azureDisk');
  if (azureDisk) defaultAzureDisk(azureDisk);
  const scaleIO = objectAt(source, 'scaleIO');
  if (scaleIO) defaultScaleIO(scaleIO);
}

function defaultDownwardItems(source: JsonObject): void {
  for (const item of objectsAt(source, 'items')) {
    const fieldRef = objectAt(item, 'fieldRef');
    if (fieldRef) defaultObjectFieldSelector(fieldRef);
  }
}

// The legacy in-tree volume plugins keep their declarative defaults; they are
// shared with PersistentVolume sources.
function defaultIscsi(v: JsonObject): void {
  defaultString(v, 'iscsiInterface', 'default');
}

function defaultRbd(v: JsonObject): void {
  defaultString(v, 'pool', 'rbd');
  defaultString(v, 'user', 'admin');
  defaultString(v, 'keyring', '/etc/ceph/keyring');
}

function defaultAzureDisk(v: JsonObject): void {
  defaultPtr(v, 'cachingMode', 'ReadWrite');
  defaultPtr(v, 'kind', 'Shared');
  defaultPtr(v, 'fsType', 'ext4');
  defaultPtr(v, 'readOnly', false);
}

function defaultScaleIO(v: JsonObject): void {
  defaultString(v, 'storageMode', 'ThinProvisioned');
  defaultString(v, 'fsType', 'xfs');
}

/** A PodTemplateSpec: only its spec has defaults. */
export function defaultPodTemplate(template: unknown): void {
  if (!isObject(template)) return;
  defaultPodSpec(ensureObject(template, 'spec'));
}
