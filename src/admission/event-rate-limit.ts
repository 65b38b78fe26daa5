import { fieldErrorString, type FieldError } from '../machinery/errors.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './admission.js';
import { tooManyRequestsError } from './errors.js';

/**
 * EventRateLimit: core Events written faster than the configured token
 * buckets allow are refused with 429. Its configuration
 * (eventratelimit.admission.k8s.io/v1alpha1 Configuration, from the
 * admission configuration file) names one bucket per server, per namespace,
 * per user or per event source and involved object; the per-key buckets live
 * in an LRU of `cacheSize` (default 4096): an evicted key starts full again.
 */

export type EventLimitType = 'Server' | 'Namespace' | 'User' | 'SourceAndObject';

export interface EventLimit {
  type: EventLimitType;
  qps: number;
  burst: number;
  cacheSize: number;
}

const LIMIT_TYPES: readonly EventLimitType[] = ['Server', 'Namespace', 'User', 'SourceAndObject'];
const CONFIGURATION_API_VERSION = 'eventratelimit.admission.k8s.io/v1alpha1';
const DEFAULT_CACHE_SIZE = 4096;

/** Decodes and validates the plugin's configuration with kube's texts (LoadConfiguration, ValidateConfiguration). */
export function eventRateLimitConfiguration(configuration: unknown): EventLimit[] {
  let rawLimits: unknown;
  if (configuration !== undefined && configuration !== null) {
    const c = (typeof configuration === 'object' && !Array.isArray(configuration) ? configuration : {}) as { apiVersion?: unknown; kind?: unknown; limits?: unknown };
    const raw = JSON.stringify(configuration);
    const kind = typeof c.kind === 'string' ? c.kind : '';
    const apiVersion = typeof c.apiVersion === 'string' ? c.apiVersion : '';
    if (!kind) throw new Error(`Object 'Kind' is missing in '${raw}'`);
    if (!apiVersion) throw new Error(`Object 'apiVersion' is missing in '${raw}'`);
    if (kind !== 'Configuration' || apiVersion !== CONFIGURATION_API_VERSION) throw new Error(`no kind "${kind}" is registered for version "${apiVersion}"`);
    rawLimits = c.limits;
  }
  if (rawLimits !== undefined && rawLimits !== null && !Array.isArray(rawLimits)) {
    throw new Error(`json: cannot unmarshal ${typeof rawLimits === 'string' ? 'string' : typeof rawLimits === 'number' ? 'number' : 'object'} into Go struct field Configuration.limits of type []v1alpha1.Limit`);
  }
  const items = (rawLimits ?? []) as unknown[];
  const limits = items.map((item) => decodeLimit(item));
  const errs: FieldError[] = [];
  if (limits.length === 0) errs.push({ type: 'FieldValueInvalid', field: 'limits', value: rawLimits ? [] : null, detail: 'must not be empty' });
  limits.forEach((l, i) => {
    const path = `limits[${i}]`;
    if (!LIMIT_TYPES.includes(l.type)) errs.push({ type: 'FieldValueNotSupported', field: `${path}.type`, value: l.type, supported: [...LIMIT_TYPES] });
    if (l.burst <= 0) errs.push({ type: 'FieldValueInvalid', field: `${path}.burst`, value: l.burst, detail: 'must be positive' });
    if (l.qps <= 0) errs.push({ type: 'FieldValueInvalid', field: `${path}.qps`, value: l.qps, detail: 'must be positive' });
    if (l.type !== 'Server' && l.cacheSize < 0) errs.push({ type: 'FieldValueInvalid', field: `${path}.cacheSize`, value: l.cacheSize, detail: 'must not be negative' });
  });
  // field.ErrorList.ToAggregate: one error alone, several in brackets.
  if (errs.length === 1) throw new Error(fieldErrorString(errs[0]!));
  if (errs.length > 1) throw new Error(`[${errs.map(fieldErrorString).join(', ')}]`);
  return limits;
}

function decodeLimit(item: unknown): EventLimit {
  const l = (item && typeof item === 'object' ? item : {}) as Record<string, unknown>;
  const int32 = (field: 'qps' | 'burst' | 'cacheSize'): number => {
    const v = l[field];
    if (v === undefined || v === null) return 0;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < -2147483648 || v > 2147483647) {
      throw new Error(`json: cannot unmarshal ${typeof v === 'number' ? `number ${v}` : typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'bool' : 'object'} into Go struct field Limit.limits.${field} of type int32`);
    }
    return v;
  };
  if (l.type !== undefined && l.type !== null && typeof l.type !== 'string') {
    throw new Error(`json: cannot unmarshal ${typeof l.type === 'number' ? 'number' : 'object'} into Go struct field Limit.limits.type of type v1alpha1.LimitType`);
  }
  return { type: (l.type ?? '') as EventLimitType, qps: int32('qps'), burst: int32('burst'), cacheSize: int32('cacheSize') };
}

/** golang.org/x/time/rate's token bucket as client-go's TryAccept uses it: starts full, refills at qps, holds at most burst. */
class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    now: number,
  ) {
    this.tokens = burst;
    this.last = now;
  }

  tryAccept(now: number): boolean {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** One limit type's buckets: one for Server, an LRU by key for the others. */
class LimitEnforcer {
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly capacity: number;

  constructor(
    private readonly limit: EventLimit,
    private readonly now: () => number,
  ) {
    this.capacity = limit.type === 'Server' ? 1 : limit.cacheSize || DEFAULT_CACHE_SIZE;
  }

  /** The refusal's text, or undefined when the event may pass. */
  accept(attrs: AdmissionAttributes): string | undefined {
    const key = limitKey(this.limit.type, attrs);
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (bucket) {
      // Most recently used last: Map keeps insertion order.
      this.buckets.delete(key);
    } else {
      bucket = new TokenBucket(this.limit.qps, this.limit.burst, now);
      if (this.buckets.size >= this.capacity) this.buckets.delete(this.buckets.keys().next().value!);
    }
    this.buckets.set(key, bucket);
    if (bucket.tryAccept(now)) return undefined;
    return tooManyRequestsError(`limit reached on type ${this.limit.type} for key ${key}`).message;
  }
}

function limitKey(type: EventLimitType, attrs: AdmissionAttributes): string {
  switch (type) {
    case 'Server':
      return '';
    case 'Namespace':
      return attrs.namespace;
    case 'User':
      return attrs.user?.username ?? '';
    case 'SourceAndObject': {
      const event = attrs.object as { source?: Record<string, unknown>; involvedObject?: Record<string, unknown> } | undefined;
      const s = event?.source ?? {};
      const o = event?.involvedObject ?? {};
      const str = (v: unknown): string => (typeof v === 'string' ? v : '');
      return [s.component, s.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion].map(str).join('');
    }
  }
}

export class EventRateLimit implements AdmissionPlugin {
  readonly name = 'EventRateLimit';
  private readonly enforcers: LimitEnforcer[];

  constructor(limits: readonly EventLimit[], now: () => number = () => performance.now()) {
    this.enforcers = limits.map((l) => new LimitEnforcer(l, now));
  }

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    // Only the core group's Event kind; a dry run stores nothing and is not counted.
    if (attrs.resource.group !== '' || attrs.resource.kind !== 'Event' || attrs.dryRun) return;
    const refusals: string[] = [];
    for (const e of this.enforcers) {
      const refusal = e.accept(attrs);
      if (refusal !== undefined) refusals.push(refusal);
    }
    // utilerrors.NewAggregate of the enforcers' errors, wrapped once more.
    if (refusals.length > 0) throw tooManyRequestsError(refusals.length === 1 ? refusals[0]! : `[${refusals.join(', ')}]`);
  }
}
