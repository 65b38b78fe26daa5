import type { FieldError } from '../../machinery/errors.js';
import { compareQuantities, isWholeQuantity, QUANTITY_FORMAT_ERROR, quantityFromJson, quantitySign, quantityString } from '../../api/quantity.js';
import { validateLabels } from '../validate-meta.js';
import { isDns1123Label, isDns1123Subdomain, isQualifiedName } from '../../machinery/name-validation.js';
import { duplicate, forbidden, has, inclusiveRange, invalid, isObj, list, nonNegative, notFound, notSupported, num, obj, objs, required, str, type Obj } from './field.js';
import { validateLabelName, validateLabelSelector } from './selector.js';

/**
 * PodSpec validation (pkg/apis/core/validation ValidatePodSpec and friends),
 * covering what users commonly hit: container names, images, ports, env,
 * volume names and mounts, resources, probes, restart and DNS policies,
 * grace periods, affinity selectors, tolerations and a few name fields.
 * Validation runs on defaulted objects, so fields kube defaults are expected.
 */

export interface PodSpecOptions {
  /** The spec is a Pod's (not a template's): host ports must equal container ports under hostNetwork. */
  resourceIsPod: boolean;
}

const dnsLabel = (value: string, field: string): FieldError[] => isDns1123Label(value).map((m) => invalid(field, value, m));
const dnsSubdomain = (value: string, field: string): FieldError[] => isDns1123Subdomain(value).map((m) => invalid(field, value, m));

/** Volume names that passed validation, mapped to their volume. */
type VolumeMap = Map<string, Obj>;

const VOLUME_SOURCES = [
  'hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi', 'glusterfs',
  'flocker', 'persistentVolumeClaim', 'rbd', 'cinder', 'cephfs', 'quobyte', 'downwardAPI', 'fc', 'flexVolume', 'configMap',
  'azureFile', 'vsphereVolume', 'photonPersistentDisk', 'portworxVolume', 'azureDisk', 'storageos', 'projected', 'scaleIO',
  'csi', 'ephemeral', 'image',
];

const FILE_MODE_ERROR = 'must be a number between 0 and 0777 (octal), both inclusive';
const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

function validateFileMode(mode: unknown, field: string): FieldError[] {
  if (mode === undefined || mode === null) return [];
  return typeof mode !== 'number' || mode < 0 || mode > 0o777 ? [invalid(field, mode, FILE_MODE_ERROR)] : [];
}

function validateVolumeSource(vol: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const key of VOLUME_SOURCES) {
    if (!has(vol[key])) continue;
    if (count > 0) {
      // kube misspells this one path in the message.
      const field = key === 'downwardAPI' ? `${path}.downwarAPI` : `${path}.${key}`;
      errs.push(forbidden(field, 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    const src = obj(vol[key]);
    const p = `${path}.${key}`;
    switch (key) {
      case 'hostPath':
        if (!str(src.path)) errs.push(required(`${p}.path`));
        else {
          errs.push(...noBacksteps(str(src.path), `${p}.path`));
          if (has(src.type) && !HOST_PATH_TYPES.includes(str(src.type))) errs.push(notSupported(`${p}.type`, src.type, HOST_PATH_TYPES));
        }
        break;
      case 'secret':
        if (has(src.secretName)) errs.push(...dnsSubdomain(str(src.secretName), `${p}.secretName`));
        errs.push(...validateFileMode(src.defaultMode, `${p}.defaultMode`));
        errs.push(...validateKeyToPaths(src.items, `${p}.items`));
        break;
      case 'configMap':
        if (has(src.name)) errs.push(...dnsSubdomain(str(src.name), `${p}.name`));
        errs.push(...validateFileMode(src.defaultMode, `${p}.defaultMode`));
        errs.push(...validateKeyToPaths(src.items, `${p}.items`));
        break;
      case 'persistentVolumeClaim':
        if (!str(src.claimName)) errs.push(required(`${p}.claimName`));
        break;
      case 'nfs':
        if (!str(src.server)) errs.push(required(`${p}.server`));
        if (!str(src.path)) errs.push(required(`${p}.path`));
        else if (!str(src.path).startsWith('/')) errs.push(invalid(`${p}.path`, src.path, 'must be an absolute path'));
        break;
      case 'emptyDir':
        if (has(src.sizeLimit)) {
          const q = quantityFromJson(src.sizeLimit);
          if (q && quantitySign(q) < 0) errs.push(invalid(`${p}.sizeLimit`, quantityString(src.sizeLimit), 'SizeLimit field must be a valid resource quantity'));
        }
        break;
      case 'downwardAPI':
        errs.push(...validateFileMode(src.defaultMode, `${p}.defaultMode`));
        break;
      case 'projected':
        errs.push(...validateFileMode(src.defaultMode, `${p}.defaultMode`));
        break;
      case 'image':
        if (!str(src.reference)) errs.push(required(`${p}.reference`));
        break;
      default:
        break;
    }
  }
  if (count === 0) errs.push(required(path, 'must specify a volume type'));
  return errs;
}

function validateKeyToPaths(items: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(items).forEach((item, i) => {
    const p = `${path}[${i}]`;
    if (!str(item.key)) errs.push(required(`${p}.key`));
    if (!str(item.path)) errs.push(required(`${p}.path`));
    else errs.push(...localDescendingPath(str(item.path), `${p}.path`));
    errs.push(...validateFileMode(item.mode, `${p}.mode`));
  });
  return errs;
}

function noBacksteps(p: string, field: string): FieldError[] {
  return p.split(/[\\/]/).includes('..') ? [invalid(field, p, "must not contain '..'")] : [];
}

function localDescendingPath(p: string, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (p.startsWith('/')) errs.push(invalid(field, p, 'must be a relative path'));
  errs.push(...noBacksteps(p, field));
  return errs;
}

export function validateVolumes(volumes: unknown, path: string): { vols: VolumeMap; errs: FieldError[] } {
  const vols: VolumeMap = new Map();
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objs(volumes).forEach((vol, i) => {
    const p = `${path}[${i}]`;
    const name = str(vol.name);
    const el = validateVolumeSource(vol, p);
    if (!name) el.push(required(`${p}.name`));
    else el.push(...dnsLabel(name, `${p}.name`));
    if (names.has(name)) el.push(duplicate(`${p}.name`, name));
    // Only volumes without errors can be mounted; others report NotFound at the mount too.
    if (el.length === 0) {
      names.add(name);
      vols.set(name, vol);
    } else errs.push(...el);
  });
  return { vols, errs };
}

const PORT_PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

export function isValidPortNum(port: unknown): string[] {
  return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : [inclusiveRange(1, 65535)];
}

export function isValidPortName(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) errs.push('must contain at least one letter (a-z)');
  if (name.includes('--')) errs.push('must not contain consecutive hyphens');
  if (name.startsWith('-') || name.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** An IntOrString port: numbers must be valid port numbers, names valid port names. */
export function validatePortNumOrName(port: unknown, field: string): FieldError[] {
  if (typeof port === 'number') return isValidPortNum(port).map((m) => invalid(field, port, m));
  if (typeof port === 'string') {
    if (port === '') return [required(field)];
    return isValidPortName(port).map((m) => invalid(field, port, m));
  }
  return [invalid(field, port ?? null, 'must contain an int or string')];
}

function validateContainerPorts(ports: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objs(ports).forEach((port, i) => {
    const p = `${path}[${i}]`;
    const name = str(port.name);
    if (name) {
      const msgs = isValidPortName(name);
      if (msgs.length) for (const m of msgs) errs.push(invalid(`${p}.name`, name, m));
      else if (names.has(name)) errs.push(duplicate(`${p}.name`, name));
      else names.add(name);
    }
    if (!port.containerPort) errs.push(required(`${p}.containerPort`));
    else for (const m of isValidPortNum(port.containerPort)) errs.push(invalid(`${p}.containerPort`, port.containerPort, m));
    if (port.hostPort) for (const m of isValidPortNum(port.hostPort)) errs.push(invalid(`${p}.hostPort`, port.hostPort, m));
    if (!str(port.protocol)) errs.push(required(`${p}.protocol`));
    else if (!PORT_PROTOCOLS.includes(str(port.protocol))) errs.push(notSupported(`${p}.protocol`, port.protocol, PORT_PROTOCOLS));
  });
  return errs;
}

/** RelaxedEnvironmentVariableValidation (GA): printable ASCII except '='. */
function isRelaxedEnvVarName(name: string): string[] {
  for (const ch of name) {
    const c = ch.codePointAt(0)!;
    if (c > 126 || c < 32 || ch === '=') return ["a valid environment variable name must consist only of printable ASCII characters other than '='"];
  }
  return [];
}

const ENV_FIELD_PATHS = ['metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs'];
const RESOURCE_FIELD_PATHS = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory'];

function validateKeySelector(sel: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (str(sel.name)) errs.push(...dnsSubdomain(str(sel.name), `${path}.name`));
  if (!str(sel.key)) errs.push(required(`${path}.key`));
  else if (!/^[-._a-zA-Z0-9]+$/.test(str(sel.key))) {
    errs.push(invalid(`${path}.key`, sel.key, "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"));
  }
  return errs;
}

function validateEnv(env: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(env).forEach((ev, i) => {
    const p = `${path}[${i}]`;
    const name = str(ev.name);
    if (!name) errs.push(required(`${p}.name`));
    else for (const m of isRelaxedEnvVarName(name)) errs.push(invalid(`${p}.name`, name, m));
    if (!isObj(ev.valueFrom)) return;
    const vf = ev.valueFrom;
    const vp = `${p}.valueFrom`;
    let sources = 0;
    if (isObj(vf.fieldRef)) {
      sources++;
      const fr = vf.fieldRef;
      if (!str(fr.apiVersion)) errs.push(required(`${vp}.fieldRef.apiVersion`));
      else if (!str(fr.fieldPath)) errs.push(required(`${vp}.fieldRef.fieldPath`));
      else {
        const fp = str(fr.fieldPath);
        const sub = /^(metadata\.(?:labels|annotations))\['(.*)'\]$/.exec(fp);
        if (sub) {
          const key = sub[1] === 'metadata.annotations' ? sub[2]!.toLowerCase() : sub[2]!;
          for (const m of isQualifiedName(key)) errs.push(invalid(`${vp}.fieldRef`, key, m));
        } else if (!ENV_FIELD_PATHS.includes(fp)) errs.push(notSupported(`${vp}.fieldRef.fieldPath`, fp, ENV_FIELD_PATHS));
      }
    }
    if (isObj(vf.resourceFieldRef)) {
      sources++;
      const rf = vf.resourceFieldRef;
      const res = str(rf.resource);
      if (!res) errs.push(required(`${vp}.resourceFieldRef.resource`));
      else if (!RESOURCE_FIELD_PATHS.includes(res) && !res.startsWith('requests.hugepages-') && !res.startsWith('limits.hugepages-')) {
        errs.push(notSupported(`${vp}.resourceFieldRef.resource`, res, RESOURCE_FIELD_PATHS));
      }
    }
    if (isObj(vf.configMapKeyRef)) {
      sources++;
      errs.push(...validateKeySelector(vf.configMapKeyRef, `${vp}.configMapKeyRef`));
    }
    if (isObj(vf.secretKeyRef)) {
      sources++;
      errs.push(...validateKeySelector(vf.secretKeyRef, `${vp}.secretKeyRef`));
    }
    if (sources === 0) errs.push(invalid(vp, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
    else if (str(ev.value) !== '') errs.push(invalid(vp, '', 'may not be specified when `value` is not empty'));
    else if (sources > 1) errs.push(invalid(vp, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

function validateEnvFrom(envFrom: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(envFrom).forEach((ev, i) => {
    const p = `${path}[${i}]`;
    if (str(ev.prefix)) for (const m of isRelaxedEnvVarName(str(ev.prefix))) errs.push(invalid(`${p}.prefix`, ev.prefix, m));
    let sources = 0;
    for (const key of ['configMapRef', 'secretRef']) {
      if (!isObj(ev[key])) continue;
      sources++;
      const name = str((ev[key] as Obj).name);
      if (!name) errs.push(required(`${p}.${key}.name`));
      else errs.push(...dnsSubdomain(name, `${p}.${key}.name`).map((e) => ({ ...e })));
    }
    // kube reports these two on the list path, not the item.
    if (sources === 0) errs.push(invalid(path, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (sources > 1) errs.push(invalid(path, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

function validateVolumeMounts(mounts: unknown, vols: VolumeMap, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const mountPoints = new Set<string>();
  objs(mounts).forEach((m, i) => {
    const p = `${path}[${i}]`;
    const name = str(m.name);
    const mountPath = str(m.mountPath);
    if (!name) errs.push(required(`${p}.name`));
    if (!vols.has(name)) errs.push(notFound(`${p}.name`, name));
    if (!mountPath) errs.push(required(`${p}.mountPath`));
    if (mountPoints.has(mountPath)) errs.push(invalid(`${p}.mountPath`, mountPath, 'must be unique'));
    mountPoints.add(mountPath);
    const vol = vols.get(name);
    if (vol && has(vol.image)) {
      if (str(m.subPath)) errs.push(invalid(`${p}.subPath`, m.subPath, 'not allowed in image volume sources'));
      if (str(m.subPathExpr)) errs.push(invalid(`${p}.subPathExpr`, m.subPathExpr, 'not allowed in image volume sources'));
    }
    // kube passes the list path (not the item's) for subPath checks.
    if (str(m.subPath)) errs.push(...localDescendingPath(str(m.subPath), `${path}.subPath`));
    if (str(m.subPathExpr)) {
      if (str(m.subPath)) errs.push(invalid(`${p}.subPathExpr`, m.subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
      errs.push(...localDescendingPath(str(m.subPathExpr), `${path}.subPathExpr`));
    }
  });
  return errs;
}

const STANDARD_CONTAINER_RESOURCES = ['cpu', 'memory', 'ephemeral-storage'];

function isHugePages(name: string): boolean {
  return name.startsWith('hugepages-');
}

/** Overcommit is allowed for native compute resources; extended resources need requests == limits. */
function isOvercommitAllowed(name: string): boolean {
  return (!name.includes('/') || name.includes('kubernetes.io/')) && !isHugePages(name);
}

function validateResourceName(name: string, field: string): FieldError[] {
  const errs = isQualifiedName(name).map((m) => invalid(field, name, m));
  if (errs.length) return errs;
  if (!name.includes('/')) {
    if (!STANDARD_CONTAINER_RESOURCES.includes(name) && !isHugePages(name)) errs.push(invalid(field, name, 'must be a standard resource for containers'));
  } else if (!name.includes('kubernetes.io/')) {
    if (name.startsWith('requests.')) errs.push(invalid(field, name, "doesn't have a standard resource name"));
  }
  return errs;
}

function validateQuantityValue(name: string, value: unknown, field: string): FieldError[] {
  const q = quantityFromJson(value);
  if (!q) return [invalid(field, value, QUANTITY_FORMAT_ERROR)];
  const errs: FieldError[] = [];
  if (quantitySign(q) < 0) errs.push(invalid(field, quantityString(value), 'must be greater than or equal to 0'));
  // Resources other than cpu (and memory-like bytes) must be whole numbers.
  const integerOnly = name !== 'cpu' && !STANDARD_CONTAINER_RESOURCES.includes(name) && !isHugePages(name);
  if (integerOnly && !isWholeQuantity(q)) errs.push(invalid(field, quantityString(value), 'must be an integer'));
  return errs;
}

export function validateResourceRequirements(resources: unknown, path: string): FieldError[] {
  const r = obj(resources);
  const errs: FieldError[] = [];
  const limits = obj(r.limits);
  const requests = obj(r.requests);
  for (const [name, value] of Object.entries(limits)) {
    const field = `${path}.limits[${name}]`;
    errs.push(...validateResourceName(name, field), ...validateQuantityValue(name, value, field));
  }
  for (const [name, value] of Object.entries(requests)) {
    const field = `${path}.requests[${name}]`;
    errs.push(...validateResourceName(name, field), ...validateQuantityValue(name, value, field));
    const req = quantityFromJson(value);
    if (name in limits) {
      const lim = quantityFromJson(limits[name]);
      if (!req || !lim) continue;
      const cmp = compareQuantities(req, lim);
      if (cmp !== 0 && !isOvercommitAllowed(name)) {
        errs.push(invalid(`${path}.requests`, quantityString(value), `must be equal to ${name} limit of ${quantityString(limits[name])}`));
      } else if (cmp > 0) {
        errs.push(invalid(`${path}.requests`, quantityString(value), `must be less than or equal to ${name} limit of ${quantityString(limits[name])}`));
      }
    } else if (!isOvercommitAllowed(name)) {
      errs.push(required(`${path}.limits`, 'Limit must be set for non overcommitable resources'));
    }
  }
  return errs;
}

function validateHandler(h: Obj, path: string, kinds: string[]): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const kind of kinds) {
    if (!has(h[kind])) continue;
    if (count > 0) {
      errs.push(forbidden(`${path}.${kind}`, 'may not specify more than 1 handler type'));
      continue;
    }
    count++;
    const a = obj(h[kind]);
    const p = `${path}.${kind}`;
    if (kind === 'exec' && list(a.command).length === 0) errs.push(required(`${p}.command`));
    if (kind === 'httpGet') {
      if (!str(a.path)) errs.push(required(`${p}.path`));
      errs.push(...validatePortNumOrName(a.port, `${p}.port`));
      const schemes = ['HTTP', 'HTTPS'];
      if (!schemes.includes(str(a.scheme))) errs.push(notSupported(`${p}.scheme`, a.scheme ?? '', schemes));
    }
    if (kind === 'tcpSocket') errs.push(...validatePortNumOrName(a.port, `${p}.port`));
    if (kind === 'grpc') for (const m of isValidPortNum(a.port)) errs.push(invalid(`${p}.port`, a.port, m));
  }
  if (count === 0) errs.push(required(path, 'must specify a handler type'));
  return errs;
}

const PROBE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'];

function validateProbe(probe: unknown, path: string, kind: 'liveness' | 'readiness' | 'startup'): FieldError[] {
  if (!isObj(probe)) return [];
  const errs = validateHandler(probe, path, PROBE_HANDLERS);
  for (const key of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) {
    errs.push(...nonNegative(probe[key], `${path}.${key}`));
  }
  const tgps = probe.terminationGracePeriodSeconds;
  if (typeof tgps === 'number' && tgps <= 0) errs.push(invalid(`${path}.terminationGracePeriodSeconds`, tgps, 'must be greater than 0'));
  if (kind !== 'readiness' && has(probe.successThreshold) && probe.successThreshold !== 1) {
    errs.push(invalid(`${path}.successThreshold`, probe.successThreshold, 'must be 1'));
  }
  if (kind === 'readiness' && has(probe.terminationGracePeriodSeconds)) {
    errs.push(invalid(`${path}.terminationGracePeriodSeconds`, probe.terminationGracePeriodSeconds, 'must not be set for readinessProbes'));
  }
  return errs;
}

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const TERMINATION_MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];

function validateContainerCommon(c: Obj, vols: VolumeMap, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(c.name);
  if (!name) errs.push(required(`${path}.name`));
  else errs.push(...dnsLabel(name, `${path}.name`));
  if (!str(c.image)) errs.push(required(`${path}.image`));
  const tmp = str(c.terminationMessagePolicy);
  if (!tmp) errs.push(required(`${path}.terminationMessagePolicy`));
  else if (!TERMINATION_MESSAGE_POLICIES.includes(tmp)) errs.push(notSupported(`${path}.terminationMessagePolicy`, tmp, TERMINATION_MESSAGE_POLICIES));
  errs.push(...validateContainerPorts(c.ports, `${path}.ports`));
  errs.push(...validateEnv(c.env, `${path}.env`));
  errs.push(...validateEnvFrom(c.envFrom, `${path}.envFrom`));
  errs.push(...validateVolumeMounts(c.volumeMounts, vols, `${path}.volumeMounts`));
  const pp = str(c.imagePullPolicy);
  if (!pp) errs.push(required(`${path}.imagePullPolicy`));
  else if (!PULL_POLICIES.includes(pp)) errs.push(notSupported(`${path}.imagePullPolicy`, pp, PULL_POLICIES));
  errs.push(...validateResourceRequirements(c.resources, `${path}.resources`));
  return errs;
}

function validateLifecycle(lifecycle: unknown, path: string): FieldError[] {
  if (!isObj(lifecycle)) return [];
  const errs: FieldError[] = [];
  for (const key of ['postStart', 'preStop']) {
    if (isObj(lifecycle[key])) errs.push(...validateHandler(lifecycle[key] as Obj, `${path}.${key}`, ['exec', 'httpGet', 'tcpSocket', 'sleep']));
  }
  return errs;
}

function validateContainers(containers: unknown, vols: VolumeMap, path: string): FieldError[] {
  const list_ = objs(containers);
  if (list_.length === 0) return [required(path)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  list_.forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...validateContainerCommon(c, vols, p));
    const name = str(c.name);
    if (names.has(name)) errs.push(duplicate(`${p}.name`, name));
    else names.add(name);
    errs.push(...validateLifecycle(c.lifecycle, `${p}.lifecycle`));
    errs.push(...validateProbe(c.livenessProbe, `${p}.livenessProbe`, 'liveness'));
    errs.push(...validateProbe(c.readinessProbe, `${p}.readinessProbe`, 'readiness'));
    errs.push(...validateProbe(c.startupProbe, `${p}.startupProbe`, 'startup'));
    if (has(c.restartPolicy)) errs.push(forbidden(`${p}.restartPolicy`, 'may not be set for non-init containers'));
  });
  errs.push(...hostPortConflicts(list_, path));
  return errs;
}

function validateInitContainers(init: unknown, containers: unknown, vols: VolumeMap, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const others = new Set(objs(containers).map((c) => str(c.name)));
  const names = new Set<string>();
  objs(init).forEach((c, i) => {
    const p = `${path}[${i}]`;
    errs.push(...validateContainerCommon(c, vols, p));
    const name = str(c.name);
    if (names.has(name) || others.has(name)) errs.push(duplicate(`${p}.name`, name));
    else names.add(name);
    const restartable = c.restartPolicy === 'Always';
    if (has(c.restartPolicy) && !restartable) errs.push(notSupported(`${p}.restartPolicy`, c.restartPolicy, ['Always']));
    if (restartable) {
      errs.push(...validateLifecycle(c.lifecycle, `${p}.lifecycle`));
      errs.push(...validateProbe(c.livenessProbe, `${p}.livenessProbe`, 'liveness'));
      errs.push(...validateProbe(c.readinessProbe, `${p}.readinessProbe`, 'readiness'));
      errs.push(...validateProbe(c.startupProbe, `${p}.startupProbe`, 'startup'));
    } else {
      if (has(c.lifecycle)) errs.push(forbidden(`${p}.lifecycle`, 'may not be set for init containers without restartPolicy=Always'));
      if (has(c.livenessProbe)) errs.push(forbidden(`${p}.livenessProbe`, 'may not be set for init containers without restartPolicy=Always'));
      if (has(c.readinessProbe)) errs.push(forbidden(`${p}.readinessProbe`, 'may not be set for init containers without restartPolicy=Always'));
      if (has(c.startupProbe)) errs.push(forbidden(`${p}.startupProbe`, 'may not be set for init containers without restartPolicy=Always'));
    }
  });
  errs.push(...hostPortConflicts(objs(init), path));
  return errs;
}

/** Two ports may not claim the same host IP, protocol and host port (AccumulateUniqueHostPorts). */
function hostPortConflicts(containers: Obj[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  containers.forEach((c, i) => {
    objs(c.ports).forEach((port, j) => {
      if (!port.hostPort) return;
      const key = `${str(port.hostIP)}/${str(port.protocol)}/${num(port.hostPort)}`;
      if (seen.has(key)) errs.push(duplicate(`${path}[${i}].ports[${j}].hostPort`, key));
      else seen.add(key);
    });
  });
  return errs;
}

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const TOLERATION_OPERATORS = ['Equal', 'Exists'];
const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

function validateTolerations(tolerations: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(tolerations).forEach((t, i) => {
    const p = `${path}[${i}]`;
    const key = str(t.key);
    if (key) errs.push(...validateLabelName(key, `${p}.key`));
    const op = str(t.operator);
    if (!key && op !== 'Exists') errs.push(invalid(`${p}.operator`, op, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    if (has(t.tolerationSeconds) && t.effect !== 'NoExecute') {
      errs.push(invalid(`${p}.effect`, str(t.effect), 'effect must be \'NoExecute\' when `tolerationSeconds` is set'));
    }
    if (op === '' || op === 'Equal') {
      if (str(t.value)) for (const m of validateLabels({ k: str(t.value) }, `${p}.value`)) errs.push({ ...m, field: `${p}.value` });
    } else if (op === 'Exists') {
      if (str(t.value)) errs.push(invalid(`${p}.operator`, t, 'value must be empty when `operator` is \'Exists\''));
    } else {
      errs.push(notSupported(`${p}.operator`, op, TOLERATION_OPERATORS));
    }
    if (str(t.effect) && !TAINT_EFFECTS.includes(str(t.effect))) errs.push(notSupported(`${p}.effect`, t.effect, TAINT_EFFECTS));
  });
  return errs;
}

function validateAffinity(affinity: unknown, path: string): FieldError[] {
  if (!isObj(affinity)) return [];
  const errs: FieldError[] = [];
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = affinity[kind];
    if (!isObj(a)) continue;
    const p = `${path}.${kind}`;
    objs(a.requiredDuringSchedulingIgnoredDuringExecution).forEach((term, i) => errs.push(...validatePodAffinityTerm(term, `${p}.requiredDuringSchedulingIgnoredDuringExecution[${i}]`)));
    objs(a.preferredDuringSchedulingIgnoredDuringExecution).forEach((w, i) => {
      const wp = `${p}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
      const weight = w.weight;
      if (typeof weight !== 'number' || weight <= 0 || weight > 100) errs.push(invalid(`${wp}.weight`, weight ?? 0, inclusiveRange(1, 100)));
      errs.push(...validatePodAffinityTerm(obj(w.podAffinityTerm), `${wp}.podAffinityTerm`));
    });
  }
  return errs;
}

function validatePodAffinityTerm(term: Obj, path: string): FieldError[] {
  const errs = validateLabelSelector(term.labelSelector, `${path}.labelSelector`);
  errs.push(...validateLabelSelector(term.namespaceSelector, `${path}.namespaceSelector`));
  for (const ns of list(term.namespaces)) for (const m of isDns1123Label(str(ns))) errs.push(invalid(`${path}.namespace`, ns, m));
  if (!str(term.topologyKey)) errs.push(required(`${path}.topologyKey`, 'can not be empty'));
  else errs.push(...validateLabelName(str(term.topologyKey), `${path}.topologyKey`));
  return errs;
}

export function validatePodSpec(spec: unknown, path: string, opts: PodSpecOptions): FieldError[] {
  const s = obj(spec);
  const errs: FieldError[] = [];
  if (!has(s.terminationGracePeriodSeconds)) errs.push(required(`${path}.terminationGracePeriodSeconds`));
  const { vols, errs: volErrs } = validateVolumes(s.volumes, `${path}.volumes`);
  errs.push(...volErrs);
  errs.push(...validateContainers(s.containers, vols, `${path}.containers`));
  errs.push(...validateInitContainers(s.initContainers, s.containers, vols, `${path}.initContainers`));
  const hostNetwork = s.hostNetwork === true;
  if (hostNetwork) {
    objs(s.containers).forEach((c, i) => {
      objs(c.ports).forEach((port, j) => {
        const hp = num(port.hostPort);
        const cp = num(port.containerPort);
        if ((opts.resourceIsPod || hp !== 0) && hp !== cp) {
          errs.push(invalid(`${path}.containers[${i}].ports[${j}].hostPort`, hp, 'must match `containerPort` when `hostNetwork` is true'));
        }
      });
    });
  }
  const rp = str(s.restartPolicy);
  if (!rp) errs.push(required(`${path}.restartPolicy`));
  else if (!RESTART_POLICIES.includes(rp)) errs.push(notSupported(`${path}.restartPolicy`, rp, RESTART_POLICIES));
  const dp = str(s.dnsPolicy);
  if (!dp) errs.push(required(`${path}.dnsPolicy`));
  else if (!DNS_POLICIES.includes(dp)) errs.push(notSupported(`${path}.dnsPolicy`, dp, DNS_POLICIES));
  errs.push(...validateLabels(s.nodeSelector, `${path}.nodeSelector`));
  objs(s.imagePullSecrets).forEach((ref, i) => {
    if (Object.keys(ref).some((k) => k !== 'name')) errs.push(invalid(`${path}.imagePullSecrets[${i}]`, ref, 'only name may be set'));
  });
  errs.push(...validateAffinity(s.affinity, `${path}.affinity`));
  if (dp === 'None') {
    const cfg = s.dnsConfig;
    if (!isObj(cfg)) errs.push(required(`${path}.dnsConfig`, 'must provide `dnsConfig` when `dnsPolicy` is None'));
    else if (list(cfg.nameservers).length === 0) errs.push(required(`${path}.dnsConfig.nameservers`, 'must provide at least one DNS nameserver when `dnsPolicy` is None'));
  }
  const gates = new Set<string>();
  objs(s.schedulingGates).forEach((g, i) => {
    const name = str(g.name);
    for (const m of isQualifiedName(name)) errs.push(invalid(`${path}.schedulingGates[${i}]`, name, m));
    if (gates.has(name)) errs.push(duplicate(`${path}.schedulingGates[${i}]`, name));
    gates.add(name);
  });
  if (str(s.serviceAccountName)) errs.push(...dnsSubdomain(str(s.serviceAccountName), `${path}.serviceAccountName`));
  if (str(s.nodeName)) errs.push(...dnsSubdomain(str(s.nodeName), `${path}.nodeName`));
  if (has(s.activeDeadlineSeconds)) {
    const v = num(s.activeDeadlineSeconds);
    if (v < 1 || v > 2147483647) errs.push(invalid(`${path}.activeDeadlineSeconds`, v, inclusiveRange(1, 2147483647)));
  }
  if (str(s.hostname)) errs.push(...dnsLabel(str(s.hostname), `${path}.hostname`));
  if (str(s.subdomain)) errs.push(...dnsLabel(str(s.subdomain), `${path}.subdomain`));
  errs.push(...validateTolerations(s.tolerations, `${path}.tolerations`));
  if (str(s.priorityClassName)) errs.push(...dnsSubdomain(str(s.priorityClassName), `${path}.priorityClassName`));
  if (has(s.runtimeClassName)) errs.push(...dnsSubdomain(str(s.runtimeClassName), `${path}.runtimeClassName`));
  if (has(s.preemptionPolicy)) {
    const pp = str(s.preemptionPolicy);
    if (!pp) errs.push(required(`${path}.preemptionPolicy`));
    else if (pp !== 'PreemptLowerPriority' && pp !== 'Never') errs.push(notSupported(`${path}.preemptionPolicy`, pp, ['PreemptLowerPriority', 'Never']));
  }
  return errs;
}

/** ValidatePodTemplateSpec: labels, annotations and the spec. */
export function validatePodTemplateSpec(template: unknown, path: string): FieldError[] {
  const t = obj(template);
  const meta = obj(t.metadata);
  const errs: FieldError[] = [...validateLabels(meta.labels, `${path}.metadata.labels`)];
  errs.push(...validatePodSpec(t.spec, `${path}.spec`, { resourceIsPod: false }));
  if (list(obj(t.spec).ephemeralContainers).length > 0) errs.push(forbidden(`${path}.spec.ephemeralContainers`, 'ephemeral containers not allowed in pod template'));
  return errs;
}
