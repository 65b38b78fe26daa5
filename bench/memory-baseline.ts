import { readFileSync } from 'node:fs';

/**
 * Memory baseline, run as `node --expose-gc memory-baseline.js <mode> <count> <template.json>`:
 * a plain Node process holding `count` distinct copies of a ConfigMap as
 * Capstan serves it, as parsed objects, as JSON strings, or as both a parsed
 * object and its JSON bytes in a Buffer (the least a cache that serves
 * encoded bytes must hold). Prints RSS and heap growth per object, measured
 * after forced full GCs, as one JSON line.
 */

export type MemoryMode = 'objects' | 'strings' | 'objects+buffers';

export interface MemoryBaselineOutput {
  mode: MemoryMode;
  count: number;
  rssBeforeMB: number;
  rssAfterMB: number;
  rssPerObject: number;
  /** V8 heap plus external memory (Buffers live outside the heap). */
  heapPerObject: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

function settle(): void {
  if (!gc) throw new Error('run with --expose-gc');
  gc();
  gc();
}

function usage(): { rss: number; heap: number } {
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed + m.external };
}

const [mode, countArg, templateFile] = process.argv.slice(2) as [MemoryMode, string, string];
const count = Number(countArg);
const template = JSON.parse(readFileSync(templateFile, 'utf8')) as { metadata: Record<string, unknown> };
const uid = String(template.metadata.uid ?? '00000000-0000-0000-0000-000000000000');

settle();
const before = usage();
const held: unknown[] = new Array(count);
for (let i = 0; i < count; i++) {
  // A fresh flat string per object, with its own name, uid and resourceVersion, as rows read from a store are.
  const json = JSON.stringify({ ...template, metadata: { ...template.metadata, name: `cm-${i}`, uid: uid.slice(0, -8) + String(i).padStart(8, '0'), resourceVersion: String(1000 + i) } });
  if (mode === 'strings') held[i] = json;
  else if (mode === 'objects') held[i] = JSON.parse(json);
  else held[i] = [JSON.parse(json), Buffer.from(json)];
}
settle();
const after = usage();
const out: MemoryBaselineOutput = {
  mode,
  count,
  rssBeforeMB: Math.round(before.rss / 1e4) / 100,
  rssAfterMB: Math.round(after.rss / 1e4) / 100,
  rssPerObject: Math.round((after.rss - before.rss) / count),
  heapPerObject: Math.round((after.heap - before.heap) / count),
};
process.stdout.write(JSON.stringify(out) + '\n');
// Keep `held` reachable until the measurement is printed.
if (held.length < 0) process.stdout.write('');
