import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import type { AuthorizationAttributes } from '../../src/authz/authorizer.js';
import { WebhookAuthorizer } from '../../src/authz/webhook.js';
import { clientGoResultError } from '../../src/registry/webhook-client.js';
import { ensurePki } from '../../src/server/pki.js';
import { writeKubeconfig } from '../../src/server/kubeconfig.js';
import { removeDir, tempDir } from '../helpers/server.js';

/**
 * The webhook authorizer's errors read as client-go's (kube's 500 bodies and
 * SubjectAccessReview evaluationError quote them): rest Result errors,
 * apimachinery's generic server responses, Go's net/http failures.
 */

interface Answer {
  status: number;
  contentType?: string;
  body: string;
  hang?: boolean;
}

describe('Webhook authorizer errors', () => {
  let dir: string;
  let hook: Server;
  let port: number;
  let kubeconfig: string;
  let next: Answer = { status: 200, body: '{}' };
  const attrs: AuthorizationAttributes = { user: { username: 'u', groups: [] }, verb: 'get', resourceRequest: true, namespace: 'ns', resource: 'pods', name: 'p' };

  before(async () => {
    dir = tempDir('capstan-webhook-errors-');
    const pki = await ensurePki({ servingNames: [], adminUser: 'hook-client', adminGroups: [] });
    hook = createServer({ key: pki.serving.key, cert: pki.serving.cert }, (req, res) => {
      req.resume();
      req.on('end', () => {
        if (next.hang) return;
        res.writeHead(next.status, next.contentType === undefined ? {} : { 'Content-Type': next.contentType });
        res.end(next.body);
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    port = (hook.address() as AddressInfo).port;
    kubeconfig = join(dir, 'hook.kubeconfig');
    writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${port}/authorize`, caPem: pki.servingCa!, clientCertPem: pki.admin!.cert, clientKeyPem: pki.admin!.key, user: 'apiserver' });
  });

  after(() => {
    hook.closeAllConnections();
    hook.close();
    removeDir(dir);
  });

  const ask = async (answer: Answer, timeoutMs = 5000) => {
    next = answer;
    const authorizer = new WebhookAuthorizer({ name: 'hook', kubeconfigFile: kubeconfig, version: 'v1', authorizedTtlMs: 0, unauthorizedTtlMs: 0, timeoutMs, failurePolicy: 'Deny', retryBackoff: { initialMs: 1, factor: 1, jitter: 0, steps: 1 } });
    return authorizer.authorize(attrs);
  };

  it('quotes the webhook\'s failed Status, or apimachinery\'s generic response for its code', async () => {
    assert.deepEqual(await ask({ status: 403, contentType: 'application/json', body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'no entry for you', code: 403 }) }), {
      decision: 'Deny',
      reason: '',
      error: 'no entry for you',
    });
    assert.equal((await ask({ status: 500, contentType: 'text/plain', body: ' boom\t"x"\n' })).error, 'an error on the server ("boom\\t\\"x\\"") has prevented the request from succeeding');
    assert.equal((await ask({ status: 502, contentType: 'application/json', body: '{"not":"a status"}' })).error, 'an error on the server ("unknown") has prevented the request from succeeding');
    assert.equal((await ask({ status: 404, contentType: 'application/json', body: '{}' })).error, 'the server could not find the requested resource');
    assert.equal((await ask({ status: 401, body: 'who?' })).error, 'the server has asked for the client to provide credentials');
    assert.equal((await ask({ status: 503, body: '' })).error, 'the server is currently unable to handle the request');
    assert.equal((await ask({ status: 418, contentType: 'text/html', body: '<p>teapot</p>' })).error, 'the server responded with the status code 418 but did not return more information');
  });

  it('says what the decoder says of a 2xx answer it cannot read', async () => {
    assert.equal((await ask({ status: 200, contentType: 'text/plain; charset=utf-8', body: 'ok' })).error, "serializer for text/plain; charset=utf-8 doesn't exist");
    assert.equal((await ask({ status: 200, contentType: 'application/json', body: '' })).error, '0-length response with status code: 200 and content type: application/json');
    assert.equal((await ask({ status: 200, contentType: 'application/json', body: 'nope' })).error, "couldn't get version/kind; json parse error: invalid character 'o' in literal null (expecting 'u')");
    assert.equal(
      (await ask({ status: 200, contentType: 'application/json', body: '[]' })).error,
      'couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
    );
  });

  it('denies with kube\'s error when the answer both allows and denies, and decides as told otherwise', async () => {
    assert.deepEqual(await ask({ status: 200, contentType: 'application/json', body: JSON.stringify({ status: { allowed: true, denied: true, reason: 'both' } }) }), {
      decision: 'Deny',
      reason: 'both',
      error: 'webhook subject access review returned both allow and deny response',
    });
    assert.deepEqual(await ask({ status: 200, body: JSON.stringify({ status: { allowed: true, reason: 'fine' } }) }), { decision: 'Allow', reason: 'fine' });
  });

  it('names the URL client-go called, with its timeout, in network failures', async () => {
    assert.deepEqual(await ask({ status: 200, body: '', hang: true }, 300), {
      decision: 'Deny',
      reason: '',
      error: `Post "https://127.0.0.1:${port}/authorize?timeout=300ms": context deadline exceeded`,
    });
  });

  it('cannot list rules, in kube\'s words (SelfSubjectRulesReview evaluationError)', async () => {
    const authorizer = new WebhookAuthorizer({ name: 'hook', kubeconfigFile: kubeconfig, version: 'v1', authorizedTtlMs: 0, unauthorizedTtlMs: 0, timeoutMs: 1000, failurePolicy: 'Deny' });
    assert.deepEqual(await authorizer.rulesFor({ username: 'u', groups: [] }, 'ns'), { resourceRules: [], nonResourceRules: [], incomplete: true, error: 'webhook authorizer does not support user rule resolution' });
  });

  it('reads answers as client-go\'s rest Result does', () => {
    assert.equal(clientGoResultError(200, 'application/json', '{"kind":"Status","status":"Failure","message":"m"}'), 'm');
    assert.equal(clientGoResultError(201, undefined, '{}'), undefined);
    assert.equal(clientGoResultError(406, 'application/json', 'x'), 'the server was unable to respond with a content type that the client supports');
    assert.equal(clientGoResultError(500, undefined, 'x'.repeat(3000)), `an error on the server ("${'x'.repeat(2048)}") has prevented the request from succeeding`);
  });
});
