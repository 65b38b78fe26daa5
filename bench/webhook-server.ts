import { writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ensurePki } from '../src/server/pki.js';

/**
 * The admission section's webhook, as its own process: answers every
 * AdmissionReview with allowed (and, on /mutate, a one-operation JSONPatch
 * adding a label), with its own CA written to the file it is given. GET
 * /count says how many reviews it has answered.
 *
 * Usage: node webhook-server.js '{"caFile":"…"}'; prints `port N`.
 */

const cfg = JSON.parse(process.argv[2] ?? '{}') as { caFile: string };
const pki = await ensurePki({ servingNames: [], adminUser: 'unused', adminGroups: [] });
writeFileSync(cfg.caFile, pki.servingCa!);
const patch = Buffer.from(JSON.stringify([{ op: 'add', path: '/metadata/labels/webhooked', value: 'yes' }])).toString('base64');
let count = 0;
const server = createServer({ key: pki.serving.key, cert: pki.serving.cert, keepAlive: true }, (req, res) => {
  if (req.method === 'GET') return void res.end(String(count));
  const chunks: Buffer[] = [];
  req.on('data', (d: Buffer) => chunks.push(d));
  req.on('end', () => {
    count++;
    const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { request: { uid: string } };
    const mutate = req.url?.startsWith('/mutate');
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: review.request.uid, allowed: true, ...(mutate ? { patchType: 'JSONPatch', patch } : {}) },
    }));
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`port ${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
