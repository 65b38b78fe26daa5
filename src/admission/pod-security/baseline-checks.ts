import { Version } from './api.js';
import { ALLOWED, forbiddenResult, type Check, type CheckResult } from './check.js';
import { strconvQuote as goQuote } from '../../machinery/go-compat.js';
import { allContainers, inUserNamespace, joinQuote, pluralize, sortedSet, type Container, type PodMetadata, type PodSpec, type SELinuxOptions } from './pod-spec.js';

/**
 * The Baseline level of the Pod Security Standards (policy/check_*.go with
 * Level Baseline), each with its revisions by policy version and kube's
 * reasons and details word for word.
 */

const v = (minor: number): Version => Version.of(1, minor);

/** "container(s) "a", "b"": the usual way a detail names containers. */
function containersPhrase(names: readonly string[]): string {
  return `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;
}

function namesWhere(spec: PodSpec, bad: (c: Container) => boolean): string[] {
  return allContainers(spec).filter(bad).map((c) => c.name);
}

function privileged(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const bad = namesWhere(spec, (c) => c.securityContext?.privileged === true);
  if (bad.length === 0) return ALLOWED;
  return forbiddenResult('privileged', `${containersPhrase(bad)} must not set securityContext.privileged=true`);
}

function hostNamespaces(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const set: string[] = [];
  if (spec.hostNetwork) set.push('hostNetwork=true');
  if (spec.hostPID) set.push('hostPID=true');
  if (spec.hostIPC) set.push('hostIPC=true');
  if (set.length === 0) return ALLOWED;
  return forbiddenResult('host namespaces', set.join(', '));
}

function hostPathVolumes(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const bad = (spec.volumes ?? []).filter((vol) => vol.hostPath != null).map((vol) => vol.name);
  if (bad.length === 0) return ALLOWED;
  return forbiddenResult('hostPath volumes', `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)}`);
}

function hostPorts(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const bad: string[] = [];
  const ports: string[] = [];
  for (const c of allContainers(spec)) {
    const used = (c.ports ?? []).filter((p) => (p.hostPort ?? 0) !== 0).map((p) => String(p.hostPort));
    if (used.length === 0) continue;
    bad.push(c.name);
    ports.push(...used);
  }
  if (bad.length === 0) return ALLOWED;
  const distinct = sortedSet(ports); // sorted as strings, as kube's string set is
  return forbiddenResult(
    'hostPort',
    `${containersPhrase(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', distinct.length)} ${distinct.join(', ')}`,
  );
}

function hostProbesAndHostLifecycle(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const bad = new Set<string>();
  const hosts = new Set<string>();
  for (const c of allContainers(spec)) {
    const handlers = [c.livenessProbe, c.readinessProbe, c.startupProbe, c.lifecycle?.postStart, c.lifecycle?.preStop];
    for (const h of handlers) {
      for (const host of [h?.httpGet?.host, h?.tcpSocket?.host]) {
        if (!host) continue;
        bad.add(c.name);
        hosts.add(host);
      }
    }
  }
  if (bad.size === 0) return ALLOWED;
  const names = sortedSet(bad);
  const values = sortedSet(hosts);
  return forbiddenResult(
    'probe or lifecycle host',
    `${containersPhrase(names)} ${pluralize('uses', 'use', names.length)} ${pluralize('probe or lifecycle host', 'probe or lifecycle hosts', values.length)} ${joinQuote(values)}`,
  );
}

const CAPABILITIES_ALLOWED_1_0 = new Set([
  'AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD',
  'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT',
]);

function capabilitiesBaseline(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const bad: string[] = [];
  const caps: string[] = [];
  for (const c of allContainers(spec)) {
    const added = (c.securityContext?.capabilities?.add ?? []).filter((cap) => !CAPABILITIES_ALLOWED_1_0.has(cap));
    if (added.length === 0) continue;
    bad.push(c.name);
    caps.push(...added);
  }
  if (bad.length === 0) return ALLOWED;
  return forbiddenResult('non-default capabilities', `${containersPhrase(bad)} must not include ${joinQuote(sortedSet(caps))} in securityContext.capabilities.add`);
}

const APPARMOR_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

function allowedAppArmorAnnotation(profile: string): boolean {
  return profile === '' || profile === 'runtime/default' || profile.startsWith('localhost/');
}

function allowedAppArmorType(type: string | undefined): boolean {
  return type === 'RuntimeDefault' || type === 'Localhost';
}

/** The field and the beta annotation both count, at every version. */
function appArmorProfile(meta: PodMetadata, spec: PodSpec): CheckResult {
  const setters: string[] = [];
  const values: string[] = [];
  const podProfile = spec.securityContext?.appArmorProfile;
  if (podProfile && !allowedAppArmorType(podProfile.type)) {
    setters.push('pod');
    values.push(podProfile.type ?? '');
  }
  const bad: string[] = [];
  for (const c of allContainers(spec)) {
    const profile = c.securityContext?.appArmorProfile;
    if (profile && !allowedAppArmorType(profile.type)) {
      bad.push(c.name);
      values.push(profile.type ?? '');
    }
  }
  if (bad.length > 0) setters.push(containersPhrase(bad));
  const all = sortedSet(values);
  const annotations = Object.entries(meta.annotations ?? {})
    .filter(([k, val]) => k.startsWith(APPARMOR_ANNOTATION_PREFIX) && !allowedAppArmorAnnotation(val))
    .map(([k, val]) => `${k}=${goQuote(val)}`)
    .sort();
  if (annotations.length > 0) {
    all.push(...annotations);
    setters.push(pluralize('annotation', 'annotations', annotations.length));
  }
  if (setters.length === 0) return ALLOWED;
  return forbiddenResult(
    pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', all.length),
    `${setters.join(' and ')} must not set AppArmor profile type to ${joinQuote(all)}`,
  );
}

const SELINUX_TYPES_1_0 = ['', 'container_t', 'container_init_t', 'container_kvm_t'];
const SELINUX_TYPES_1_31 = [...SELINUX_TYPES_1_0, 'container_engine_t'];

function seLinuxOptions(allowedTypes: readonly string[]) {
  return (_meta: PodMetadata, spec: PodSpec): CheckResult => {
    const setters: string[] = [];
    const badTypes: string[] = [];
    let setUser = false;
    let setRole = false;
    const valid = (opts: SELinuxOptions): boolean => {
      let ok = true;
      if (!allowedTypes.includes(opts.type ?? '')) {
        ok = false;
        badTypes.push(opts.type ?? '');
      }
      if (opts.user) {
        ok = false;
        setUser = true;
      }
      if (opts.role) {
        ok = false;
        setRole = true;
      }
      return ok;
    };
    const podOpts = spec.securityContext?.seLinuxOptions;
    if (podOpts && !valid(podOpts)) setters.push('pod');
    const bad = allContainers(spec).filter((c) => {
      const opts = c.securityContext?.seLinuxOptions;
      return opts !== undefined && opts !== null && !valid(opts);
    }).map((c) => c.name);
    if (bad.length > 0) setters.push(containersPhrase(bad));
    if (setters.length === 0) return ALLOWED;
    const data: string[] = [];
    const types = sortedSet(badTypes);
    if (types.length > 0) data.push(`${pluralize('type', 'types', types.length)} ${joinQuote(types)}`);
    if (setUser) data.push('user may not be set');
    if (setRole) data.push('role may not be set');
    return forbiddenResult('seLinuxOptions', `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}`);
  };
}

/** Anything but Default is refused. */
export function procMountStrict(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const bad: string[] = [];
  const types: string[] = [];
  for (const c of allContainers(spec)) {
    const pm = c.securityContext?.procMount;
    if (pm === undefined || pm === null || pm === 'Default') continue;
    bad.push(c.name);
    types.push(pm);
  }
  if (bad.length === 0) return ALLOWED;
  return forbiddenResult('procMount', `${containersPhrase(bad)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}`);
}

/** From v1.35, a pod in a user namespace may unmask /proc. */
function procMountBaseline1_35(meta: PodMetadata, spec: PodSpec): CheckResult {
  return inUserNamespace(spec) ? ALLOWED : procMountStrict(meta, spec);
}

const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';

function validSeccompAnnotation(value: string): boolean {
  return value === 'runtime/default' || value === 'docker/default' || value.startsWith('localhost/');
}

export function validSeccompType(type: string | undefined): boolean {
  return type === 'Localhost' || type === 'RuntimeDefault';
}

/** Before v1.19 the seccomp annotations are what counts. */
function seccompBaseline1_0(meta: PodMetadata, spec: PodSpec): CheckResult {
  const annotations = meta.annotations ?? {};
  const bad: string[] = [];
  const podValue = annotations[SECCOMP_POD_ANNOTATION];
  if (podValue !== undefined && !validSeccompAnnotation(podValue)) bad.push(`${SECCOMP_POD_ANNOTATION}=${goQuote(podValue)}`);
  for (const c of allContainers(spec)) {
    const key = SECCOMP_CONTAINER_ANNOTATION_PREFIX + c.name;
    const value = annotations[key];
    if (value !== undefined && !validSeccompAnnotation(value)) bad.push(`${key}=${goQuote(value)}`);
  }
  if (bad.length === 0) return ALLOWED;
  const distinct = sortedSet(bad);
  return forbiddenResult('seccompProfile', `forbidden ${pluralize('annotation', 'annotations', distinct.length)} ${distinct.join(', ')}`);
}

function seccompBaseline1_19(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const setters: string[] = [];
  const values: string[] = [];
  const podProfile = spec.securityContext?.seccompProfile;
  if (podProfile && !validSeccompType(podProfile.type)) {
    setters.push('pod');
    values.push(podProfile.type ?? '');
  }
  const bad: string[] = [];
  for (const c of allContainers(spec)) {
    const profile = c.securityContext?.seccompProfile;
    if (profile && !validSeccompType(profile.type)) {
      bad.push(c.name);
      values.push(profile.type ?? '');
    }
  }
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return ALLOWED;
  return forbiddenResult('seccompProfile', `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(values))}`);
}

const SYSCTLS_1_0 = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start'];
const SYSCTLS_1_27 = [...SYSCTLS_1_0, 'net.ipv4.ip_local_reserved_ports'];
const SYSCTLS_1_29 = [...SYSCTLS_1_27, 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes'];
const SYSCTLS_1_32 = [...SYSCTLS_1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];

function sysctls(allowed: readonly string[]) {
  const safe = new Set(allowed);
  return (_meta: PodMetadata, spec: PodSpec): CheckResult => {
    const bad = (spec.securityContext?.sysctls ?? []).map((s) => s.name).filter((name) => !safe.has(name));
    if (bad.length === 0) return ALLOWED;
    return forbiddenResult('forbidden sysctls', bad.join(', '));
  };
}

function windowsHostProcess(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const setters: string[] = [];
  if (spec.securityContext?.windowsOptions?.hostProcess === true) setters.push('pod');
  const bad = namesWhere(spec, (c) => c.securityContext?.windowsOptions?.hostProcess === true);
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return ALLOWED;
  return forbiddenResult('hostProcess', `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true`);
}

export const BASELINE_CHECKS: readonly Check[] = [
  { id: 'appArmorProfile', level: 'baseline', versions: [{ minimumVersion: v(0), checkPod: appArmorProfile }] },
  { id: 'capabilities_baseline', level: 'baseline', versions: [{ minimumVersion: v(0), checkPod: capabilitiesBaseline }] },
  { id: 'hostNamespaces', level: 'baseline', versions: [{ minimumVersion: v(0), checkPod: hostNamespaces }] },
  { id: 'hostPathVolumes', level: 'baseline', versions: [{ minimumVersion: v(0), checkPod: hostPathVolumes }] },
  { id: 'hostPorts', level: 'baseline', versions: [{ minimumVersion: v(0), checkPod: hostPorts }] },
  { id: 'hostProbesAndHostLifecycle', level: 'baseline', versions: [{ minimumVersion: v(34), checkPod: hostProbesAndHostLifecycle }] },
  { id: 'privileged', level: 'baseline', versions: [{ minimumVersion: v(0), checkPod: privileged }] },
  {
    id: 'procMount',
    level: 'baseline',
    versions: [
      { minimumVersion: v(0), checkPod: procMountStrict },
      { minimumVersion: v(35), checkPod: procMountBaseline1_35 },
    ],
  },
  {
    id: 'seLinuxOptions',
    level: 'baseline',
    versions: [
      { minimumVersion: v(0), checkPod: seLinuxOptions(SELINUX_TYPES_1_0) },
      { minimumVersion: v(31), checkPod: seLinuxOptions(SELINUX_TYPES_1_31) },
    ],
  },
  {
    id: 'seccompProfile_baseline',
    level: 'baseline',
    versions: [
      { minimumVersion: v(0), checkPod: seccompBaseline1_0 },
      { minimumVersion: v(19), checkPod: seccompBaseline1_19 },
    ],
  },
  {
    id: 'sysctls',
    level: 'baseline',
    versions: [
      { minimumVersion: v(0), checkPod: sysctls(SYSCTLS_1_0) },
      { minimumVersion: v(27), checkPod: sysctls(SYSCTLS_1_27) },
      { minimumVersion: v(29), checkPod: sysctls(SYSCTLS_1_29) },
      { minimumVersion: v(32), checkPod: sysctls(SYSCTLS_1_32) },
    ],
  },
  { id: 'windowsHostProcess', level: 'baseline', versions: [{ minimumVersion: v(0), checkPod: windowsHostProcess }] },
];
