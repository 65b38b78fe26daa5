import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';

import { packageRootDir } from '../../src/api/files.js';

/**
 * Each folder of src/ is one layer; imports go down, never up or in a
 * circle. The order here is the one docs/ARCHITECTURE.md draws: a folder may
 * import from folders of lower rank only.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['machinery'],
  ['api', 'storage'],
  ['codec', 'patch'],
  ['validation', 'apply', 'http', 'cache', 'cel'],
  ['apiextensions'],
  ['registry'],
  ['authn', 'authz'],
  ['admission'],
  ['handlers', 'controllers', 'observability', 'aggregator'],
  ['server'],
  ['cli', 'testing'],
];

const SRC = join(packageRootDir(), 'src');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

function folderOf(file: string): string {
  return relative(SRC, file).split(sep)[0]!;
}

/** folder → folder → the imports (file → target) that make the edge. */
function folderEdges(): Map<string, Map<string, string[]>> {
  const edges = new Map<string, Map<string, string[]>>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = resolve(dirname(file), m[1]!);
      const from = folderOf(file);
      const to = folderOf(target);
      if (from === to) continue;
      const byTarget = edges.get(from) ?? new Map<string, string[]>();
      edges.set(from, byTarget);
      byTarget.set(to, [...(byTarget.get(to) ?? []), `${relative(SRC, file)} → ${relative(SRC, target)}`]);
    }
  }
  return edges;
}

/** One cycle of the folder graph, if there is one (as a path a → … → a). */
function findCycle(edges: Map<string, Map<string, string[]>>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (n: string): string[] | undefined => {
    if (state.get(n) === 'done') return undefined;
    if (state.get(n) === 'open') return [...path.slice(path.indexOf(n)), n];
    state.set(n, 'open');
    path.push(n);
    for (const next of edges.get(n)?.keys() ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(n, 'done');
    return undefined;
  };
  for (const n of edges.keys()) {
    const cycle = visit(n);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('layering of src/', () => {
  const edges = folderEdges();
  const rank = new Map(LAYERS.flatMap((folders, i) => folders.map((f) => [f, i] as const)));

  it('names every folder of src/ in a layer', () => {
    const folders = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    assert.deepEqual(folders.filter((f) => !rank.has(f)), [], 'folders missing from LAYERS (add them where they belong)');
  });

  it('has no import cycle between folders', () => {
    const cycle = findCycle(edges);
    assert.equal(cycle, undefined, `import cycle: ${cycle?.join(' → ')}\n${(cycle ?? []).slice(0, -1).map((f, i) => edges.get(f)!.get(cycle![i + 1]!)![0]).join('\n')}`);
  });

  it('imports only from lower layers', () => {
    const upward: string[] = [];
    for (const [from, targets] of edges) {
      for (const [to, imports] of targets) {
        if ((rank.get(to) ?? Infinity) >= (rank.get(from) ?? -1)) upward.push(`${from} → ${to}: ${imports.join(', ')}`);
      }
    }
    assert.deepEqual(upward, []);
  });

  it('finds a planted cycle (the check itself works)', () => {
    const planted = new Map([
      ['a', new Map([['b', ['a/x.ts → b/y.ts']]])],
      ['b', new Map([['a', ['b/y.ts → a/z.ts']]])],
    ]);
    assert.deepEqual(findCycle(planted), ['a', 'b', 'a']);
  });
});
