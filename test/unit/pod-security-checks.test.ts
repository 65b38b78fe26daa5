import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Version, parseVersion, type Level } from '../../src/admission/pod-security/api.js';
import type { Check } from '../../src/admission/pod-security/check.js';
import { PodSecurityEvaluator, aggregateResults, forbiddenDetail } from '../../src/admission/pod-security/evaluator.js';
import type { PodMetadata, PodSpec } from '../../src/admission/pod-security/pod-spec.js';

/**
 * The Pod Security Standards check by check, as upstream's fixtures
 * (pod-security-admission/test/fixtures_*.go) exercise them: from a pod that
 * passes restricted, one change makes a pod that must fail (or pass) the
 * level at exactly the policy versions named; and the details of each check
 * word for word (policy/check_*_test.go).
 */

interface Pod {
  metadata: PodMetadata;
  spec: PodSpec;
}

const restrictedContainer = (name: string) => ({
  name,
  image: 'registry.k8s.io/pause',
  securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
});

function restrictedPod(): Pod {
  return {
    metadata: { name: 'test-pod' },
    spec: {
      securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      initContainers: [restrictedContainer('initcontainer1')],
      containers: [restrictedContainer('container1')],
    },
  };
}

type Mutate = (pod: Pod) => void;
const eachContainer = (pod: Pod, f: (sc: NonNullable<NonNullable<PodSpec['containers']>[number]['securityContext']>, c: NonNullable<PodSpec['containers']>[number]) => void): void => {
  for (const c of [...(pod.spec.initContainers ?? []), ...(pod.spec.containers ?? [])]) f((c.securityContext ??= {}), c);
};

interface Case {
  name: string;
  level: Exclude<Level, 'privileged'>;
  mutate: Mutate;
  /** Policy minors at which the pod fails the level: [from, until) — never when absent. */
  fails?: [number, number?];
  /** The forbidden reason at the level where it fails. */
  reason?: string;
}

const CASES: Case[] = [
  // privileged
  { name: 'privileged container', level: 'baseline', mutate: (p) => eachContainer(p, (sc) => (sc.privileged = true)), fails: [0], reason: 'privileged' },
  { name: 'privileged=false', level: 'baseline', mutate: (p) => eachContainer(p, (sc) => (sc.privileged = false)) },
  // hostNamespaces
  { name: 'hostNetwork', level: 'baseline', mutate: (p) => (p.spec.hostNetwork = true), fails: [0], reason: 'host namespaces' },
  { name: 'hostPID', level: 'baseline', mutate: (p) => (p.spec.hostPID = true), fails: [0], reason: 'host namespaces' },
  { name: 'hostIPC', level: 'baseline', mutate: (p) => (p.spec.hostIPC = true), fails: [0], reason: 'host namespaces' },
  { name: 'host namespaces false', level: 'baseline', mutate: (p) => Object.assign(p.spec, { hostNetwork: false, hostPID: false, hostIPC: false }) },
  // capabilities_baseline
  { name: 'add NET_RAW', level: 'baseline', mutate: (p) => eachContainer(p, (sc) => (sc.capabilities = { add: ['NET_RAW'] })), fails: [0], reason: 'non-default capabilities' },
  {
    name: 'add the default capabilities',
    level: 'baseline',
    mutate: (p) => eachContainer(p, (sc) => (sc.capabilities = { add: ['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT'] })),
  },
  // hostPathVolumes
  { name: 'hostPath volume', level: 'baseline', mutate: (p) => (p.spec.volumes = [{ name: 'volume-hostpath', hostPath: { path: '/a' } }]), fails: [0], reason: 'hostPath volumes' },
  // hostPorts
  { name: 'hostPort', level: 'baseline', mutate: (p) => (p.spec.containers![0]!.ports = [{ hostPort: 12345 }]), fails: [0], reason: 'hostPort' },
  { name: 'hostPort 0', level: 'baseline', mutate: (p) => (p.spec.containers![0]!.ports = [{ hostPort: 0 }]) },
  // appArmorProfile
  {
    name: 'apparmor annotation unconfined',
    level: 'baseline',
    mutate: (p) => (p.metadata.annotations = { 'container.apparmor.security.beta.kubernetes.io/container1': 'unconfined' }),
    fails: [0],
    reason: 'forbidden AppArmor profile',
  },
  { name: 'apparmor field Unconfined', level: 'baseline', mutate: (p) => (p.spec.securityContext!.appArmorProfile = { type: 'Unconfined' }), fails: [0], reason: 'forbidden AppArmor profile' },
  {
    name: 'apparmor allowed values',
    level: 'baseline',
    mutate: (p) => {
      p.metadata.annotations = { 'container.apparmor.security.beta.kubernetes.io/container1': 'runtime/default', 'container.apparmor.security.beta.kubernetes.io/initcontainer1': 'localhost/foo' };
      p.spec.securityContext!.appArmorProfile = { type: 'RuntimeDefault' };
      eachContainer(p, (sc) => (sc.appArmorProfile = { type: 'Localhost', localhostProfile: 'x' }));
    },
  },
  // seLinuxOptions
  { name: 'selinux type', level: 'baseline', mutate: (p) => (p.spec.securityContext!.seLinuxOptions = { type: 'somevalue' }), fails: [0], reason: 'seLinuxOptions' },
  { name: 'selinux user', level: 'baseline', mutate: (p) => eachContainer(p, (sc) => (sc.seLinuxOptions = { user: 'somevalue' })), fails: [0], reason: 'seLinuxOptions' },
  { name: 'selinux role', level: 'baseline', mutate: (p) => eachContainer(p, (sc) => (sc.seLinuxOptions = { role: 'somevalue' })), fails: [0], reason: 'seLinuxOptions' },
  { name: 'selinux container_engine_t', level: 'baseline', mutate: (p) => (p.spec.securityContext!.seLinuxOptions = { type: 'container_engine_t' }), fails: [0, 31], reason: 'seLinuxOptions' },
  {
    name: 'selinux allowed types and level',
    level: 'baseline',
    mutate: (p) => {
      p.spec.securityContext!.seLinuxOptions = { type: 'container_t', level: 's0:c1,c2' };
      p.spec.containers![0]!.securityContext!.seLinuxOptions = { type: 'container_init_t' };
      p.spec.initContainers![0]!.securityContext!.seLinuxOptions = { type: 'container_kvm_t' };
    },
  },
  // procMount
  { name: 'procMount Unmasked', level: 'baseline', mutate: (p) => eachContainer(p, (sc) => (sc.procMount = 'Unmasked')), fails: [0], reason: 'procMount' },
  {
    name: 'procMount Unmasked in a user namespace',
    level: 'baseline',
    mutate: (p) => {
      p.spec.hostUsers = false;
      eachContainer(p, (sc) => (sc.procMount = 'Unmasked'));
    },
    fails: [0, 35],
    reason: 'procMount',
  },
  {
    name: 'procMount Unmasked in a user namespace (restricted)',
    level: 'restricted',
    mutate: (p) => {
      p.spec.hostUsers = false;
      eachContainer(p, (sc) => (sc.procMount = 'Unmasked'));
    },
    fails: [0],
    reason: 'procMount',
  },
  { name: 'procMount Default', level: 'baseline', mutate: (p) => eachContainer(p, (sc) => (sc.procMount = 'Default')) },
  // seccompProfile_baseline
  {
    name: 'seccomp annotation unconfined',
    level: 'baseline',
    mutate: (p) => (p.metadata.annotations = { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' }),
    fails: [0, 19],
    reason: 'seccompProfile',
  },
  {
    name: 'seccomp container annotation unconfined',
    level: 'baseline',
    mutate: (p) => (p.metadata.annotations = { 'container.seccomp.security.alpha.kubernetes.io/container1': 'unconfined' }),
    fails: [0, 19],
    reason: 'seccompProfile',
  },
  { name: 'seccomp field Unconfined', level: 'baseline', mutate: (p) => (p.spec.securityContext!.seccompProfile = { type: 'Unconfined' }), fails: [19], reason: 'seccompProfile' },
  {
    name: 'seccomp allowed annotations',
    level: 'baseline',
    mutate: (p) => (p.metadata.annotations = { 'seccomp.security.alpha.kubernetes.io/pod': 'runtime/default', 'container.seccomp.security.alpha.kubernetes.io/container1': 'docker/default', 'container.seccomp.security.alpha.kubernetes.io/initcontainer1': 'localhost/foo' }),
  },
  // sysctls
  { name: 'unsafe sysctl', level: 'baseline', mutate: (p) => (p.spec.securityContext!.sysctls = [{ name: 'kernel.msgmax', value: '1' }]), fails: [0], reason: 'forbidden sysctls' },
  { name: 'safe sysctls of v1.0', level: 'baseline', mutate: (p) => (p.spec.securityContext!.sysctls = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start'].map((name) => ({ name, value: '0' }))) },
  { name: 'ip_local_reserved_ports', level: 'baseline', mutate: (p) => (p.spec.securityContext!.sysctls = [{ name: 'net.ipv4.ip_local_reserved_ports', value: '1' }]), fails: [0, 27], reason: 'forbidden sysctls' },
  ...['net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes'].map(
    (name): Case => ({ name, level: 'baseline', mutate: (p) => (p.spec.securityContext!.sysctls = [{ name, value: '1' }]), fails: [0, 29], reason: 'forbidden sysctls' }),
  ),
  ...['net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'].map(
    (name): Case => ({ name, level: 'baseline', mutate: (p) => (p.spec.securityContext!.sysctls = [{ name, value: '1' }]), fails: [0, 32], reason: 'forbidden sysctls' }),
  ),
  { name: 'tcp_slow_start_after_idle (1.37)', level: 'baseline', mutate: (p) => (p.spec.securityContext!.sysctls = [{ name: 'net.ipv4.tcp_slow_start_after_idle', value: '1' }]), fails: [0], reason: 'forbidden sysctls' },
  // windowsHostProcess
  { name: 'pod hostProcess', level: 'baseline', mutate: (p) => (p.spec.securityContext!.windowsOptions = { hostProcess: true }), fails: [0], reason: 'hostProcess' },
  { name: 'container hostProcess', level: 'baseline', mutate: (p) => eachContainer(p, (sc) => (sc.windowsOptions = { hostProcess: true })), fails: [0], reason: 'hostProcess' },
  // hostProbesAndHostLifecycle
  { name: 'probe host', level: 'baseline', mutate: (p) => (p.spec.containers![0]!.livenessProbe = { httpGet: { host: 'bad.host' } }), fails: [34], reason: 'probe or lifecycle host' },
  { name: 'lifecycle host', level: 'baseline', mutate: (p) => (p.spec.initContainers![0]!.lifecycle = { preStop: { tcpSocket: { host: '127.0.0.1' } } }), fails: [34], reason: 'probe or lifecycle host' },
  { name: 'probe without host', level: 'baseline', mutate: (p) => (p.spec.containers![0]!.readinessProbe = { httpGet: { host: '' } }) },

  // allowPrivilegeEscalation
  { name: 'allowPrivilegeEscalation unset', level: 'restricted', mutate: (p) => eachContainer(p, (sc) => delete sc.allowPrivilegeEscalation), fails: [8], reason: 'allowPrivilegeEscalation != false' },
  { name: 'allowPrivilegeEscalation true', level: 'restricted', mutate: (p) => eachContainer(p, (sc) => (sc.allowPrivilegeEscalation = true)), fails: [8], reason: 'allowPrivilegeEscalation != false' },
  {
    name: 'windows pod without allowPrivilegeEscalation',
    level: 'restricted',
    mutate: (p) => {
      p.spec.os = { name: 'windows' };
      eachContainer(p, (sc) => delete sc.allowPrivilegeEscalation);
    },
    fails: [8, 25],
    reason: 'allowPrivilegeEscalation != false',
  },
  // capabilities_restricted
  { name: 'no drop ALL', level: 'restricted', mutate: (p) => eachContainer(p, (sc) => delete sc.capabilities), fails: [22], reason: 'unrestricted capabilities' },
  { name: 'add CHOWN', level: 'restricted', mutate: (p) => eachContainer(p, (sc) => (sc.capabilities = { drop: ['ALL'], add: ['CHOWN'] })), fails: [22], reason: 'unrestricted capabilities' },
  { name: 'add SYS_ADMIN', level: 'restricted', mutate: (p) => eachContainer(p, (sc) => (sc.capabilities = { drop: ['ALL'], add: ['SYS_ADMIN'] })), fails: [0] },
  { name: 'add NET_BIND_SERVICE', level: 'restricted', mutate: (p) => eachContainer(p, (sc) => (sc.capabilities = { drop: ['ALL'], add: ['NET_BIND_SERVICE'] })) },
  {
    name: 'windows pod without capabilities',
    level: 'restricted',
    mutate: (p) => {
      p.spec.os = { name: 'windows' };
      eachContainer(p, (sc) => delete sc.capabilities);
    },
    fails: [22, 25],
    reason: 'unrestricted capabilities',
  },
  // restrictedVolumes
  { name: 'nfs volume', level: 'restricted', mutate: (p) => (p.spec.volumes = [{ name: 'v', nfs: { server: 'a', path: '/b' } }]), fails: [0], reason: 'restricted volume types' },
  { name: 'hostPath volume (restricted)', level: 'restricted', mutate: (p) => (p.spec.volumes = [{ name: 'v', hostPath: { path: '/a' } }]), fails: [0], reason: 'restricted volume types' },
  {
    name: 'allowed volume types',
    level: 'restricted',
    mutate: (p) =>
      (p.spec.volumes = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'image', 'persistentVolumeClaim', 'projected', 'secret'].map((t) => ({ name: t.toLowerCase(), [t]: {} }))),
  },
  // runAsNonRoot
  { name: 'runAsNonRoot unset', level: 'restricted', mutate: (p) => delete p.spec.securityContext!.runAsNonRoot, fails: [0], reason: 'runAsNonRoot != true' },
  { name: 'runAsNonRoot false on a container', level: 'restricted', mutate: (p) => eachContainer(p, (sc) => (sc.runAsNonRoot = false)), fails: [0], reason: 'runAsNonRoot != true' },
  {
    name: 'runAsNonRoot unset in a user namespace',
    level: 'restricted',
    mutate: (p) => {
      p.spec.hostUsers = false;
      delete p.spec.securityContext!.runAsNonRoot;
    },
    fails: [0, 35],
    reason: 'runAsNonRoot != true',
  },
  {
    name: 'runAsNonRoot on each container only',
    level: 'restricted',
    mutate: (p) => {
      delete p.spec.securityContext!.runAsNonRoot;
      eachContainer(p, (sc) => (sc.runAsNonRoot = true));
    },
  },
  // runAsUser
  { name: 'runAsUser 0', level: 'restricted', mutate: (p) => (p.spec.securityContext!.runAsUser = 0), fails: [23], reason: 'runAsUser=0' },
  { name: 'container runAsUser 0', level: 'restricted', mutate: (p) => eachContainer(p, (sc) => (sc.runAsUser = 0)), fails: [23], reason: 'runAsUser=0' },
  {
    name: 'runAsUser 0 in a user namespace',
    level: 'restricted',
    mutate: (p) => {
      p.spec.hostUsers = false;
      p.spec.securityContext!.runAsUser = 0;
    },
    fails: [23, 35],
    reason: 'runAsUser=0',
  },
  { name: 'runAsUser 1000', level: 'restricted', mutate: (p) => (p.spec.securityContext!.runAsUser = 1000) },
  // seccompProfile_restricted
  { name: 'seccomp unset', level: 'restricted', mutate: (p) => delete p.spec.securityContext!.seccompProfile, fails: [19], reason: 'seccompProfile' },
  { name: 'container seccomp Unconfined', level: 'restricted', mutate: (p) => eachContainer(p, (sc) => (sc.seccompProfile = { type: 'Unconfined' })), fails: [19], reason: 'seccompProfile' },
  {
    name: 'seccomp on each container only',
    level: 'restricted',
    mutate: (p) => {
      delete p.spec.securityContext!.seccompProfile;
      eachContainer(p, (sc) => (sc.seccompProfile = { type: 'Localhost', localhostProfile: 'x' }));
    },
  },
  {
    name: 'windows pod without seccomp',
    level: 'restricted',
    mutate: (p) => {
      p.spec.os = { name: 'windows' };
      delete p.spec.securityContext!.seccompProfile;
    },
    fails: [19, 25],
    reason: 'seccompProfile',
  },
];

const evaluator = new PodSecurityEvaluator();
const LATEST_MINOR = 36;

function evaluate(level: Level, version: string, pod: Pod): ReturnType<typeof aggregateResults> {
  return aggregateResults(evaluator.evaluatePod({ level, version: parseVersion(version).version }, pod.metadata, pod.spec));
}

describe('PodSecurity checks by level and policy version', () => {
  it('the base pod passes restricted at every version, and anything passes privileged', () => {
    for (let minor = 0; minor <= LATEST_MINOR; minor++) assert.ok(evaluate('restricted', `v1.${minor}`, restrictedPod()).allowed, `v1.${minor}`);
    assert.ok(evaluate('restricted', 'latest', restrictedPod()).allowed);
    const worst = restrictedPod();
    worst.spec.hostNetwork = true;
    eachContainer(worst, (sc) => (sc.privileged = true));
    assert.deepEqual(evaluator.evaluatePod({ level: 'privileged', version: Version.LATEST }, worst.metadata, worst.spec), []);
  });

  for (const c of CASES) {
    it(`${c.level}: ${c.name}`, () => {
      const pod = restrictedPod();
      c.mutate(pod);
      const versions = [...Array.from({ length: LATEST_MINOR + 1 }, (_, i) => `v1.${i}`), 'v1.99', 'latest'];
      for (const version of versions) {
        const minor = version === 'latest' ? 99 : Number(version.slice(3));
        const shouldFail = c.fails !== undefined && minor >= c.fails[0] && minor < (c.fails[1] ?? Infinity);
        const result = evaluate(c.level, version, pod);
        assert.equal(result.allowed, !shouldFail, `${c.level}:${version} ${forbiddenDetail(result)}`);
        if (shouldFail && c.reason) assert.ok(result.reasons.includes(c.reason), `${c.level}:${version} reasons ${result.reasons.join(' | ')}`);
        // A pod that fails baseline fails restricted too.
        if (shouldFail && c.level === 'baseline') assert.ok(!evaluate('restricted', version, pod).allowed, `restricted:${version}`);
      }
    });
  }
});

function detail(level: Level, spec: PodSpec, metadata: PodMetadata = {}, version = 'latest'): string {
  return forbiddenDetail(aggregateResults(evaluator.evaluatePod({ level, version: parseVersion(version).version }, metadata, spec)));
}

describe('PodSecurity check details word for word', () => {
  it('lists baseline reasons before restricted ones, each group by check id', () => {
    const spec: PodSpec = { hostNetwork: true, containers: [{ name: 'c', securityContext: { privileged: true } }] };
    assert.equal(
      detail('restricted', spec),
      'host namespaces (hostNetwork=true), privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
    assert.equal(detail('baseline', spec), 'host namespaces (hostNetwork=true), privileged (container "c" must not set securityContext.privileged=true)');
  });

  it('host namespaces, ports, paths and probes', () => {
    assert.equal(detail('baseline', { hostNetwork: true, hostPID: true, hostIPC: true }), 'host namespaces (hostNetwork=true, hostPID=true, hostIPC=true)');
    assert.equal(
      detail('baseline', { containers: [{ name: 'a', ports: [{ hostPort: 20 }, { hostPort: 0 }] }, { name: 'b', ports: [{ hostPort: 100 }, { hostPort: 20 }] }, { name: 'c', ports: [{}] }] }),
      'hostPort (containers "a", "b" use hostPorts 100, 20)',
    );
    assert.equal(detail('baseline', { containers: [{ name: 'a', ports: [{ hostPort: 8080 }] }] }), 'hostPort (container "a" uses hostPort 8080)');
    assert.equal(detail('baseline', { volumes: [{ name: 'a', hostPath: {} }, { name: 'b', emptyDir: {} }, { name: 'c', hostPath: {} }] }), 'hostPath volumes (volumes "a", "c")');
    assert.equal(
      detail('baseline', {
        containers: [
          { name: 'b', livenessProbe: { httpGet: { host: 'z.example' } }, lifecycle: { postStart: { tcpSocket: { host: 'a.example' } } } },
          { name: 'a', startupProbe: { tcpSocket: { host: 'z.example' } } },
        ],
      }),
      'probe or lifecycle host (containers "a", "b" use probe or lifecycle hosts "a.example", "z.example")',
    );
    assert.equal(detail('baseline', { containers: [{ name: 'a', readinessProbe: { httpGet: { host: 'h' } } }] }), 'probe or lifecycle host (container "a" uses probe or lifecycle host "h")');
  });

  it('capabilities', () => {
    assert.equal(
      detail('baseline', { containers: [{ name: 'a', securityContext: { capabilities: { add: ['NET_RAW', 'CHOWN', 'BPF'] } } }, { name: 'b', securityContext: { capabilities: { add: ['NET_RAW'] } } }] }),
      'non-default capabilities (containers "a", "b" must not include "BPF", "NET_RAW" in securityContext.capabilities.add)',
    );
    const restricted = detail('restricted', {
      securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [
        { name: 'a', securityContext: { allowPrivilegeEscalation: false } },
        { name: 'b', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'], add: ['CHOWN', 'NET_BIND_SERVICE'] } } },
        { name: 'c', securityContext: { allowPrivilegeEscalation: false, capabilities: { add: ['SYS_TIME'] } } },
      ],
    });
    // Before v1.22 restricted has no capabilities check of its own: baseline's applies.
    const sysAdmin: PodSpec = { securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } }, containers: [{ name: 'a', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'], add: ['SYS_ADMIN'] } } }] };
    assert.equal(detail('restricted', sysAdmin, {}, 'v1.21'), 'non-default capabilities (container "a" must not include "SYS_ADMIN" in securityContext.capabilities.add)');
    assert.equal(detail('restricted', sysAdmin, {}, 'v1.22'), 'unrestricted capabilities (container "a" must not include "SYS_ADMIN" in securityContext.capabilities.add)');
    assert.equal(
      restricted,
      'unrestricted capabilities (containers "a", "c" must set securityContext.capabilities.drop=["ALL"]; containers "b", "c" must not include "CHOWN", "SYS_TIME" in securityContext.capabilities.add)',
    );
  });

  it('AppArmor: field and annotations', () => {
    assert.equal(
      detail('baseline', {
        securityContext: { appArmorProfile: { type: 'Unconfined' } },
        containers: [{ name: 'a', securityContext: { appArmorProfile: { type: 'Unconfined' } } }, { name: 'b', securityContext: { appArmorProfile: { type: 'Bogus' } } }],
      }, {
        annotations: {
          'container.apparmor.security.beta.kubernetes.io/': 'bogus',
          'container.apparmor.security.beta.kubernetes.io/a': '',
          'container.apparmor.security.beta.kubernetes.io/b': 'runtime/default',
          'container.apparmor.security.beta.kubernetes.io/c': 'localhost/',
          'container.apparmor.security.beta.kubernetes.io/e': 'unconfined',
        },
      }),
      'forbidden AppArmor profiles (pod and containers "a", "b" and annotations must not set AppArmor profile type to "Bogus", "Unconfined", "container.apparmor.security.beta.kubernetes.io/="bogus"", "container.apparmor.security.beta.kubernetes.io/e="unconfined"")',
    );
  });

  it('SELinux, procMount, seccomp, sysctls and hostProcess', () => {
    assert.equal(
      detail('baseline', {
        securityContext: { seLinuxOptions: { type: 'bar', user: 'u' } },
        containers: [{ name: 'a', securityContext: { seLinuxOptions: { type: 'foo', role: 'r' } } }, { name: 'b', securityContext: { seLinuxOptions: { type: 'container_t' } } }],
      }),
      'seLinuxOptions (pod and container "a" set forbidden securityContext.seLinuxOptions: types "bar", "foo"; user may not be set; role may not be set)',
    );
    assert.equal(
      detail('baseline', { containers: [{ name: 'a', securityContext: { procMount: 'Unmasked' } }, { name: 'b', securityContext: { procMount: 'other' } }, { name: 'c', securityContext: { procMount: 'Default' } }] }),
      'procMount (containers "a", "b" must not set securityContext.procMount to "Unmasked", "other")',
    );
    assert.equal(
      detail('baseline', { containers: [{ name: 'a' }, { name: 'b' }] }, { annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined', 'container.seccomp.security.alpha.kubernetes.io/b': 'foo' } }, 'v1.18'),
      'seccompProfile (forbidden annotations container.seccomp.security.alpha.kubernetes.io/b="foo", seccomp.security.alpha.kubernetes.io/pod="unconfined")',
    );
    assert.equal(
      detail('baseline', { securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [{ name: 'a', securityContext: { seccompProfile: { type: 'Unknown' } } }] }),
      'seccompProfile (pod and container "a" must not set securityContext.seccompProfile.type to "Unconfined", "Unknown")',
    );
    assert.equal(detail('baseline', { securityContext: { sysctls: [{ name: 'b' }, { name: 'kernel.shm_rmid_forced' }, { name: 'a' }] } }), 'forbidden sysctls (b, a)');
    assert.equal(
      detail('baseline', { securityContext: { windowsOptions: { hostProcess: true } }, containers: [{ name: 'a', securityContext: { windowsOptions: { hostProcess: true } } }] }),
      'hostProcess (pod and container "a" must not set securityContext.windowsOptions.hostProcess=true)',
    );
  });

  it('restricted volumes, runAsNonRoot, runAsUser and seccomp', () => {
    const base = { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };
    const ok = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };
    assert.equal(
      detail('restricted', { securityContext: base, volumes: [{ name: 'a', nfs: {} }, { name: 'b', secret: {} }, { name: 'c', gitRepo: {} }, { name: 'd', nfs: {} }] }),
      'restricted volume types (volumes "a", "c", "d" use restricted volume types "gitRepo", "nfs")',
    );
    assert.equal(detail('restricted', { securityContext: base, volumes: [{ name: 'a', hostPath: {} }] }), 'restricted volume types (volume "a" uses restricted volume type "hostPath")');
    assert.equal(
      detail('restricted', { securityContext: { ...base, runAsNonRoot: false }, containers: [{ name: 'a', securityContext: { ...ok, runAsNonRoot: false } }, { name: 'b', securityContext: ok }] }),
      'runAsNonRoot != true (pod and container "a" must not set securityContext.runAsNonRoot=false)',
    );
    assert.equal(
      detail('restricted', { securityContext: { seccompProfile: { type: 'RuntimeDefault' } }, containers: [{ name: 'a', securityContext: { ...ok, runAsNonRoot: true } }, { name: 'b', securityContext: ok }] }),
      'runAsNonRoot != true (pod or container "b" must set securityContext.runAsNonRoot=true)',
    );
    assert.equal(
      detail('restricted', { securityContext: { ...base, runAsUser: 0 }, containers: [{ name: 'a', securityContext: { ...ok, runAsUser: 0 } }, { name: 'b', securityContext: { ...ok, runAsUser: 1 } }] }),
      'runAsUser=0 (pod and container "a" must not set runAsUser=0)',
    );
    assert.equal(
      detail('restricted', { securityContext: { runAsNonRoot: true }, containers: [{ name: 'a', securityContext: { ...ok, seccompProfile: { type: 'Unconfined' } } }, { name: 'b', securityContext: ok }] }),
      'seccompProfile (container "a" must not set securityContext.seccompProfile.type to "Unconfined")',
    );
    assert.equal(
      detail('restricted', { securityContext: { runAsNonRoot: true }, containers: [{ name: 'a', securityContext: ok }, { name: 'b', securityContext: ok }] }),
      'seccompProfile (pod or containers "a", "b" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
  });
});

/** A check whose every revision refuses with `<id>:<version>`, as upstream's registry_test generates them. */
function generated(id: string, level: 'baseline' | 'restricted', versions: string[], overrides: string[][] = []): Check {
  return {
    id,
    level,
    versions: versions.map((v, i) => ({
      minimumVersion: parseVersion(v).version,
      checkPod: () => ({ allowed: false, forbiddenReason: `${id}:${v}` }),
      ...(overrides[i] ? { overrides: overrides[i] } : {}),
    })),
  };
}

function reasons(e: PodSecurityEvaluator, level: Level, version: string): string[] {
  return e.evaluatePod({ level, version: parseVersion(version).version }, {}, {}).map((r) => r.forbiddenReason ?? '');
}

describe('PodSecurity check registry', () => {
  it('picks each check revision by version, orders by level then id, and drops overridden baseline checks for restricted', () => {
    const e = new PodSecurityEvaluator([
      generated('a', 'baseline', ['v1.0']),
      generated('b', 'baseline', ['v1.10']),
      generated('c', 'baseline', ['v1.0', 'v1.5', 'v1.10']),
      generated('d', 'baseline', ['v1.11', 'v1.15', 'v1.20']),
      generated('e', 'restricted', ['v1.0']),
      generated('f', 'restricted', ['v1.12', 'v1.16', 'v1.21']),
      generated('g', 'restricted', ['v1.10'], [['a']]),
      generated('h', 'restricted', ['v1.0'], [['b']]),
      generated('i', 'restricted', ['v1.10', 'v1.21'], [['c'], ['d']]),
    ]);
    assert.equal(e.maxVersion.toString(), 'v1.21');
    assert.deepEqual(reasons(e, 'privileged', 'latest'), []);
    assert.deepEqual(reasons(e, 'baseline', 'v1.0'), ['a:v1.0', 'c:v1.0']);
    assert.deepEqual(reasons(e, 'baseline', 'v1.4'), ['a:v1.0', 'c:v1.0']);
    assert.deepEqual(reasons(e, 'baseline', 'v1.5'), ['a:v1.0', 'c:v1.5']);
    assert.deepEqual(reasons(e, 'baseline', 'v1.10'), ['a:v1.0', 'b:v1.10', 'c:v1.10']);
    assert.deepEqual(reasons(e, 'baseline', 'v1.11'), ['a:v1.0', 'b:v1.10', 'c:v1.10', 'd:v1.11']);
    assert.deepEqual(reasons(e, 'baseline', 'latest'), ['a:v1.0', 'b:v1.10', 'c:v1.10', 'd:v1.20']);
    assert.deepEqual(reasons(e, 'restricted', 'v1.0'), ['a:v1.0', 'c:v1.0', 'e:v1.0', 'h:v1.0']);
    assert.deepEqual(reasons(e, 'restricted', 'v1.5'), ['a:v1.0', 'c:v1.5', 'e:v1.0', 'h:v1.0']);
    assert.deepEqual(reasons(e, 'restricted', 'v1.10'), ['e:v1.0', 'g:v1.10', 'h:v1.0', 'i:v1.10']);
    assert.deepEqual(reasons(e, 'restricted', 'v1.11'), ['d:v1.11', 'e:v1.0', 'g:v1.10', 'h:v1.0', 'i:v1.10']);
    assert.deepEqual(reasons(e, 'restricted', 'latest'), ['c:v1.10', 'e:v1.0', 'f:v1.21', 'g:v1.10', 'h:v1.0', 'i:v1.21']);
    assert.deepEqual(reasons(e, 'restricted', 'v1.10000'), ['c:v1.10', 'e:v1.0', 'f:v1.21', 'g:v1.10', 'h:v1.0', 'i:v1.21']);
  });

  it('refuses invalid check sets with kube’s errors', () => {
    const err = (checks: Check[]): string => {
      try {
        new PodSecurityEvaluator(checks);
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    };
    assert.equal(err([generated('a', 'baseline', ['v1.0']), generated('a', 'baseline', ['v1.1'])]), 'multiple checks registered for ID a');
    assert.equal(err([generated('a', 'baseline', [])]), 'check a: empty');
    assert.equal(err([generated('a', 'baseline', ['latest'])]), "check a: version cannot be 'latest'");
    assert.equal(err([generated('a', 'baseline', ['v1.2', 'v1.2'])]), 'check a: duplicate version v1.2');
    assert.equal(err([generated('a', 'baseline', ['v1.3', 'v1.2'])]), 'check a: versions must be strictly increasing');
    assert.equal(err([generated('a', 'baseline', ['v1.0'], [['b']])]), 'check a: only restricted checks may set overrides');
    assert.equal(err([generated('b', 'restricted', ['v1.0']), generated('a', 'restricted', ['v1.0'], [['b']])]), 'check a: overrides restricted check b');
  });

  it('latest is v1.35 in kube 1.36: the newest revisions are procMount, runAsNonRoot and runAsUser at v1.35', () => {
    assert.equal(evaluator.maxVersion.toString(), 'v1.35');
  });
});
