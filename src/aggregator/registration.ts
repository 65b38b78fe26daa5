import { builtinVersionPriority, CUSTOM_RESOURCE_GROUP_PRIORITY, CUSTOM_RESOURCE_VERSION_PRIORITY } from '../api/api-service-priorities.js';
import type { ApiCatalog } from '../api/catalog.js';
import type { ApiClient } from '../machinery/client.js';
import { isApiError } from '../machinery/errors.js';
import { cloneObject, jsonEqual } from '../machinery/object.js';
import { Informer, WorkQueue } from '../registry/informer.js';
import type { ResourceStore } from '../registry/resource-store.js';

/**
 * kube-aggregator's autoregister and crdregistration controllers, on the
 * leader: a local APIService (no service) named `<version>.<group>` for every
 * built-in group-version this server serves, made once at start (label
 * `kube-aggregator.kubernetes.io/automanaged: onstart`), and one for every
 * served version of every CRD, kept while the CRD serves it (`true`).
 * Automanaged APIServices nobody wants are deleted; an APIService whose
 * label was removed is the user's and left alone.
 */

export const AUTOMANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';
const ON_START = 'onstart';
const CONTINUOUSLY = 'true';
const APISERVICES = { group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices' } as const;

interface Wanted {
  group: string;
  version: string;
  groupPriorityMinimum: number;
  versionPriority: number;
  manage: typeof ON_START | typeof CONTINUOUSLY;
}

export function apiServiceName(group: string, version: string): string {
  return `${version}.${group}`;
}

/** The local APIService of every built-in group-version the catalog serves now (resources added at run time are CRDs'). */
function builtinApiServices(catalog: ApiCatalog, isAdded: (group: string, resource: string) => boolean): Map<string, Wanted> {
  const out = new Map<string, Wanted>();
  for (const g of catalog.groups()) {
    for (const v of g.versions) {
      if (v.resources.every((r) => isAdded(g.name, r.name))) continue;
      out.set(apiServiceName(g.name, v.version), { group: g.name, version: v.version, groupPriorityMinimum: g.priority, versionPriority: builtinVersionPriority(g.name, v.version), manage: ON_START });
    }
  }
  return out;
}

/**
 * kube's `autoregister-completion` readyz check, on every process: ready once
 * every built-in group-version's APIService has been seen Available.
 */
export class AutoregisterCompletion {
  readonly name = 'autoregister-completion';
  private readonly pending: Set<string>;
  private readonly informer: Informer;
  private resolveDone!: () => void;
  /** Resolves once every built-in APIService has been seen Available. */
  readonly done = new Promise<void>((resolve) => (this.resolveDone = resolve));

  constructor(apiServiceStore: ResourceStore, catalog: ApiCatalog, isAdded: (group: string, resource: string) => boolean) {
    this.pending = new Set(builtinApiServices(catalog, isAdded).keys());
    this.informer = new Informer(apiServiceStore, (type, apiService) => {
      const conditions = ((apiService.status ?? {}) as { conditions?: Array<{ type?: string; status?: string }> }).conditions ?? [];
      if (type !== 'DELETED' && conditions.some((c) => c.type === 'Available' && c.status === 'True')) this.pending.delete(apiService.metadata?.name ?? '');
      if (this.pending.size === 0) this.resolveDone();
    });
    if (this.pending.size === 0) this.resolveDone();
  }

  async start(): Promise<void> {
    await this.informer.start();
  }

  stop(): void {
    this.informer.stop();
  }

  /** Throws kube's message while some are missing. */
  check(): void {
    if (this.pending.size > 0) throw new Error(`missing APIService: [${[...this.pending].sort().join(' ')}]`);
  }
}

export class ApiServiceRegistration {
  readonly name = 'apiservice-registration';
  private readonly apiServices: Informer;
  private readonly crds: Informer;
  private readonly queue: WorkQueue;
  private readonly builtin = new Map<string, Wanted>();
  /** onstart APIServices already made or checked by this process: later deletions by a user stand until a restart. */
  private readonly syncedOnStart = new Set<string>();
  private started = false;

  constructor(
    apiServiceStore: ResourceStore,
    crdStore: ResourceStore,
    private readonly catalog: ApiCatalog,
    /** Whether a resource was added at run time (a CRD's), so its group-version is not a built-in one. */
    private readonly isAdded: (group: string, resource: string) => boolean,
    private readonly client: ApiClient,
  ) {
    this.queue = new WorkQueue((name) => this.sync(name));
    this.apiServices = new Informer(apiServiceStore, (_type, apiService) => this.started && this.queue.add(apiService.metadata?.name ?? ''));
    this.crds = new Informer(crdStore, (_type, crd) => {
      if (!this.started) return;
      const spec = (crd.spec ?? {}) as { group?: string; versions?: Array<{ name?: string }> };
      for (const v of spec.versions ?? []) this.queue.add(apiServiceName(spec.group ?? '', v.name ?? ''));
    });
  }

  async start(): Promise<void> {
    for (const [name, wanted] of builtinApiServices(this.catalog, this.isAdded)) this.builtin.set(name, wanted);
    // The CRDs first: the first sync must not delete the APIService of a CRD it has not seen yet.
    await this.crds.start();
    await this.apiServices.start();
    this.started = true;
    for (const name of this.builtin.keys()) this.queue.add(name);
    for (const name of this.crdWanted().keys()) this.queue.add(name);
    for (const apiService of this.apiServices.list()) this.queue.add(apiService.metadata?.name ?? '');
  }

  stop(): void {
    this.apiServices.stop();
    this.crds.stop();
    this.queue.stop();
  }

  /** Every served version of every CRD (kube's crdregistration), by APIService name. */
  private crdWanted(): Map<string, Wanted> {
    const out = new Map<string, Wanted>();
    for (const crd of this.crds.list()) {
      if (crd.metadata?.deletionTimestamp) continue;
      const spec = (crd.spec ?? {}) as { group?: string; versions?: Array<{ name?: string; served?: boolean }> };
      for (const v of spec.versions ?? []) {
        if (!v.served || !spec.group || !v.name) continue;
        out.set(apiServiceName(spec.group, v.name), { group: spec.group, version: v.name, groupPriorityMinimum: CUSTOM_RESOURCE_GROUP_PRIORITY, versionPriority: CUSTOM_RESOURCE_VERSION_PRIORITY, manage: CONTINUOUSLY });
      }
    }
    return out;
  }

  private async sync(name: string): Promise<void> {
    // A built-in group-version is the built-in's even when a CRD names it too.
    const wanted = this.builtin.get(name) ?? this.crdWanted().get(name);
    const current = this.apiServices.get(name);
    const managed = current?.metadata?.labels?.[AUTOMANAGED_LABEL];
    try {
      if (!wanted) {
        // onstart ones a process has not looked at yet, and continuously managed ones, go when nobody wants them.
        if (current && (managed === CONTINUOUSLY || (managed === ON_START && !this.syncedOnStart.has(name)))) {
          await this.client.delete({ ...APISERVICES, name }, { preconditions: { uid: current.metadata!.uid!, resourceVersion: current.metadata!.resourceVersion! } });
        }
        return;
      }
      if (wanted.manage === ON_START && this.syncedOnStart.has(name)) return;
      const spec = { group: wanted.group, version: wanted.version, groupPriorityMinimum: wanted.groupPriorityMinimum, versionPriority: wanted.versionPriority };
      if (!current) {
        await this.client.create(APISERVICES, { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name, labels: { [AUTOMANAGED_LABEL]: wanted.manage } }, spec });
      } else if (managed === ON_START || managed === CONTINUOUSLY) {
        // The spec is replaced as a whole, as kube's autoregister does (a service or caBundle set on it goes).
        if (!jsonEqual(current.spec ?? {}, spec) || managed !== wanted.manage) {
          const updated = cloneObject(current);
          updated.metadata = { ...updated.metadata, labels: { ...updated.metadata?.labels, [AUTOMANAGED_LABEL]: wanted.manage } };
          updated.spec = spec;
          await this.client.update({ ...APISERVICES, name }, updated);
        }
      }
      if (wanted.manage === ON_START) this.syncedOnStart.add(name);
    } catch (err) {
      // Another writer got there first: the informer brings its change, and this name is synced again.
      if (!isApiError(err, 'AlreadyExists') && !isApiError(err, 'Conflict') && !isApiError(err, 'NotFound')) throw err;
    }
  }
}
