import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { AuthorizationConfigError, loadAuthorizationConfiguration } from '../../src/authz/config-file.js';
import { InClusterWebhookError } from '../../src/authz/webhook.js';
import { ApiServer } from '../../src/server/apiserver.js';
import { eventually, removeDir, ROOT, tempDir } from '../helpers/server.js';

/** --authorization-config: kube's validation, the chain it names, reloads, and a broken file keeping the running chain. */

const config = (authorizers: string) => `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
${authorizers}`;

describe('--authorization-config', () => {
  it('validates as kube does', () => {
    const dir = tempDir('capstan-authz-config-');
    try {
      const file = join(dir, 'authz.yaml');
      const load = (text: string) => {
        writeFileSync(file, text);
        try {
          loadAuthorizationConfiguration(file);
          return '';
        } catch (err) {
          assert.ok(err instanceof AuthorizationConfigError);
          return err.message;
        }
      };
      assert.equal(load(config('- type: Node\n  name: node\n- type: RBAC\n  name: rbac\n')), '');
      assert.equal(load(config('').replace('authorizers:\n', 'authorizers: []\n')), 'authorizers: Required value: at least one authorization mode must be defined');
      assert.equal(
        load(config('- type: Foo\n  name: foo\n')),
        'authorizers[0].type: Unsupported value: "Foo": supported values: "ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"',
      );
      assert.equal(load(config('- type: RBAC\n  name: a\n- type: RBAC\n  name: b\n')), 'authorizers[1].type: Duplicate value: "RBAC"');
      assert.equal(load(config('- type: RBAC\n- type: Node\n  name: Bad_Name\n')), '[authorizers[0].name: Required value, authorizers[1].name: Invalid value: "Bad_Name": authorizer name is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')]');
      assert.equal(load(config('- type: Webhook\n  name: hook\n')), 'authorizers[0].webhook: Required value: required when type=Webhook');
      assert.match(load('kind: Other\n'), /^failed to load config from file .*authz\.yaml: no kind "Other" is registered for version ""$/);
    } finally {
      removeDir(dir);
    }
  });

  it('builds the chain from the file, follows changes, and keeps it when the file breaks', async () => {
    const dir = tempDir('capstan-authz-config-');
    const file = join(dir, 'authz.yaml');
    writeFileSync(file, config('- type: Node\n  name: node\n- type: RBAC\n  name: rbac\n'));
    const server = new ApiServer({ config: { authorizationConfigFile: file } });
    await server.start();
    try {
      const admin = server.client('authorization-config-test');
      const carolMay = async () => {
        const r = await admin.create({ group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews' }, { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'carol', groups: ['system:authenticated'], resourceAttributes: { namespace: 'default', verb: 'list', resource: 'pods' } } });
        return (r.status as { allowed: boolean }).allowed;
      };
      assert.equal(await carolMay(), false);
      // The defaults are reconciled: RBAC is on.
      assert.ok((await admin.get({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', name: 'cluster-admin' })).metadata);
      writeFileSync(file, config('- type: AlwaysAllow\n  name: everyone\n'));
      await eventually(carolMay, 15_000);
      writeFileSync(file, config('- type: RBAC\n- type: RBAC\n'));
      writeFileSync(file, 'not: [valid');
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(await carolMay(), true, 'a broken file keeps the running chain');
    } finally {
      await server.stop();
      removeDir(dir);
    }
  });

  it('does with an InClusterConfig webhook what kube-apiserver 1.36 does: valid, then a nil-pointer panic building it (exit 2)', async () => {
    const dir = tempDir('capstan-authz-config-');
    try {
      const file = join(dir, 'authz.yaml');
      const inCluster = (extra = '') => config(`- type: Webhook
  name: in-cluster
  webhook:
    timeout: 3s
    authorizedTTL: 5m
    unauthorizedTTL: 30s
    subjectAccessReviewVersion: v1
    failurePolicy: NoOpinion
    connectionInfo:
      type: InClusterConfig
${extra}- type: RBAC
  name: rbac
`);
      writeFileSync(file, inCluster('      kubeConfigFile: /etc/x\n'));
      assert.throws(() => loadAuthorizationConfiguration(file), (e: unknown) => (e as Error).message === 'authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "/etc/x": can only be set when type=KubeConfigFile');
      writeFileSync(file, inCluster());
      assert.equal(loadAuthorizationConfiguration(file)[0]?.webhook?.kubeconfigFile, undefined, 'kube\'s validation accepts it');
      assert.throws(() => new ApiServer({ config: { authorizationConfigFile: file } }), (e: unknown) => e instanceof InClusterWebhookError);
      const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'src', 'cli', 'main.js'), 'serve', '--storage-backend', 'memory', '--data-dir', join(dir, 'data'), '--secure-port', '0', '--authorization-config', file], { encoding: 'utf8', timeout: 30_000 });
      assert.equal(r.status, 1, r.stderr);
      assert.equal(r.stderr, `Error: ${new InClusterWebhookError().message}\n`);

      // A running server whose file turns to InClusterConfig keeps its chain (kube's reload would panic the process).
      writeFileSync(file, config('- type: AlwaysAllow\n  name: everyone\n'));
      const logged: string[] = [];
      const logger = { info: (m: string) => void logged.push(m), error: (m: string) => void logged.push(m), v: () => false };
      const server = new ApiServer({ config: { authorizationConfigFile: file }, logger });
      await server.start();
      try {
        const admin = server.client('authorization-config-test');
        const daveMay = async () => {
          const r = await admin.create({ group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews' }, { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'dave', resourceAttributes: { namespace: 'default', verb: 'delete', resource: 'pods' } } });
          return (r.status as { allowed: boolean }).allowed;
        };
        assert.equal(await daveMay(), true);
        writeFileSync(file, inCluster());
        await eventually(async () => logged.some((m) => m.endsWith(`keeping the running one: ${new InClusterWebhookError().message}`)), 70_000);
        assert.equal(await daveMay(), true, 'the running chain stays');
      } finally {
        await server.stop();
      }
    } finally {
      removeDir(dir);
    }
  });

  it('refuses to start with an invalid file', () => {
    const dir = tempDir('capstan-authz-config-');
    try {
      const file = join(dir, 'authz.yaml');
      writeFileSync(file, config('- type: RBAC\n  name: rbac\n- type: RBAC\n  name: again\n'));
      assert.throws(() => new ApiServer({ config: { authorizationConfigFile: file } }), (e: unknown) => e instanceof AuthorizationConfigError && e.message === 'authorizers[1].type: Duplicate value: "RBAC"');
    } finally {
      removeDir(dir);
    }
  });
});
