import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';

import { ApiServer } from '../../src/server/apiserver.js';
import { ensurePki } from '../../src/server/pki.js';
import { etcdMissing, startEtcd, type TestEtcd } from '../helpers/etcd.js';
import { eventually, http } from '../helpers/server.js';

/**
 * A webhook configuration written through one process applies on the other
 * (each follows the configurations through its own watch cache of the
 * shared etcd), and its removal too.
 */

const missing = etcdMissing();

describe('admission webhooks on several processes', { skip: missing }, () => {
  let etcd: TestEtcd;
  const servers: ApiServer[] = [];
  let hooks: Server;
  let hookPort = 0;
  let caBundle = '';
  const client = (s: ApiServer) => {
    const kc = s.adminKubeconfig();
    return { url: s.url, creds: { ca: kc.caPem ?? '', cert: kc.clientCertPem, key: kc.clientKeyPem } };
  };

  before(async () => {
    etcd = await startEtcd();
    const pki = await ensurePki({ servingNames: [], adminUser: 'unused', adminGroups: [] });
    caBundle = Buffer.from(pki.servingCa!).toString('base64');
    hooks = createServer({ key: pki.serving.key, cert: pki.serving.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (d: Buffer) => chunks.push(d));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { request: { uid: string } };
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: false, status: { code: 403, message: 'not here' } } }));
      });
    });
    await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
    hookPort = (hooks.address() as AddressInfo).port;
    for (let i = 0; i < 2; i++) {
      const s = new ApiServer({ config: { storageBackend: 'etcd3', etcdServers: [etcd.endpoint], leaderElectLeaseDuration: 3000, leaderElectRenewDeadline: 2000, leaderElectRetryPeriod: 500 } });
      await s.start();
      servers.push(s);
    }
  });

  after(async () => {
    for (const s of servers) await s.stop();
    hooks?.closeAllConnections();
    await new Promise<void>((r) => (hooks ? hooks.close(() => r()) : r()));
    await etcd?.destroy();
  });

  it('a configuration created on one process is called by the other, and stops when deleted there', async () => {
    const [a, b] = [client(servers[0]!), client(servers[1]!)];
    let seq = 0;
    const create = (c: typeof a) => http(c, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `multi-${++seq}`, labels: { scenario: 'multi' } } },
    });
    assert.equal((await create(b)).status, 201);
    const configured = await http(a, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'multi' },
        webhooks: [{
          name: 'multi.example.com', clientConfig: { url: `https://127.0.0.1:${hookPort}/deny`, caBundle }, sideEffects: 'None', admissionReviewVersions: ['v1'],
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }], objectSelector: { matchLabels: { scenario: 'multi' } },
        }],
      },
    });
    assert.equal(configured.status, 201, configured.text);
    const denied = await eventually(async () => {
      const res = await create(b);
      return res.status === 403 ? res : undefined;
    }, 10_000);
    assert.equal(denied.json.message, 'admission webhook "multi.example.com" denied the request: not here');
    assert.equal((await http(b, 'DELETE', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/multi')).status, 200);
    await eventually(async () => ((await create(a)).status === 201 ? true : undefined), 10_000);
  });
});
