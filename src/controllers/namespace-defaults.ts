import type { ApiClient } from '../machinery/client.js';
import type { KubeObject } from '../machinery/object.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { jsonEqual, cloneObject } from '../machinery/object.js';
import { WorkQueue, type ResourceFollower } from '../registry/informer.js';
import { followerFactory, type Controller, type ControllerShared } from './controller.js';
import { createIfMissing, readModifyWrite } from './writes.js';

/**
 * Objects kube-controller-manager puts into every active namespace: the
 * `default` ServiceAccount (serviceaccount controller) and the
 * `kube-root-ca.crt` ConfigMap (root-ca-cert-publisher). Each is recreated
 * when deleted and repaired when changed, while the namespace is active.
 * Reads come from informers; writes go through the API as
 * kube-controller-manager's (the client's User-Agent names the manager).
 */

export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
export const DEFAULT_SERVICE_ACCOUNT = 'default';
const SERVICE_ACCOUNTS = { group: '', version: 'v1', resource: 'serviceaccounts' };
const CONFIG_MAPS = { group: '', version: 'v1', resource: 'configmaps' };
const ROOT_CA_DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

function isActive(ns: KubeObject | undefined): boolean {
  return !!ns && !ns.metadata?.deletionTimestamp && (ns.status as { phase?: string } | undefined)?.phase !== 'Terminating';
}

export class NamespaceDefaults implements Controller {
  readonly name = 'namespace-defaults';
  private readonly nsInformer: ResourceFollower;
  private readonly saInformer: ResourceFollower;
  private readonly cmInformer: ResourceFollower;
  private readonly queue: WorkQueue;

  /** The stores are read (informers); `client` writes. */
  constructor(
    namespaces: ResourceStore,
    serviceAccounts: ResourceStore,
    configMaps: ResourceStore,
    private readonly client: ApiClient,
    private readonly rootCaPem: string,
    shared: ControllerShared = {},
    /** Which of kube's two controllers this one plays (--controllers may turn either off). */
    private readonly parts: { serviceAccount: boolean; rootCaPublisher: boolean } = { serviceAccount: true, rootCaPublisher: true },
  ) {
    const follow = followerFactory(shared);
    this.queue = new WorkQueue((ns) => this.sync(ns), { name: 'root_ca_cert_publisher', backoff: { baseMs: 1000, maxMs: 1000 }, ...(shared.metrics ? { metrics: shared.metrics } : {}) });
    this.nsInformer = follow(namespaces, (type, ns) => {
      if (type !== 'DELETED') this.queue.add(ns.metadata!.name!);
    });
    this.saInformer = follow(serviceAccounts, (type, sa) => {
      if (type === 'DELETED' && sa.metadata?.name === DEFAULT_SERVICE_ACCOUNT) this.queue.add(sa.metadata.namespace!);
    });
    this.cmInformer = follow(configMaps, (type, cm) => {
      if (cm.metadata?.name === ROOT_CA_CONFIGMAP && type !== 'ADDED') this.queue.add(cm.metadata.namespace!);
    });
  }

  async start(): Promise<void> {
    await Promise.all([this.saInformer.start(), this.cmInformer.start()]);
    await this.nsInformer.start();
  }

  stop(): void {
    this.nsInformer.stop();
    this.saInformer.stop();
    this.cmInformer.stop();
    this.queue.stop();
  }

  private async sync(namespace: string): Promise<void> {
    if (!isActive(this.nsInformer.get(namespace))) return;
    if (this.parts.serviceAccount) await this.ensureServiceAccount(namespace);
    if (this.parts.rootCaPublisher) await this.ensureRootCa(namespace);
  }

  private async ensureServiceAccount(namespace: string): Promise<void> {
    if (this.saInformer.get(`${namespace}/${DEFAULT_SERVICE_ACCOUNT}`)) return;
    await createIfMissing(this.client, { ...SERVICE_ACCOUNTS, namespace }, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace },
    });
  }

  private async ensureRootCa(namespace: string): Promise<void> {
    const data = { 'ca.crt': this.rootCaPem };
    const annotations = { 'kubernetes.io/description': ROOT_CA_DESCRIPTION };
    const existing = this.cmInformer.get(`${namespace}/${ROOT_CA_CONFIGMAP}`);
    if (!existing) {
      await createIfMissing(this.client, { ...CONFIG_MAPS, namespace }, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: ROOT_CA_CONFIGMAP, namespace, annotations },
        data,
      });
      return;
    }
    if (existing.metadata?.deletionTimestamp) return;
    // Any description will do (kube checks only that there is one).
    const hasAnnotation = !!existing.metadata?.annotations?.['kubernetes.io/description'];
    if (jsonEqual(existing.data, data) && hasAnnotation) return;
    await readModifyWrite(this.client, { ...CONFIG_MAPS, namespace, name: ROOT_CA_CONFIGMAP }, (cur) => {
      // Gone meanwhile: the informer's delete event brings a create.
      if (!cur || cur.metadata?.deletionTimestamp) return undefined;
      const next = cloneObject(cur);
      next.data = data;
      next.metadata!.annotations = { ...(next.metadata!.annotations ?? {}), ...annotations };
      return next;
    });
  }
}
