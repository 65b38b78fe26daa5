import type { ApiCatalog } from '../../api/catalog.js';
import type { KubeObject } from '../../machinery/object.js';
import { Informer } from '../../registry/informer.js';
import type { Registry } from '../../registry/registry.js';
import type { PolicyBinding, PolicyObject } from './types.js';

/**
 * The policies of one kind and their bindings, followed by informers on the
 * watch caches (kube's policySource): each policy compiled once per
 * resourceVersion, bindings grouped by the policy they name.
 */

export interface PolicyHook<S, E> {
  readonly policy: PolicyObject<S>;
  readonly evaluator: E;
  readonly bindings: readonly PolicyBinding[];
}

export class PolicySource<S, E> {
  private readonly policies: Informer;
  private readonly bindings: Informer;
  private readonly compiled = new Map<string, { resourceVersion: string; evaluator: E }>();
  private hooksCache: PolicyHook<S, E>[] | undefined;

  constructor(
    registry: Registry,
    catalog: ApiCatalog,
    kinds: { readonly policies: string; readonly bindings: string },
    private readonly compile: (policy: PolicyObject<S>) => E,
  ) {
    const store = (resource: string) => registry.storeFor(catalog.knownResource('admissionregistration.k8s.io', 'v1', resource)!);
    const changed = (): void => {
      this.hooksCache = undefined;
    };
    this.policies = new Informer(store(kinds.policies), changed);
    this.bindings = new Informer(store(kinds.bindings), changed);
  }

  async start(signal: AbortSignal): Promise<void> {
    signal.addEventListener('abort', () => this.stop(), { once: true });
    void this.policies.start();
    void this.bindings.start();
    await Promise.all([this.policies.waitForSync(), this.bindings.waitForSync()]);
  }

  stop(): void {
    this.policies.stop();
    this.bindings.stop();
  }

  /** Every policy with at least one binding, in name order. */
  hooks(): readonly PolicyHook<S, E>[] {
    if (this.hooksCache) return this.hooksCache;
    const byPolicy = new Map<string, PolicyBinding[]>();
    for (const b of this.bindings.list() as PolicyBinding[]) {
      const name = b.spec?.policyName ?? '';
      const list = byPolicy.get(name) ?? [];
      list.push(b);
      byPolicy.set(name, list);
    }
    const hooks: PolicyHook<S, E>[] = [];
    const live = new Set<string>();
    for (const p of (this.policies.list() as PolicyObject<S>[]).sort(byName)) {
      const name = p.metadata?.name ?? '';
      live.add(name);
      const bindings = byPolicy.get(name);
      if (!bindings) continue;
      hooks.push({ policy: p, evaluator: this.evaluatorFor(p), bindings: bindings.sort(byName) });
    }
    for (const name of this.compiled.keys()) if (!live.has(name)) this.compiled.delete(name);
    this.hooksCache = hooks;
    return hooks;
  }

  private evaluatorFor(p: PolicyObject<S>): E {
    const name = p.metadata?.name ?? '';
    const rv = String(p.metadata?.resourceVersion ?? '');
    const hit = this.compiled.get(name);
    if (hit && hit.resourceVersion === rv) return hit.evaluator;
    const evaluator = this.compile(p);
    this.compiled.set(name, { resourceVersion: rv, evaluator });
    return evaluator;
  }
}

function byName(a: KubeObject, b: KubeObject): number {
  const x = a.metadata?.name ?? '';
  const y = b.metadata?.name ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}
