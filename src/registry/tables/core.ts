import { joinHostPort } from '../../machinery/host-port.js';
import type { KubeObject } from '../../machinery/object.js';
import { eventsV1ToCore } from '../conversions/events.js';
import { ageCol, col, doc, nameCol, printer } from './columns.js';
import { type TableConvertor } from '../../codec/table-convertor.js';
import { age, annotationsOf, formatLabels, isDeleting, labelsOf, nameOf, since, sortedUnique, timeOf } from './format.js';
import { quantityString } from '../../api/quantity.js';
import { int, optRec, rec, recs, str, strings, type JsonRecord } from './values.js';

/**
 * Printers for the core/v1 types other than pods: services, endpoints, nodes,
 * namespaces, events, config maps, secrets, service accounts, persistent
 * volumes and claims, resource quotas and component statuses.
 */

const CORE = 'io.k8s.api.core.v1';

// ------------------------------------------------------------------ services

/** The service's load-balancer ingress points (IP, else hostname), sorted and unique. */
function loadBalancerIngress(status: unknown): string {
  const points = recs(rec(status).ingress)
    .map((i) => str(i.ip) || str(i.hostname))
    .filter((p) => p !== '');
  // Server-side printing is always wide, so the 16-character clipping never applies.
  return sortedUnique(points).join(',');
}

function serviceExternalIP(spec: JsonRecord, status: JsonRecord): string {
  const external = strings(spec.externalIPs);
  switch (spec.type) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length > 0 ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerIngress(status.loadBalancer);
      if (external.length > 0) return [...(lb === '' ? [] : lb.split(',')), ...external].join(',');
      return lb !== '' ? lb : '<pending>';
    }
    case 'ExternalName':
      return str(spec.externalName);
    default:
      return '<unknown>';
  }
}

/** makePortString: port/protocol, with :nodePort when one is allocated. */
function servicePorts(ports: unknown): string {
  return recs(ports)
    .map((p) => {
      // The protocol defaults to TCP; kube prints the defaulted internal object.
      const protocol = str(p.protocol) || 'TCP';
      const nodePort = int(p.nodePort);
      return nodePort > 0 ? `${int(p.port)}:${nodePort}/${protocol}` : `${int(p.port)}/${protocol}`;
    })
    .join(',');
}

function clusterIP(spec: JsonRecord): string {
  // v1 -> internal conversion fills clusterIPs from a lone clusterIP.
  const ips = strings(spec.clusterIPs);
  if (ips.length > 0) return ips[0] ?? '';
  return str(spec.clusterIP) !== '' ? str(spec.clusterIP) : '<none>';
}

export const serviceTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('Type', 'string', doc(`${CORE}.ServiceSpec`, 'type')),
    col('Cluster-IP', 'string', doc(`${CORE}.ServiceSpec`, 'clusterIP')),
    col('External-IP', 'string', doc(`${CORE}.ServiceSpec`, 'externalIPs')),
    col('Port(s)', 'string', doc(`${CORE}.ServiceSpec`, 'ports')),
    ageCol(),
    col('Selector', 'string', doc(`${CORE}.ServiceSpec`, 'selector'), 1),
  ],
  (o, now) => {
    const spec = rec(o.spec);
    const ports = servicePorts(spec.ports);
    return [nameOf(o), str(spec.type), clusterIP(spec), serviceExternalIP(spec, rec(o.status)), ports || '<none>', age(o, now), formatLabels(spec.selector)];
  },
);

// ----------------------------------------------------------------- endpoints

/** formatEndpoints with all ports: the first three addresses and "+ N more...". */
function formatEndpoints(subsets: unknown): string {
  const sets = recs(subsets);
  if (sets.length === 0) return '<none>';
  const max = 3;
  const shown: string[] = [];
  let more = false;
  let count = 0;
  for (const ss of sets) {
    const addresses = recs(ss.addresses);
    const ports = recs(ss.ports);
    if (ports.length === 0) {
      // Headless services may have no ports.
      count += addresses.length;
      for (const a of addresses) {
        if (shown.length === max) {
          more = true;
          break;
        }
        shown.push(str(a.ip));
      }
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      for (const a of addresses) {
        if (shown.length === max) {
          more = true;
          break;
        }
        shown.push(joinHostPort(str(a.ip), int(port.port)));
      }
    }
  }
  const text = shown.join(',');
  return more ? `${text} + ${count - max} more...` : text;
}

export const endpointsTable: TableConvertor = printer(
  () => [nameCol(), col('Endpoints', 'string', doc(`${CORE}.Endpoints`, 'subsets')), ageCol()],
  (o, now) => [nameOf(o), formatEndpoints(o.subsets), age(o, now)],
);

// --------------------------------------------------------------------- nodes

const NODE_ROLE_PREFIX = 'node-role.kubernetes.io/';
const NODE_ROLE_LABEL = 'kubernetes.io/role';

/** findNodeRoles: node-role.kubernetes.io/<role> keys and the kubernetes.io/role value, sorted. */
function nodeRoles(node: KubeObject): string {
  const roles: string[] = [];
  for (const [k, v] of Object.entries(labelsOf(node))) {
    if (k.startsWith(NODE_ROLE_PREFIX)) {
      const role = k.slice(NODE_ROLE_PREFIX.length);
      if (role !== '') roles.push(role);
    } else if (k === NODE_ROLE_LABEL && v !== '') {
      roles.push(v);
    }
  }
  return sortedUnique(roles).join(',') || '<none>';
}

function nodeStatus(spec: JsonRecord, status: JsonRecord): string {
  // Only the Ready condition counts; with duplicates the last one wins (the printer's map).
  let ready: JsonRecord | undefined;
  for (const c of recs(status.conditions)) if (c.type === 'Ready') ready = c;
  const parts = [ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady'];
  if (spec.unschedulable === true) parts.push('SchedulingDisabled');
  return parts.join(',');
}

function nodeAddress(status: JsonRecord, type: string): string {
  const a = recs(status.addresses).find((x) => x.type === type);
  return a ? str(a.address) : '<none>';
}

export const nodeTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('Status', 'string', 'The status of the node'),
    col('Roles', 'string', 'The roles of the node'),
    ageCol(),
    col('Version', 'string', doc(`${CORE}.NodeSystemInfo`, 'kubeletVersion')),
    col('Internal-IP', 'string', doc(`${CORE}.NodeStatus`, 'addresses'), 1),
    col('External-IP', 'string', doc(`${CORE}.NodeStatus`, 'addresses'), 1),
    col('OS-Image', 'string', doc(`${CORE}.NodeSystemInfo`, 'osImage'), 1),
    col('Kernel-Version', 'string', doc(`${CORE}.NodeSystemInfo`, 'kernelVersion'), 1),
    col('Container-Runtime', 'string', doc(`${CORE}.NodeSystemInfo`, 'containerRuntimeVersion'), 1),
  ],
  (o, now) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    const info = rec(status.nodeInfo);
    // 1.36 appends the architecture to the kernel version when the node reports one.
    let kernel = str(info.kernelVersion) || '<unknown>';
    if (str(info.architecture) !== '') kernel += ` (${str(info.architecture)})`;
    return [
      nameOf(o),
      nodeStatus(spec, status),
      nodeRoles(o),
      age(o, now),
      str(info.kubeletVersion),
      nodeAddress(status, 'InternalIP'),
      nodeAddress(status, 'ExternalIP'),
      str(info.osImage) || '<unknown>',
      kernel,
      str(info.containerRuntimeVersion) || '<unknown>',
    ];
  },
);

// -------------------------------------------------------------------- events

function formatEventSource(event: JsonRecord): string {
  const source = rec(event.source);
  const component = str(source.component) || str(event.reportingComponent);
  const instance = str(source.host) || str(event.reportingInstance);
  return instance === '' ? component : `${component}, ${instance}`;
}

/** printEvent over the core/v1 shape (events.k8s.io/v1 converts into it first, as kube's internal type). */
export function eventCells(event: KubeObject, now: number): unknown[] {
  const firstSeen = timeOf(event.firstTimestamp) !== undefined ? since(event.firstTimestamp, now) : since(event.eventTime, now);
  let lastSeen = timeOf(event.lastTimestamp) !== undefined ? since(event.lastTimestamp, now) : firstSeen;
  let count = int(event.count);
  const series = optRec(event.series);
  if (series) {
    lastSeen = since(series.lastObservedTime, now);
    count = int(series.count);
  } else if (count === 0) {
    // Singleton events of the new API carry no count.
    count = 1;
  }
  const involved = rec(event.involvedObject);
  const kind = str(involved.kind).toLowerCase();
  const target = str(involved.name) !== '' ? `${kind}/${str(involved.name)}` : kind;
  return [
    lastSeen,
    str(event.type),
    str(event.reason),
    target,
    str(involved.fieldPath),
    formatEventSource(event),
    str(event.message).trim(),
    firstSeen,
    count,
    nameOf(event),
  ];
}

function eventColumns(): ReturnType<typeof nameCol>[] {
  const ev = `${CORE}.Event`;
  return [
    col('Last Seen', 'string', doc(ev, 'lastTimestamp')),
    col('Type', 'string', doc(ev, 'type')),
    col('Reason', 'string', doc(ev, 'reason')),
    col('Object', 'string', doc(ev, 'involvedObject')),
    col('Subobject', 'string', doc(`${CORE}.ObjectReference`, 'fieldPath'), 1),
    col('Source', 'string', doc(ev, 'source'), 1),
    col('Message', 'string', doc(ev, 'message')),
    col('First Seen', 'string', doc(ev, 'firstTimestamp'), 1),
    col('Count', 'string', doc(ev, 'count'), 1),
    nameCol(1),
  ];
}

export const eventTable: TableConvertor = printer(eventColumns, eventCells);

/** events.k8s.io/v1 Events print through the same internal type as core/v1 ones. */
export const eventsV1Table: TableConvertor = printer(eventColumns, (o, now) => eventCells(o.apiVersion === 'v1' ? o : eventsV1ToCore(o), now));

// ------------------------------------------------------------- config, misc

export const namespaceTable: TableConvertor = printer(
  () => [nameCol(), col('Status', 'string', 'The status of the namespace'), ageCol()],
  (o, now) => [nameOf(o), str(rec(o.status).phase), age(o, now)],
);

export const configMapTable: TableConvertor = printer(
  () => [nameCol(), col('Data', 'string', doc(`${CORE}.ConfigMap`, 'data')), ageCol()],
  (o, now) => [nameOf(o), Object.keys(rec(o.data)).length + Object.keys(rec(o.binaryData)).length, age(o, now)],
);

export const secretTable: TableConvertor = printer(
  () => [nameCol(), col('Type', 'string', doc(`${CORE}.Secret`, 'type')), col('Data', 'string', doc(`${CORE}.Secret`, 'data')), ageCol()],
  (o, now) => [nameOf(o), str(o.type), Object.keys(rec(o.data)).length, age(o, now)],
);

/** Name and Age only: kubernetes PR #117160 (1.35) dropped the SECRETS column, as no core component fills .secrets since 1.24. */
export const serviceAccountTable: TableConvertor = printer(
  () => [nameCol(), ageCol()],
  (o, now) => [nameOf(o), age(o, now)],
);

export const componentStatusTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('Status', 'string', 'Status of the component conditions'),
    col('Message', 'string', 'Message of the component conditions'),
    col('Error', 'string', 'Error of the component conditions'),
  ],
  (o) => {
    const healthy = recs(o.conditions).find((c) => c.type === 'Healthy');
    if (!healthy) return [nameOf(o), 'Unknown', '', ''];
    return [nameOf(o), healthy.status === 'True' ? 'Healthy' : 'Unhealthy', str(healthy.message), str(healthy.error)];
  },
);

// ------------------------------------------------------------------- storage

const ACCESS_MODES: [string, string][] = [
  ['ReadWriteOnce', 'RWO'],
  ['ReadOnlyMany', 'ROX'],
  ['ReadWriteMany', 'RWX'],
  ['ReadWriteOncePod', 'RWOP'],
];

/** helper.GetAccessModesAsString: abbreviations in a fixed order, duplicates dropped. */
function accessModes(modes: unknown): string {
  const set = new Set(strings(modes));
  return ACCESS_MODES.filter(([mode]) => set.has(mode))
    .map(([, short]) => short)
    .join(',');
}

const BETA_STORAGE_CLASS = 'volume.beta.kubernetes.io/storage-class';

/** GetPersistentVolume(Claim)Class: the beta annotation wins over spec.storageClassName. */
function storageClassOf(obj: KubeObject, spec: JsonRecord): string {
  const annotations = annotationsOf(obj);
  if (BETA_STORAGE_CLASS in annotations) return annotations[BETA_STORAGE_CLASS] ?? '';
  return str(spec.storageClassName);
}

function unsetOr(v: unknown): string {
  return typeof v === 'string' ? v : '<unset>';
}

export const persistentVolumeTable: TableConvertor = printer(
  () => {
    const spec = `${CORE}.PersistentVolumeSpec`;
    const status = `${CORE}.PersistentVolumeStatus`;
    return [
      nameCol(),
      col('Capacity', 'string', doc(spec, 'capacity')),
      col('Access Modes', 'string', doc(spec, 'accessModes')),
      col('Reclaim Policy', 'string', doc(spec, 'persistentVolumeReclaimPolicy')),
      col('Status', 'string', doc(status, 'phase')),
      col('Claim', 'string', doc(spec, 'claimRef')),
      col('StorageClass', 'string', 'StorageClass of the pv'),
      col('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
      col('Reason', 'string', doc(status, 'reason')),
      ageCol(),
      col('VolumeMode', 'string', doc(spec, 'volumeMode'), 1),
    ];
  },
  (o, now) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    const claim = optRec(spec.claimRef);
    return [
      nameOf(o),
      quantityString(rec(spec.capacity).storage),
      accessModes(spec.accessModes),
      str(spec.persistentVolumeReclaimPolicy),
      isDeleting(o) ? 'Terminating' : str(status.phase),
      claim ? `${str(claim.namespace)}/${str(claim.name)}` : '',
      storageClassOf(o, spec),
      unsetOr(spec.volumeAttributesClassName),
      str(status.reason),
      age(o, now),
      unsetOr(spec.volumeMode),
    ];
  },
);

export const persistentVolumeClaimTable: TableConvertor = printer(
  () => {
    const spec = `${CORE}.PersistentVolumeClaimSpec`;
    const status = `${CORE}.PersistentVolumeClaimStatus`;
    return [
      nameCol(),
      col('Status', 'string', doc(status, 'phase')),
      col('Volume', 'string', doc(spec, 'volumeName')),
      col('Capacity', 'string', doc(status, 'capacity')),
      col('Access Modes', 'string', doc(status, 'accessModes')),
      col('StorageClass', 'string', 'StorageClass of the pvc'),
      col('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
      ageCol(),
      col('VolumeMode', 'string', doc(spec, 'volumeMode'), 1),
    ];
  },
  (o, now) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    const bound = str(spec.volumeName) !== '';
    return [
      nameOf(o),
      isDeleting(o) ? 'Terminating' : str(status.phase),
      str(spec.volumeName),
      bound ? quantityString(rec(status.capacity).storage) : '',
      bound ? accessModes(status.accessModes) : '',
      storageClassOf(o, spec),
      unsetOr(spec.volumeAttributesClassName),
      age(o, now),
      unsetOr(spec.volumeMode),
    ];
  },
);

export const resourceQuotaTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
    col('Limit', 'string', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
    ageCol(),
  ],
  (o, now) => {
    const status = rec(o.status);
    const hard = rec(status.hard);
    const used = rec(status.used);
    const requests: string[] = [];
    const limits: string[] = [];
    // Byte order of the resource names, as SortableResourceNames sorts.
    for (const name of Object.keys(hard).sort()) {
      const pieces = name.split('.');
      const target = pieces.length > 1 && pieces[0] === 'limits' ? limits : requests;
      target.push(`${name}: ${quantityString(used[name])}/${quantityString(hard[name])}`);
    }
    return [nameOf(o), requests.join(', '), limits.join(', '), age(o, now)];
  },
);

