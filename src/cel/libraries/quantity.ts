import type { Environment } from '@marcbachmann/cel-js';

import {
  addQuantities,
  compareQuantities,
  formatQuantity,
  isWholeQuantity,
  parseQuantity,
  type Quantity,
  QuantityParseError,
  quantitySign,
} from '../../api/quantity.js';
import { libraryError } from './errors.js';
import { INT64_MAX, INT64_MIN } from './values.js';

/** A `kubernetes.Quantity` value. */
export class CelQuantity {
  readonly celTypeName = 'kubernetes.Quantity';
  constructor(readonly quantity: Quantity) {}
  equals(other: CelQuantity): boolean {
    return compareQuantities(this.quantity, other.quantity) === 0;
  }
  compareTo(other: CelQuantity): number {
    return compareQuantities(this.quantity, other.quantity);
  }
  toString(): string {
    return formatQuantity(this.quantity);
  }
}

function toQuantity(s: string): CelQuantity {
  try {
    return new CelQuantity(parseQuantity(s));
  } catch (e) {
    if (e instanceof QuantityParseError) throw libraryError(e.message);
    throw e;
  }
}

/** Quantity.AsInt64: the value when it is whole and fits an int64. */
export function quantityAsInt64(q: Quantity): bigint | undefined {
  if (!isWholeQuantity(q)) return undefined;
  if (q.mantissa === 0n) return 0n;
  // Values above 10^19 overflow whatever the digits; stop before building huge numbers.
  if (q.exponent > 19) return undefined;
  const v = q.exponent >= 0 ? q.mantissa * 10n ** BigInt(q.exponent) : q.mantissa / 10n ** BigInt(-q.exponent);
  return v > INT64_MAX || v < INT64_MIN ? undefined : v;
}

function negate(q: Quantity): Quantity {
  return { mantissa: -q.mantissa, exponent: q.exponent, format: q.format };
}

function intQuantity(i: bigint): Quantity {
  return { mantissa: i, exponent: 0, format: 'DecimalExponent' };
}

function sum(a: Quantity, b: Quantity): CelQuantity {
  try {
    return new CelQuantity(addQuantities(a, b));
  } catch (e) {
    if (e instanceof RangeError) throw libraryError(e.message);
    throw e;
  }
}

/** kube's library.Quantity (from 1.28). */
export function registerQuantity(env: Environment): void {
  const T = 'kubernetes.Quantity';
  env.registerType(T, CelQuantity);
  env.registerFunction(`quantity(string): ${T}`, toQuantity);
  env.registerFunction('isQuantity(string): bool', (s: string) => {
    try {
      parseQuantity(s);
      return true;
    } catch {
      return false;
    }
  });
  env.registerFunction(`${T}.sign(): int`, (q: CelQuantity) => BigInt(quantitySign(q.quantity)));
  env.registerFunction(`${T}.isGreaterThan(${T}): bool`, (a: CelQuantity, b: CelQuantity) => a.compareTo(b) === 1);
  env.registerFunction(`${T}.isLessThan(${T}): bool`, (a: CelQuantity, b: CelQuantity) => a.compareTo(b) === -1);
  env.registerFunction(`${T}.compareTo(${T}): int`, (a: CelQuantity, b: CelQuantity) => BigInt(a.compareTo(b)));
  env.registerFunction(`${T}.asApproximateFloat(): double`, (q: CelQuantity) =>
    Number(`${q.quantity.mantissa}e${q.quantity.exponent}`),
  );
  env.registerFunction(`${T}.asInteger(): int`, (q: CelQuantity) => {
    const v = quantityAsInt64(q.quantity);
    if (v === undefined) throw libraryError('cannot convert value to integer');
    return v;
  });
  env.registerFunction(`${T}.isInteger(): bool`, (q: CelQuantity) => quantityAsInt64(q.quantity) !== undefined);
  env.registerFunction(`${T}.add(${T}): ${T}`, (a: CelQuantity, b: CelQuantity) => sum(a.quantity, b.quantity));
  env.registerFunction(`${T}.add(int): ${T}`, (a: CelQuantity, i: bigint) => sum(a.quantity, intQuantity(i)));
  env.registerFunction(`${T}.sub(${T}): ${T}`, (a: CelQuantity, b: CelQuantity) => sum(a.quantity, negate(b.quantity)));
  env.registerFunction(`${T}.sub(int): ${T}`, (a: CelQuantity, i: bigint) => sum(a.quantity, intQuantity(-i)));
  env.registerOperator(`${T} == ${T}`, (a: CelQuantity, b: CelQuantity) => a.equals(b));
}
