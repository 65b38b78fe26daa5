import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { credentialsFrom, removeDir, tempDir } from '../test/helpers/server.js';
import type { BenchConfig } from './config.js';
import { configMap, createNamespace } from './fixtures.js';
import { closedLoop, makeAgent, oneRequest, type Target } from './http-client.js';
import type { PhaseResult } from './loop.js';

/**
 * What admission webhooks cost a create: ConfigMap POSTs by 32 clients on a
 * Capstan with no admission plugins at all, then on one with the default
 * plugins and no webhook configured, then with 1 and 5 validating webhooks
 * (called in parallel) and 5 mutating ones (called one after the other, each
 * adding a label by JSONPatch). The webhook is one process on loopback
 * answering at once, so the rows show the server's own cost per call (TLS,
 * AdmissionReview encoding, matching, patching), not a webhook's think time.
 */

const DIR = fileURLToPath(new URL('.', import.meta.url));
const NAMESPACE = 'bench-admission';

function startChild(script: string, arg: unknown, ready: RegExp): Promise<{ proc: ChildProcess; match: RegExpExecArray }> {
  const proc = spawn(process.execPath, [join(DIR, script), JSON.stringify(arg)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`${script} did not start:\n${out}`));
    }, 30_000);
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        proc.stdout!.off('data', onData);
        resolve({ proc, match: m });
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code}:\n${out}`));
    });
  });
}

async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await exited;
}

async function startCapstan(dataDir: string, admission: boolean): Promise<{ proc: ChildProcess; target: Target }> {
  const { proc, match } = await startChild('admission-server.js', { dataDir, admission }, /ready at (https:\/\/\S+) /);
  return { proc, target: { url: match[1]!, creds: credentialsFrom(join(dataDir, 'admin.kubeconfig')), pid: proc.pid } };
}

async function send(target: Target, method: string, path: string, body?: unknown): Promise<number> {
  const agent = makeAgent(target, 1);
  try {
    return (await oneRequest(agent, target, { method, path, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })).status;
  } finally {
    agent.destroy();
  }
}

export async function admissionSection(cfg: BenchConfig, log: (msg: string) => void): Promise<PhaseResult[]> {
  const dir = tempDir('capstan-bench-admission-');
  const caFile = join(dir, 'webhook-ca.crt');
  const children: ChildProcess[] = [];
  const rows: PhaseResult[] = [];
  let seq = 0;
  const create = () => ({ method: 'POST', path: `/api/v1/namespaces/${NAMESPACE}/configmaps`, body: configMap(`cm-${++seq}`) });
  const phase = async (name: string, target: Target): Promise<void> => {
    await closedLoop('warm-up', target, cfg.concurrency, Math.min(cfg.phaseMs, 1000), create, { expect: 201 });
    rows.push(await closedLoop(name, target, cfg.concurrency, cfg.phaseMs, create, { expect: 201 }));
  };
  try {
    const hook = await startChild('webhook-server.js', { caFile }, /port (\d+)/);
    children.push(hook.proc);
    const hookUrl = `https://127.0.0.1:${hook.match[1]}`;
    const caBundle = Buffer.from(readFileSync(caFile)).toString('base64');

    log('admission: no admission plugins');
    const bare = await startCapstan(join(dir, 'bare'), false);
    children.push(bare.proc);
    await createNamespace(bare.target, NAMESPACE);
    await phase('create ConfigMap, no admission plugins', bare.target);
    await stop(bare.proc);

    log('admission: default plugins, 0, 1 and 5 webhooks');
    const server = await startCapstan(join(dir, 'webhooks'), true);
    children.push(server.proc);
    const target = server.target;
    await createNamespace(target, NAMESPACE);
    await phase('create ConfigMap, default admission plugins, 0 webhooks', target);

    const webhook = (name: string, path: string) => ({
      name, clientConfig: { url: `${hookUrl}${path}`, caBundle }, sideEffects: 'None', admissionReviewVersions: ['v1'],
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    });
    const configure = async (kind: 'Validating' | 'Mutating', count: number, path: string): Promise<void> => {
      const resource = `${kind.toLowerCase()}webhookconfigurations`;
      const status = await send(target, 'POST', `/apis/admissionregistration.k8s.io/v1/${resource}`, {
        apiVersion: 'admissionregistration.k8s.io/v1', kind: `${kind}WebhookConfiguration`, metadata: { name: `bench-${kind.toLowerCase()}-${count}` },
        webhooks: Array.from({ length: count }, (_, i) => webhook(`hook-${i}.bench.example.com`, path)),
      });
      if (status !== 201) throw new Error(`admission bench: creating the ${kind} configuration: HTTP ${status}`);
      // the configuration applies once the server's informer has it: wait until a create is seen by the webhook
      const agent = makeAgent(target, 1);
      try {
        for (let tries = 0; ; tries++) {
          const before = await countReviews(hookUrl, caFile);
          await oneRequest(agent, target, create());
          if ((await countReviews(hookUrl, caFile)) >= before + count) return;
          if (tries > 100) throw new Error('admission bench: the webhooks are not called');
          await new Promise((r) => setTimeout(r, 50));
        }
      } finally {
        agent.destroy();
      }
    };
    const remove = async (kind: 'Validating' | 'Mutating', count: number): Promise<void> => {
      await send(target, 'DELETE', `/apis/admissionregistration.k8s.io/v1/${kind.toLowerCase()}webhookconfigurations/bench-${kind.toLowerCase()}-${count}`);
    };

    await configure('Validating', 1, '/validate');
    await phase('create ConfigMap, 1 validating webhook', target);
    await remove('Validating', 1);
    await configure('Validating', 5, '/validate');
    await phase('create ConfigMap, 5 validating webhooks (in parallel)', target);
    await remove('Validating', 5);
    await configure('Mutating', 1, '/mutate');
    await phase('create ConfigMap, 1 mutating webhook (JSONPatch)', target);
    await remove('Mutating', 1);
    await configure('Mutating', 5, '/mutate');
    await phase('create ConfigMap, 5 mutating webhooks (in turn, JSONPatch each)', target);
    return rows;
  } finally {
    for (const c of children) await stop(c);
    removeDir(dir);
  }
}

/** The webhook process's count of answered reviews. */
async function countReviews(url: string, caFile: string): Promise<number> {
  const { request } = await import('node:https');
  const ca = readFileSync(caFile, 'utf8');
  return new Promise((resolve, reject) => {
    const req = request(`${url}/count`, { ca, agent: false }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve(Number(text)));
    });
    req.on('error', reject);
    req.end();
  });
}
