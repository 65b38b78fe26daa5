import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { makeAgent, startRequest, type Target } from './http-client.js';

/**
 * The watch phase's writer, in a worker thread so that its pace (an open loop:
 * write i is due at start + i/rate, whether or not earlier writes were
 * answered) does not depend on how busy the main thread is reading 1,000
 * watch streams. Each write creates a ConfigMap `w-<seq>` (or updates one of
 * a fixed set) whose data carries `seq` and `sentAt` (epoch ms, sub-ms
 * precision, comparable across threads).
 */

export interface WriterInput {
  target: Target;
  path: string;
  rate: number;
  total: number;
  /** Updates instead of creates: write i is a PUT of `w-<i mod objects>` (which must exist). */
  update?: { objects: number };
  /** The object to post; name, data.seq and data.sentAt are filled in per write. */
  template: { metadata: Record<string, unknown>; data?: Record<string, string> } & Record<string, unknown>;
}

export interface WriterOutput {
  /** Per seq: when the request was sent and when its answer arrived (epoch ms; 0 = never). */
  sentAt: number[];
  ackAt: number[];
  status: number[];
  seconds: number;
}

export function now(): number {
  return performance.timeOrigin + performance.now();
}

async function run(input: WriterInput): Promise<WriterOutput> {
  const agent = makeAgent(input.target, 16);
  const sentAt = new Array<number>(input.total).fill(0);
  const ackAt = new Array<number>(input.total).fill(0);
  const status = new Array<number>(input.total).fill(0);
  const inflight: Promise<void>[] = [];
  const interval = 1000 / input.rate;
  const t0 = performance.now();
  for (let seq = 0; seq < input.total; seq++) {
    const wait = t0 + seq * interval - performance.now();
    if (wait >= 1) await new Promise((r) => setTimeout(r, wait));
    const { data, metadata, ...rest } = input.template;
    const { seq: _seq, sentAt: _sentAt, ...otherData } = data ?? {};
    sentAt[seq] = now();
    const name = input.update ? `w-${seq % input.update.objects}` : `w-${seq}`;
    const body = JSON.stringify({ ...rest, metadata: { ...metadata, name }, data: { seq: String(seq), sentAt: sentAt[seq]!.toFixed(3), ...otherData } });
    const spec = input.update ? { method: 'PUT', path: `${input.path}/${name}`, body } : { method: 'POST', path: input.path, body };
    inflight.push(
      new Promise<void>((resolve) => {
        const req = startRequest(agent, input.target, spec, (res) => {
          res.resume();
          res.on('end', () => {
            ackAt[seq] = now();
            status[seq] = res.statusCode ?? 0;
            resolve();
          });
        });
        req.on('error', () => resolve());
      }),
    );
  }
  await Promise.all(inflight);
  agent.destroy();
  return { sentAt, ackAt, status, seconds: (performance.now() - t0) / 1000 };
}

if (parentPort) {
  const out = await run(workerData as WriterInput);
  parentPort.postMessage(out);
}
