import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { loadAuthorizationConfiguration } from '../../src/authz/config-file.js';
import { WebhookAuthorizer } from '../../src/authz/webhook.js';
import type { AuthorizationAttributes } from '../../src/authz/authorizer.js';
import { ApiServer } from '../../src/server/apiserver.js';
import { ensurePki, issueClientCert } from '../../src/server/pki.js';
import { writeKubeconfig } from '../../src/server/kubeconfig.js';
import { http, removeDir, tempDir } from '../helpers/server.js';

/** The Webhook authorizer: SubjectAccessReviews to a kubeconfig-described endpoint, its caches, deny stopping the chain, failures. */

describe('Webhook authorizer', () => {
  it('asks the webhook, caches its answers, stops the chain on denied, and fails closed with the error', async () => {
    const dir = tempDir('capstan-webhook-');
    const hookPki = await ensurePki({ servingNames: [], adminUser: 'hook-client', adminGroups: [] });
    const seen: Array<Record<string, any>> = [];
    const hook: Server = createServer({ key: hookPki.serving.key, cert: hookPki.serving.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        seen.push(review);
        const user = review.spec.user as string;
        const status = user === 'allow-me' ? { allowed: true, reason: 'hook says yes' } : user === 'deny-me' ? { allowed: false, denied: true, reason: 'hook says no' } : { allowed: false };
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ ...review, status }));
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    const kubeconfig = join(dir, 'webhook.kubeconfig');
    writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${(hook.address() as AddressInfo).port}/authorize`, caPem: hookPki.servingCa!, clientCertPem: hookPki.admin!.cert, clientKeyPem: hookPki.admin!.key, user: 'apiserver' });
    const server = new ApiServer({ config: { dataDir: join(dir, 'data'), authorizationModes: ['Webhook', 'RBAC'], authorizationWebhook: { configFile: kubeconfig, version: 'v1', authorizedTtl: 60_000, unauthorizedTtl: 60_000 } } });
    await server.start();
    try {
      const admin = server.client('webhook-test');
      const sar = async (user: string) => {
        const r = await admin.create({ group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews' }, { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user, groups: ['g1'], resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods', name: 'p' } } });
        return r.status as { allowed: boolean; denied?: boolean; reason?: string; evaluationError?: string };
      };
      assert.deepEqual(await sar('allow-me'), { allowed: true, reason: 'hook says yes' });
      const sent = seen.at(-1)!;
      assert.equal(sent.apiVersion, 'authorization.k8s.io/v1');
      assert.equal(sent.kind, 'SubjectAccessReview');
      assert.deepEqual(sent.spec, { user: 'allow-me', groups: ['g1'], resourceAttributes: { namespace: 'default', verb: 'get', group: '', version: '', resource: 'pods', subresource: '', name: 'p' } });
      const calls = seen.length;
      assert.deepEqual(await sar('allow-me'), { allowed: true, reason: 'hook says yes' });
      assert.equal(seen.length, calls, 'answered from the cache');
      // denied stops the chain: RBAC's cluster-admin binding is never asked.
      await admin.create({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings' }, {
        apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'deny-me-admin' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'deny-me' }],
      });
      assert.deepEqual(await sar('deny-me'), { allowed: false, denied: true, reason: 'hook says no' });
      // No opinion: RBAC decides (nothing bound here).
      assert.equal((await sar('nobody')).allowed, false);
      // The webhook gone: an uncached question is the failure policy's (no opinion) with client-go's error; a real request is
      // kube's plain-text 500 quoting the request URI and that error.
      const hookPort = (hook.address() as AddressInfo).port;
      await new Promise<void>((r) => hook.close(() => r()));
      hook.closeAllConnections();
      const refused = `Post "https://127.0.0.1:${hookPort}/authorize?timeout=30s": dial tcp 127.0.0.1:${hookPort}: connect: connection refused`;
      const failed = await sar('someone-new');
      assert.equal(failed.allowed, false);
      assert.equal(failed.evaluationError, refused);
      const ca = { cert: readFileSync(join(dir, 'data', 'pki', 'ca.crt'), 'utf8'), key: readFileSync(join(dir, 'data', 'pki', 'ca.key'), 'utf8') };
      const pair = await issueClientCert(ca, 'someone-new', []);
      const res = await http({ url: server.url, creds: { ca: server.pki.servingCa!, cert: pair.cert, key: pair.key } }, 'GET', '/api/v1/namespaces/default/pods?limit=5&watch=false');
      assert.equal(res.status, 500);
      assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(res.text, `Internal Server Error: "/api/v1/namespaces/default/pods?limit=5&amp;watch=false": ${refused}\n`);
      // A cached answer still stands.
      assert.equal((await sar('allow-me')).allowed, true);
    } finally {
      await server.stop();
      hook.close();
      removeDir(dir);
    }
  });

  it('validates a configuration file\'s webhook as kube does', () => {
    const dir = tempDir('capstan-webhook-config-');
    try {
      const file = join(dir, 'authz.yaml');
      writeFileSync(file, `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: hook
  webhook:
    timeout: 45s
    authorizedTTL: 5m
    subjectAccessReviewVersion: v2
    failurePolicy: Maybe
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: relative.kubeconfig
`);
      assert.throws(
        () => loadAuthorizationConfiguration(file),
        (e: unknown) =>
          (e as Error).message ===
          '[authorizers[0].timeout: Invalid value: "45s": must be > 0s and <= 30s, authorizers[0].unauthorizedTTL: Required value, authorizers[0].subjectAccessReviewVersion: Unsupported value: "v2": supported values: "v1", "v1beta1", authorizers[0].failurePolicy: Unsupported value: "Maybe": supported values: "NoOpinion", "Deny", authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "relative.kubeconfig": must be an absolute path]',
      );
    } finally {
      removeDir(dir);
    }
  });

  it('refuses broken matchConditions at load with kube\'s messages, and accepts good ones', () => {
    const dir = tempDir('capstan-webhook-mc-');
    try {
      const kubeconfig = join(dir, 'hook.kubeconfig');
      writeKubeconfig(kubeconfig, { server: 'https://127.0.0.1:1/authorize', caPem: '', clientCertPem: '', clientKeyPem: '', user: 'apiserver' });
      const file = join(dir, 'authz.yaml');
      const config = (conditions: string[]): string => `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: hook
  webhook:
    timeout: 3s
    authorizedTTL: 5m
    unauthorizedTTL: 30s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: NoOpinion
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: ${kubeconfig}
    matchConditions:
${conditions.map((c) => `    - expression: ${JSON.stringify(c)}`).join('\n')}
`;
      writeFileSync(file, config(["request.user == 'a'", 'request.user', "request.user == 'a'", ' ', 'foo.bar']));
      assert.throws(
        () => loadAuthorizationConfiguration(file),
        (e: unknown) =>
          (e as Error).message ===
          '[authorizers[0].matchConditions[1].expression: Invalid value: "request.user": must evaluate to bool but got string, ' +
          'authorizers[0].matchConditions[2].expression: Duplicate value: "request.user == \'a\'", ' +
          'authorizers[0].matchConditions[3].expression: Required value, ' +
          'authorizers[0].matchConditions[4].expression: Invalid value: "foo.bar": compilation failed: ERROR: <input>:1:1: undeclared reference to \'foo\' (in container \'\')\n | foo.bar\n | ^]',
      );
      writeFileSync(file, config(Array.from({ length: 65 }, (_, i) => `request.user == 'u${i}'`)));
      assert.throws(() => loadAuthorizationConfiguration(file), (e: unknown) => (e as Error).message === 'authorizers[0].matchConditions: Too many: 65: must have at most 64 items');
      writeFileSync(file, config(["has(request.resourceAttributes) && request.resourceAttributes.namespace == 'team'"]));
      const [entry] = loadAuthorizationConfiguration(file);
      assert.deepEqual(entry?.webhook?.matchConditions, ["has(request.resourceAttributes) && request.resourceAttributes.namespace == 'team'"]);
    } finally {
      removeDir(dir);
    }
  });

  it('asks the webhook only when every matchCondition is true; false is no opinion, an error the failure policy', async () => {
    const dir = tempDir('capstan-webhook-mc-');
    const hookPki = await ensurePki({ servingNames: [], adminUser: 'hook-client', adminGroups: [] });
    const asked: string[] = [];
    const hook: Server = createServer({ key: hookPki.serving.key, cert: hookPki.serving.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        asked.push(review.spec.user);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ ...review, status: { allowed: true, reason: 'hook' } }));
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    try {
      const kubeconfig = join(dir, 'hook.kubeconfig');
      writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${(hook.address() as AddressInfo).port}/authorize`, caPem: hookPki.servingCa!, clientCertPem: hookPki.admin!.cert, clientKeyPem: hookPki.admin!.key, user: 'apiserver' });
      const webhook = new WebhookAuthorizer({
        name: 'hook', kubeconfigFile: kubeconfig, version: 'v1', authorizedTtlMs: 0, unauthorizedTtlMs: 0, timeoutMs: 5_000, failurePolicy: 'Deny',
        matchConditions: ["request.resourceAttributes.namespace == 'team'", "!('system:masters' in request.groups)"],
      });
      const get = (user: string, namespace: string, groups: string[] = []): AuthorizationAttributes => ({ user: { username: user, groups }, verb: 'get', resourceRequest: true, namespace, resource: 'pods', name: 'p' });
      assert.deepEqual(await webhook.authorize(get('in-team', 'team')), { decision: 'Allow', reason: 'hook' });
      assert.deepEqual(await webhook.authorize(get('elsewhere', 'other')), { decision: 'NoOpinion', reason: '' });
      assert.deepEqual(await webhook.authorize(get('master', 'team', ['system:masters'])), { decision: 'NoOpinion', reason: '' });
      // No resourceAttributes: the first condition fails to evaluate and none is false: Deny (the failure policy) with the error.
      const nonResource = await webhook.authorize({ user: { username: 'np', groups: [] }, verb: 'get', resourceRequest: false, path: '/healthz' });
      assert.equal(nonResource.decision, 'Deny');
      assert.match(nonResource.error ?? '', /^cel evaluation error: expression 'request\.resourceAttributes\.namespace == 'team'' resulted in error: /);
      // An error and a false: the false wins, no opinion without an error.
      assert.deepEqual(await webhook.authorize({ user: { username: 'np', groups: ['system:masters'] }, verb: 'get', resourceRequest: false, path: '/healthz' }), { decision: 'NoOpinion', reason: '' });
      assert.deepEqual(asked, ['in-team']);
    } finally {
      hook.close();
      removeDir(dir);
    }
  });
  it('retries a webhook that answers 500 or 429 (kube\'s DefaultShouldRetry), but not one that answers 403, and gives up after five attempts', async () => {
    const dir = tempDir('capstan-webhook-retry-');
    const hookPki = await ensurePki({ servingNames: [], adminUser: 'hook-client', adminGroups: [] });
    const answers: Record<string, number[]> = { flaky: [500, 429, 200], forbidden: [403, 200], broken: [500, 500, 500, 500, 500, 200] };
    const calls: Record<string, number> = {};
    const hook: Server = createServer({ key: hookPki.serving.key, cert: hookPki.serving.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const user = review.spec.user as string;
        const n = (calls[user] = (calls[user] ?? 0) + 1);
        res.statusCode = answers[user]![n - 1] ?? 200;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ ...review, status: { allowed: true, reason: `attempt ${n}` } }));
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    try {
      const kubeconfig = join(dir, 'hook.kubeconfig');
      writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${(hook.address() as AddressInfo).port}/authorize`, caPem: hookPki.servingCa!, clientCertPem: hookPki.admin!.cert, clientKeyPem: hookPki.admin!.key, user: 'apiserver' });
      const webhook = new WebhookAuthorizer({
        name: 'hook', kubeconfigFile: kubeconfig, version: 'v1', authorizedTtlMs: 0, unauthorizedTtlMs: 0, timeoutMs: 5_000, failurePolicy: 'NoOpinion',
        retryBackoff: { initialMs: 5, factor: 1.5, jitter: 0.2, steps: 5 },
      });
      const get = (user: string): AuthorizationAttributes => ({ user: { username: user, groups: [] }, verb: 'get', resourceRequest: true, namespace: 'ns', resource: 'pods', name: 'p' });
      assert.deepEqual(await webhook.authorize(get('flaky')), { decision: 'Allow', reason: 'attempt 3' });
      const forbidden = await webhook.authorize(get('forbidden'));
      assert.equal(forbidden.decision, 'NoOpinion');
      // client-go's words for a 403 whose JSON body is no Status: apimachinery keeps the server's message, which it could not read
      assert.equal(forbidden.error, 'unknown');
      const broken = await webhook.authorize(get('broken'));
      assert.equal(broken.decision, 'NoOpinion');
      assert.equal(broken.error, 'an error on the server ("unknown") has prevented the request from succeeding');
      assert.deepEqual(calls, { flaky: 3, forbidden: 1, broken: 5 });
    } finally {
      hook.close();
      removeDir(dir);
    }
  });
});
