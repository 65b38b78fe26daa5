import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { ApiServer } from '../../src/server/apiserver.js';
import { ensurePki } from '../../src/server/pki.js';
import { writeKubeconfig } from '../../src/server/kubeconfig.js';
import { http, removeDir, tempDir } from '../helpers/server.js';

/**
 * kube-apiserver's authorization metrics on /metrics: decisions per
 * configured authorizer, a webhook's matchCondition evaluations, exclusions
 * and errors, its round trips and fail-opens, with kube's names, labels and
 * buckets.
 */

describe('authorization metrics', () => {
  it('counts decisions, matchCondition outcomes and webhook round trips on /metrics', async () => {
    const dir = tempDir('capstan-authz-metrics-');
    const hookPki = await ensurePki({ servingNames: [], adminUser: 'hook-client', adminGroups: [] });
    const hook: Server = createServer({ key: hookPki.serving.key, cert: hookPki.serving.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const user = review.spec.user as string;
        // a 403 is not retried: one round trip ending in error, then no opinion (fail open)
        res.statusCode = user === 'broken' ? 403 : 200;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ ...review, status: user === 'allow-me' ? { allowed: true } : user === 'deny-me' ? { allowed: false, denied: true } : { allowed: false } }));
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    const kubeconfig = join(dir, 'hook.kubeconfig');
    writeKubeconfig(kubeconfig, { server: `https://127.0.0.1:${(hook.address() as AddressInfo).port}/authorize`, caPem: hookPki.servingCa!, clientCertPem: hookPki.admin!.cert, clientKeyPem: hookPki.admin!.key, user: 'apiserver' });
    const file = join(dir, 'authz.yaml');
    writeFileSync(file, `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: team-hook
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
    - expression: "request.resourceAttributes.namespace == 'team'"
- type: RBAC
  name: rbac
`);
    const server = new ApiServer({ config: { dataDir: join(dir, 'data'), authorizationConfigFile: file } });
    await server.start();
    try {
      const admin = server.client('authz-metrics-test');
      const sar = async (user: string, attrs: Record<string, unknown>) => {
        const r = await admin.create({ group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews' }, { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user, groups: ['system:authenticated'], ...attrs } });
        return r.status as { allowed: boolean; denied?: boolean; evaluationError?: string };
      };
      const inTeam = { resourceAttributes: { namespace: 'team', verb: 'get', resource: 'pods', name: 'p' } };
      assert.equal((await sar('allow-me', inTeam)).allowed, true);
      assert.equal((await sar('deny-me', inTeam)).denied, true);
      assert.equal((await sar('broken', inTeam)).allowed, false);
      // excluded by the matchCondition (no call); RBAC allows through the default discovery role's siblings: basic-user's self reviews
      assert.equal((await sar('someone', { resourceAttributes: { group: 'authorization.k8s.io', verb: 'create', resource: 'selfsubjectaccessreviews' } })).allowed, true);
      // a non-resource request: the expression errors (no resourceAttributes), the failure policy (no opinion) lets RBAC decide
      const errored = await sar('someone', { nonResourceAttributes: { path: '/version', verb: 'get' } });
      assert.equal(errored.allowed, true);
      assert.match(errored.evaluationError ?? '', /^cel evaluation error: expression 'request\.resourceAttributes\.namespace == 'team'' resulted in error: /);

      const kc = server.adminKubeconfig();
      const text = (await http({ url: server.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } }, 'GET', '/metrics')).text;
      const value = (series: string): number | undefined => {
        const line = text.split('\n').find((l) => l.startsWith(`${series} `));
        return line === undefined ? undefined : Number(line.slice(series.length + 1));
      };
      assert.equal(value('apiserver_authorization_decisions_total{decision="allowed",name="team-hook",type="Webhook"}'), 1);
      assert.equal(value('apiserver_authorization_decisions_total{decision="denied",name="team-hook",type="Webhook"}'), 1);
      assert.equal(value('apiserver_authorization_decisions_total{decision="allowed",name="rbac",type="RBAC"}'), 2);
      assert.equal(value('apiserver_authorization_match_condition_exclusions_total{name="team-hook",type="Webhook"}'), 1);
      assert.equal(value('apiserver_authorization_match_condition_evaluation_errors_total{name="team-hook",type="Webhook"}'), 1);
      assert.equal(value('apiserver_authorization_match_condition_evaluation_seconds_count{name="team-hook",type="Webhook"}'), 5);
      for (const le of ['0.001', '0.005', '0.01', '0.025', '0.1', '0.2', '0.25', '+Inf']) {
        assert.notEqual(value(`apiserver_authorization_match_condition_evaluation_seconds_bucket{name="team-hook",type="Webhook",le="${le}"}`), undefined, le);
      }
      assert.equal(value('apiserver_authorization_webhook_evaluations_total{name="team-hook",result="success"}'), 2);
      assert.equal(value('apiserver_authorization_webhook_evaluations_total{name="team-hook",result="error"}'), 1);
      assert.equal(value('apiserver_authorization_webhook_evaluations_fail_open_total{name="team-hook",result="error"}'), 1);
      assert.equal(value('apiserver_authorization_webhook_duration_seconds_count{name="team-hook",result="success"}'), 2);
      for (const le of ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf']) {
        assert.notEqual(value(`apiserver_authorization_webhook_duration_seconds_bucket{name="team-hook",result="success",le="${le}"}`), undefined, le);
      }
      assert.match(text, /^# HELP apiserver_authorization_webhook_evaluations_total \[BETA\] Round-trips to authorization webhooks\.$/m);
      assert.match(text, /^# HELP apiserver_authorization_decisions_total \[ALPHA\] Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision\.$/m);
      assert.match(text, /^# TYPE apiserver_authorization_match_condition_evaluation_seconds histogram$/m);
    } finally {
      await server.stop();
      hook.close();
      removeDir(dir);
    }
  });
});
