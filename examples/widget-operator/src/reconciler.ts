import { ADD, CoreV1Api, CustomObjectsApi, makeInformer, PatchStrategy, setHeaderOptions, UPDATE, type Informer, type KubeConfig, type KubernetesListObject, type KubernetesObject, type ObjectCache, type V1ConfigMap } from '@kubernetes/client-node';

/**
 * An example operator: for every Widget, a ConfigMap `<widget>-color` owned
 * by it (so it goes when the Widget goes) holding the widget's color, and
 * the Widget's status saying which ConfigMap and generation it reflects.
 * Written with @kubernetes/client-node only, as a real operator would be.
 */

export interface Widget extends KubernetesObject {
  spec: { color: string };
  status?: { configMap?: string; observedGeneration?: number };
}

const GROUP = 'example.com';
const VERSION = 'v1';
const PLURAL = 'widgets';
const FIELD_MANAGER = 'widget-operator';

export class WidgetReconciler {
  private readonly core: CoreV1Api;
  private readonly custom: CustomObjectsApi;
  private informer: (Informer<Widget> & ObjectCache<Widget>) | undefined;

  constructor(private readonly kc: KubeConfig) {
    this.core = kc.makeApiClient(CoreV1Api);
    this.custom = kc.makeApiClient(CustomObjectsApi);
  }

  async start(): Promise<void> {
    const list = async (): Promise<KubernetesListObject<Widget>> =>
      (await this.custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL })) as KubernetesListObject<Widget>;
    this.informer = makeInformer<Widget>(this.kc, `/apis/${GROUP}/${VERSION}/${PLURAL}`, list);
    const handle = (widget: Widget): void => void this.reconcile(widget).catch((err: unknown) => process.stderr.write(`reconcile ${widget.metadata?.name}: ${String(err)}\n`));
    this.informer.on(ADD, handle);
    this.informer.on(UPDATE, handle);
    await this.informer.start();
  }

  async stop(): Promise<void> {
    await this.informer?.stop();
  }

  async reconcile(widget: Widget): Promise<void> {
    const { name, namespace, uid, generation } = widget.metadata ?? {};
    if (!name || !namespace || !uid) return;
    if (widget.status?.observedGeneration === generation) return;
    const configMap: V1ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `${name}-color`,
        namespace,
        ownerReferences: [{ apiVersion: `${GROUP}/${VERSION}`, kind: 'Widget', name, uid, controller: true, blockOwnerDeletion: true }],
      },
      data: { color: widget.spec.color },
    };
    // Server-side apply: create or update in one call, owning only what it sets.
    await this.core.patchNamespacedConfigMap(
      { name: configMap.metadata!.name!, namespace, body: configMap, fieldManager: FIELD_MANAGER, force: true },
      setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
    );
    await this.custom.patchNamespacedCustomObjectStatus(
      { group: GROUP, version: VERSION, namespace, plural: PLURAL, name, body: { status: { configMap: configMap.metadata!.name, observedGeneration: generation } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }
}
