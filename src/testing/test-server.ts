import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AdmissionPlugin } from '../admission/admission.js';
import type { ApiClient, ObjectRef } from '../machinery/client.js';
import { FeatureGates } from '../machinery/feature-gates.js';
import type { KubeObject } from '../machinery/object.js';
import { Informer } from '../registry/informer.js';
import { ApiServer, type RequestRecord } from '../server/apiserver.js';
import type { ServerConfig } from '../server/config.js';
import { renderKubeconfig } from '../server/kubeconfig.js';
import { ensurePki, type ServerPki } from '../server/pki.js';
import { MemoryStore } from '../storage/memory.js';
import { SqliteStore } from '../storage/sqlite.js';
import type { Store } from '../storage/store.js';
import { applyObjects, parseManifests, readManifests, type ManifestSource } from './manifests.js';
import { StoreState } from './store-state.js';
import { SystemTemplates } from './system-template.js';
import { TestUsers } from './users.js';

/**
 * capstan/testing: a real API server inside a test process. In-process on a
 * free loopback port, memory store by default, certificates in memory;
 * CRDs installed and Established and objects seeded before it resolves.
 */

export interface TestServerOptions {
  /** CRDs to install at start (objects, YAML/JSON files, directories); startTestServer resolves once each is Established. */
  crds?: ManifestSource[];
  /** Objects to create after the CRDs (server-side apply, field manager `capstan-testing`). */
  objects?: ManifestSource[];
  /** `memory` (default) or `sqlite` in a temporary directory removed by stop(). */
  storage?: 'memory' | 'sqlite';
  /** `AlwaysAllow` (default: every authenticated user may do anything) or `RBAC` (the default roles; users get what bindings give them). */
  authorization?: 'AlwaysAllow' | 'RBAC';
  /** Admission plugins beyond the built-in ones the server runs. */
  admissionPlugins?: AdmissionPlugin[];
  /** --feature-gates, e.g. `{ MutatingAdmissionPolicy: true }`. */
  featureGates?: Record<string, boolean>;
  /** --runtime-config, e.g. `{ 'api/all': 'true' }`. */
  runtimeConfig?: Record<string, string>;
  /** Further server settings with kube-apiserver's flag names. */
  config?: Partial<ServerConfig>;
}

export interface TestUser {
  /** A bearer token the server knows as this user. */
  token: string;
  /** A kubeconfig for the user (YAML text). */
  kubeconfig: string;
}

export interface WaitOptions {
  timeoutMs?: number;
}

export interface TestServer {
  readonly url: string;
  /** The admin kubeconfig (YAML text; user capstan-admin in system:masters). */
  readonly kubeconfig: string;
  /** The admin kubeconfig in a temporary file (removed by stop()), for kubectl and clients that read files. */
  readonly kubeConfigPath: string;
  /** The server's own client (in memory, as system:apiserver): quick set-up and assertions. */
  readonly client: ApiClient;
  /** The underlying server. */
  readonly server: ApiServer;
  /** A @kubernetes/client-node KubeConfig for the admin, when that package is installed (imported on first use). */
  kubeConfig(): Promise<unknown>;
  /** Credentials for a limited user (with authorization 'RBAC', what bindings grant them). */
  clientFor(username: string, groups?: string[]): TestUser;
  /** Applies objects or multi-document YAML text (server-side apply, forced). */
  apply(manifests: string | KubeObject | KubeObject[], options?: { fieldManager?: string; namespace?: string }): Promise<KubeObject[]>;
  /** Resolves with the object once `condition` holds for it (watched, not polled); rejects after the timeout with its last state. */
  waitFor(ref: ObjectRef, condition: (obj: KubeObject | undefined) => boolean, options?: WaitOptions): Promise<KubeObject | undefined>;
  /** A new namespace with a generated name (`prefix-xxxxx`). */
  freshNamespace(prefix?: string): Promise<string>;
  /** Deletes everything created since startTestServer resolved, keeping the CRDs and seeded objects (store level: no finalizers or garbage collection run). */
  reset(): Promise<void>;
  /** Writes everything stored to a file; restore() brings it back. */
  snapshot(path: string): Promise<void>;
  restore(path: string): Promise<void>;
  /** Every request answered so far (the server's own in-memory requests included, as user system:apiserver). */
  readonly requests: readonly RequestRecord[];
  /** Stops the server and removes its temporary files; leaves no open handles. */
  stop(): Promise<void>;
}

const FIELD_MANAGER = 'capstan-testing';
const DEFAULT_WAIT_MS = 10_000;

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const tmp = mkdtempSync(join(tmpdir(), 'capstan-testing-'));
  const users = new TestUsers();
  const requests: RequestRecord[] = [];
  let store: Store | undefined;
  let server: ApiServer | undefined;
  try {
    store = options.storage === 'sqlite' ? await SqliteStore.open({ path: join(tmp, 'capstan.db'), synchronous: 'NORMAL' }) : new MemoryStore();
    const pki = await processPki();
    const shape = templateShape(options);
    if (shape !== undefined) await systemTemplates.seed(shape, store);
    server = new ApiServer({
      store,
      pki,
      extraAuthenticators: [users],
      ...(options.admissionPlugins ? { admissionPlugins: options.admissionPlugins } : {}),
      onRequest: (r) => requests.push(r),
      config: {
        bindAddress: '127.0.0.1',
        authorizationModes: [options.authorization ?? 'AlwaysAllow'],
        ...(options.runtimeConfig ? { runtimeConfig: Object.entries(options.runtimeConfig).map(([k, v]) => `${k}=${v}`) } : {}),
        ...(options.featureGates ? { featureGates: featureGatesFrom(options.featureGates) } : {}),
        ...options.config,
      },
    });
    await server.start();
    await server.controllersSynced;
    // The local APIServices are the system's too: reset() must keep them.
    await server.autoregistered;
    if (shape !== undefined) await systemTemplates.capture(shape, store, server.config.etcdPrefix);
    const client = server.client(FIELD_MANAGER);
    const admin = server.adminKubeconfig();
    const kubeconfig = renderKubeconfig({ ...admin, contextName: 'capstan-testing' });
    const kubeConfigPath = join(tmp, 'admin.kubeconfig');
    writeFileSync(kubeConfigPath, kubeconfig, { mode: 0o600 });
    const running = server;
    const waitFor: TestServer['waitFor'] = (ref, condition, opts = {}) => waitForObject(running, ref, condition, opts.timeoutMs ?? DEFAULT_WAIT_MS);

    const crds = (options.crds ?? []).flatMap(readManifests);
    for (const crd of await applyObjects(client, server.catalog, crds, FIELD_MANAGER)) {
      const ref = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', name: crd.metadata!.name! };
      await waitFor(ref, (o) => established(o));
    }
    await applyObjects(client, server.catalog, (options.objects ?? []).flatMap(readManifests), FIELD_MANAGER);
    // What is there now (the system's objects, the CRDs and the seeded objects) is what reset() keeps.
    const state = new StoreState(store, server.config.etcdPrefix);
    await state.markSystemState();

    let kubeConfig: Promise<unknown> | undefined;
    let stopped = false;
    return {
      url: server.url,
      kubeconfig,
      kubeConfigPath,
      client,
      server,
      requests,
      kubeConfig() {
        kubeConfig ??= loadClientNodeKubeConfig(kubeconfig);
        return kubeConfig;
      },
      clientFor(username, groups = []) {
        const token = users.tokenFor({ username, groups });
        return { token, kubeconfig: renderKubeconfig({ server: running.url, caPem: admin.caPem, token, user: username, contextName: 'capstan-testing' }) };
      },
      apply(manifests, opts = {}) {
        const objects = typeof manifests === 'string' ? parseManifests(manifests) : Array.isArray(manifests) ? manifests : [manifests];
        return applyObjects(client, running.catalog, objects, opts.fieldManager ?? FIELD_MANAGER, opts.namespace);
      },
      waitFor,
      async freshNamespace(prefix = 'test') {
        const ns = await client.create({ group: '', version: 'v1', resource: 'namespaces' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { generateName: `${prefix}-` } });
        return ns.metadata!.name!;
      },
      async reset() {
        await state.reset();
      },
      async snapshot(path) {
        await state.snapshot(path);
      },
      async restore(path) {
        await state.restore(path);
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        await running.stop();
        await store!.close();
        rmSync(tmp, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await server?.stop().catch(() => undefined);
    await store?.close().catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

const systemTemplates = new SystemTemplates();

/**
 * What decides a ready server's system objects, as a template key; undefined
 * when an option may change them in ways a key cannot tell (server settings,
 * admission plugins that could mutate them), so such servers write their own.
 */
function templateShape(options: TestServerOptions): string | undefined {
  if (options.config !== undefined || options.admissionPlugins !== undefined) return undefined;
  return JSON.stringify([options.authorization ?? 'AlwaysAllow', options.featureGates ?? {}, options.runtimeConfig ?? {}]);
}

let sharedPki: Promise<ServerPki> | undefined;

/**
 * One in-memory PKI per process, shared by every test server: key generation
 * and signing were a third of a later start, and nothing in the certificates
 * names a port (the serving names are loopback's and the in-cluster ones).
 * Servers stay isolated: a certificate proves identity, not which server.
 */
function processPki(): Promise<ServerPki> {
  sharedPki ??= ensurePki({ servingNames: [], adminUser: 'capstan-admin', adminGroups: ['system:masters'] }).catch((err: unknown) => {
    sharedPki = undefined;
    throw err;
  });
  return sharedPki;
}

function featureGatesFrom(gates: Record<string, boolean>): ServerConfig['featureGates'] {
  // The flag's parser does the validation (unknown gates, locked ones) and says what is wrong.
  return FeatureGates.parse(Object.entries(gates).map(([k, v]) => `${k}=${v}`));
}

function established(crd: KubeObject | undefined): boolean {
  const conditions = ((crd?.status ?? {}) as { conditions?: Array<{ type?: string; status?: string }> }).conditions ?? [];
  return conditions.some((c) => c.type === 'Established' && c.status === 'True');
}

/** Watches the object's resource (its namespace only) until the condition holds. */
async function waitForObject(server: ApiServer, ref: ObjectRef, condition: (obj: KubeObject | undefined) => boolean, timeoutMs: number): Promise<KubeObject | undefined> {
  const info = server.catalog.resource(ref.group, ref.version, ref.resource);
  if (!info) throw new Error(`the server does not serve ${ref.group ? `${ref.group}/` : ''}${ref.version}/${ref.resource}`);
  const descriptor = server.registry.descriptorFor(info);
  const key = ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
  let last: KubeObject | undefined;
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (fn: () => void): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      informer.stop();
      fn();
    };
    const check = (obj: KubeObject | undefined): void => {
      last = obj && descriptor.toServed(obj, info);
      let holds = false;
      try {
        holds = condition(last);
      } catch (err) {
        finish(() => reject(err));
        return;
      }
      if (holds) finish(() => resolve(last));
    };
    const informer = new Informer(
      server.registry.storeFor(info),
      (type, obj) => {
        if (Informer.keyOf(obj) === key) check(type === 'DELETED' ? undefined : obj);
      },
      ref.namespace,
    );
    const timer = setTimeout(() => finish(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${ref.resource} ${key}; last state: ${last === undefined ? 'absent' : JSON.stringify(last)}`))), timeoutMs);
    void informer.start().then(() => {
      // Absent from the start: the condition may be about absence.
      if (!done && informer.get(key) === undefined) check(undefined);
    });
  });
}

async function loadClientNodeKubeConfig(kubeconfig: string): Promise<unknown> {
  let mod: { KubeConfig: new () => { loadFromString(text: string): void } };
  try {
    mod = (await import('@kubernetes/client-node')) as unknown as typeof mod;
  } catch {
    throw new Error('kubeConfig() needs the @kubernetes/client-node package: npm install --save-dev @kubernetes/client-node');
  }
  const kc = new mod.KubeConfig();
  kc.loadFromString(kubeconfig);
  return kc;
}

