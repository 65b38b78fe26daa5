import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { AlwaysAllowAuthorizer } from '../../src/authz/modes.js';
import { ApiServer } from '../../src/server/apiserver.js';
import { writeKubeconfig } from '../../src/server/kubeconfig.js';
import { http, kubectl, kubectlMissing, removeDir, tempDir } from '../helpers/server.js';

/**
 * PodSecurity as a kubectl user meets it: a restricted namespace refuses a
 * privileged pod with kube's message, warn mode prints Warning lines,
 * labelling a namespace whose pods would violate the new level prints kube's
 * warnings, bad labels are refused, pod controllers only warn, and a user
 * exempted by the PodSecurityConfiguration is let through.
 */

const skip = kubectlMissing();

const privilegedPod = (name: string, namespace: string): string => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: ${namespace}
spec:
  containers:
  - name: app
    image: nginx
    securityContext:
      privileged: true
`;

const RESTRICTED_REASONS =
  'privileged (container "app" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "app" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "app" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

describe('PodSecurity with kubectl', { skip }, () => {
  let server: ApiServer;
  let dir: string;
  let admin: { kubeconfig: string };

  before(async () => {
    server = new ApiServer({
      authorizers: [new AlwaysAllowAuthorizer()],
      admissionConfigurations: new Map([
        ['PodSecurity', { apiVersion: 'pod-security.admission.config.k8s.io/v1', kind: 'PodSecurityConfiguration', exemptions: { usernames: ['ci-bot'] } }],
      ]),
    });
    await server.start();
    dir = tempDir('capstan-pod-security-');
    admin = { kubeconfig: join(dir, 'admin.kubeconfig') };
    writeKubeconfig(admin.kubeconfig, server.adminKubeconfig());
  });

  after(async () => {
    await server?.stop();
    if (dir) removeDir(dir);
  });

  const run = (args: string[], input?: string) => kubectl(admin, args, input);

  it('a restricted namespace refuses a privileged pod with kube’s message', async () => {
    assert.equal((await run(['create', 'namespace', 'locked'])).code, 0);
    const labelled = await run(['label', 'namespace', 'locked', 'pod-security.kubernetes.io/enforce=restricted']);
    assert.equal(labelled.code, 0, labelled.stderr);
    assert.equal(labelled.stdout.trim(), 'namespace/locked labeled');
    const refused = await run(['apply', '-f', '-'], privilegedPod('priv', 'locked'));
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr.trim(), `Error from server (Forbidden): error when creating "STDIN": pods "priv" is forbidden: violates PodSecurity "restricted:latest": ${RESTRICTED_REASONS}`);
    assert.equal((await run(['get', 'pod', 'priv', '-n', 'locked'])).code, 1, 'nothing was stored');
  });

  it('warn mode prints Warning lines and creates the pod; pod controllers only warn', async () => {
    assert.equal((await run(['create', 'namespace', 'warned'])).code, 0);
    assert.equal((await run(['label', 'namespace', 'warned', 'pod-security.kubernetes.io/warn=baseline', 'pod-security.kubernetes.io/warn-version=v1.36'])).code, 0);
    const created = await run(['apply', '-f', '-'], privilegedPod('priv', 'warned'));
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stderr.trim(), 'Warning: would violate PodSecurity "baseline:v1.36": privileged (container "app" must not set securityContext.privileged=true)');
    assert.equal(created.stdout.trim(), 'pod/priv created');

    assert.equal((await run(['create', 'namespace', 'ctrl'])).code, 0);
    assert.equal((await run(['label', 'namespace', 'ctrl', 'pod-security.kubernetes.io/enforce=restricted', 'pod-security.kubernetes.io/warn=restricted'])).code, 0);
    const deployment = await run(['create', 'deployment', 'web', '--image=nginx', '-n', 'ctrl']);
    assert.equal(deployment.code, 0, deployment.stderr);
    assert.equal(
      deployment.stderr.trim(),
      'Warning: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
  });

  it('labelling a namespace with violating pods prints kube’s warnings; bad labels are refused', async () => {
    assert.equal((await run(['create', 'namespace', 'team'])).code, 0);
    for (const name of ['b', 'a']) assert.equal((await run(['apply', '-f', '-'], privilegedPod(name, 'team'))).code, 0);
    assert.equal((await run(['run', 'host', '--image=nginx', '-n', 'team', '--overrides={"spec":{"hostNetwork":true}}'])).code, 0);
    const labelled = await run(['label', 'namespace', 'team', 'pod-security.kubernetes.io/enforce=baseline']);
    assert.equal(labelled.code, 0, labelled.stderr);
    assert.deepEqual(labelled.stderr.trim().split('\n'), [
      'Warning: existing pods in namespace "team" violate the new PodSecurity enforce level "baseline:latest"',
      'Warning: a (and 1 other pod): privileged',
      'Warning: host: host namespaces',
    ]);
    assert.equal(labelled.stdout.trim(), 'namespace/team labeled');

    const bad = await run(['label', 'namespace', 'team', '--overwrite', 'pod-security.kubernetes.io/enforce=strict']);
    assert.equal(bad.code, 1);
    assert.equal(
      bad.stderr.trim(),
      'The Namespace "team" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted',
    );
  });

  it('a user exempted by the configuration creates what others may not', async () => {
    const exempt = await kubectl(admin, ['apply', '--as=ci-bot', '-f', '-'], privilegedPod('exempt', 'locked'));
    assert.equal(exempt.code, 0, exempt.stderr);
    assert.equal(exempt.stdout.trim(), 'pod/exempt created');
    const other = await kubectl(admin, ['apply', '--as=someone-else', '-f', '-'], privilegedPod('other', 'locked'));
    assert.equal(other.code, 1);
    assert.match(other.stderr, /pods "other" is forbidden: violates PodSecurity "restricted:latest"/);
  });

  it('counts evaluations, exemptions and errors in /metrics', async () => {
    const kc = server.adminKubeconfig();
    const res = await http({ url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } }, 'GET', '/metrics');
    assert.equal(res.status, 200);
    const lines = res.text.split('\n');
    assert.ok(lines.includes('# HELP pod_security_evaluations_total [ALPHA] Number of policy evaluations that occurred, not counting ignored or exempt requests.'));
    // The two privileged pods refused in "locked" (the admin's and someone-else's).
    assert.ok(
      lines.includes('pod_security_evaluations_total{decision="deny",mode="enforce",policy_level="restricted",policy_version="latest",request_operation="create",resource="pod",subresource=""} 2'),
      lines.filter((l) => l.startsWith('pod_security')).join('\n'),
    );
    assert.ok(lines.includes('pod_security_evaluations_total{decision="deny",mode="warn",policy_level="baseline",policy_version="v1.36",request_operation="create",resource="pod",subresource=""} 1'));
    assert.ok(lines.some((l) => /^pod_security_evaluations_total\{decision="deny",mode="warn",policy_level="restricted",policy_version="latest",request_operation="create",resource="controller",subresource=""\} [1-9]/.test(l)));
    assert.ok(lines.includes('pod_security_exemptions_total{request_operation="create",resource="pod",subresource=""} 1'));
  });
});
