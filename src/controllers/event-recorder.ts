import type { ApiClient } from '../machinery/client.js';
import { isApiError } from '../machinery/errors.js';
import { nowTimestamp, type KubeObject } from '../machinery/object.js';

/**
 * client-go's core/v1 event recorder as controllers use it (tools/record:
 * EventCorrelator's aggregator and logger), for the in-process controllers'
 * events:
 * - an event seen before (same source, object, type, reason and message) is
 *   not created again: the existing one gets count+1 and a new
 *   lastTimestamp through a strategic merge patch;
 * - when more than 10 events with different messages but the same source,
 *   object, type and reason come within 10 minutes, they are combined into
 *   one whose message is "(combined from similar events): <latest message>".
 * The caches are per recorder (per controller instance), as in client-go.
 */

export interface EventSubject {
  apiVersion?: string;
  kind?: string;
  name: string;
  namespace?: string;
  uid?: string;
}

const MAX_SIMILAR = 10;
const AGGREGATE_WINDOW_MS = 10 * 60 * 1000;
const CACHE_SIZE = 4096;

interface Observation {
  name: string;
  namespace: string;
  count: number;
  firstTimestamp: string;
}

interface Similar {
  messages: Set<string>;
  lastMs: number;
}

/** A bounded map that forgets its oldest entry (client-go's LRU caches of 4096). */
class BoundedMap<V> extends Map<string, V> {
  override set(key: string, value: V): this {
    this.delete(key);
    super.set(key, value);
    if (this.size > CACHE_SIZE) this.delete(this.keys().next().value as string);
    return this;
  }
}

export class EventRecorder {
  private readonly observed = new BoundedMap<Observation>();
  private readonly similar = new BoundedMap<Similar>();

  constructor(
    private readonly client: ApiClient,
    /** source.component and reportingComponent. */
    private readonly component: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records a core/v1 Event about `subject` (in its namespace, `default` for cluster-scoped objects). */
  async event(subject: EventSubject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    const namespace = subject.namespace || 'default';
    const involved = { kind: subject.kind, apiVersion: subject.apiVersion, name: subject.name, uid: subject.uid, ...(subject.namespace ? { namespace: subject.namespace } : {}) };
    const objectKey = JSON.stringify([this.component, involved.kind, involved.namespace ?? '', involved.name, involved.uid ?? '', involved.apiVersion ?? '', type, reason]);
    const { key, text } = this.aggregate(objectKey, message);
    const now = this.now();
    const timestamp = nowTimestamp();
    const seen = this.observed.get(key);
    if (seen) {
      const count = seen.count + 1;
      try {
        await this.client.patch({ group: '', version: 'v1', resource: 'events', namespace: seen.namespace, name: seen.name }, 'strategic', { count, lastTimestamp: timestamp, message: text });
        this.observed.set(key, { ...seen, count });
        return;
      } catch (err) {
        // Gone (expired or deleted): record it anew.
        if (!isApiError(err, 'NotFound')) throw err;
      }
    }
    const name = `${subject.name}.${(BigInt(now) * 1_000_000n).toString(16)}`;
    await this.client.create({ group: '', version: 'v1', resource: 'events', namespace }, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: involved,
      reason,
      message: text,
      type,
      source: { component: this.component },
      firstTimestamp: timestamp,
      lastTimestamp: timestamp,
      count: 1,
      reportingComponent: this.component,
      reportingInstance: '',
    } as KubeObject);
    this.observed.set(key, { name, namespace, count: 1, firstTimestamp: timestamp });
  }

  /** EventAggregator: the dedup key and message, combined once an object has many similar events. */
  private aggregate(objectKey: string, message: string): { key: string; text: string } {
    const now = this.now();
    let entry = this.similar.get(objectKey);
    if (!entry || now - entry.lastMs > AGGREGATE_WINDOW_MS) entry = { messages: new Set(), lastMs: now };
    entry.messages.add(message);
    entry.lastMs = now;
    this.similar.set(objectKey, entry);
    if (entry.messages.size < MAX_SIMILAR) return { key: `${objectKey}|${message}`, text: message };
    return { key: objectKey, text: `(combined from similar events): ${message}` };
  }
}
