import type { Environment } from '@marcbachmann/cel-js';

import { celEquals, type CelValue, toList } from './values.js';

/** The constant `sets.contains(...)` and its siblings are methods of. */
export class SetsNamespace {}

/** cel-go's ext.Sets (kube from 1.29): sets.contains, sets.equivalent, sets.intersects. */
export function registerSets(env: Environment): void {
  env.registerType('kubernetes.SetsNamespace', SetsNamespace);
  env.registerConstant('sets', 'kubernetes.SetsNamespace', new SetsNamespace());
  const ns = 'kubernetes.SetsNamespace';
  env.registerFunction(`${ns}.contains(list<T>, list<T>): bool`, (_: unknown, a: CelValue, b: CelValue) =>
    contains(a, b),
  );
  env.registerFunction(
    `${ns}.equivalent(list<T>, list<T>): bool`,
    (_: unknown, a: CelValue, b: CelValue) => contains(a, b) && contains(b, a),
  );
  env.registerFunction(`${ns}.intersects(list<T>, list<T>): bool`, (_: unknown, a: CelValue, b: CelValue) => {
    const l = toList(a);
    return toList(b).some((y) => l.some((x) => celEquals(x, y)));
  });
}

/** Every element of `sub` is in `list` (by CEL equality, so 1 and 1.0 match). */
function contains(list: CelValue, sub: CelValue): boolean {
  const l = toList(list);
  return toList(sub).every((y) => l.some((x) => celEquals(x, y)));
}
