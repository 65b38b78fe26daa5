import { canonicalJson, type Json } from '../machinery/json.js';
import type { Logger } from '../machinery/logger.js';
import type { KubeObject } from '../machinery/object.js';
import { conditionTrue, crdSpec, crdStatus } from '../apiextensions/crd.js';
import { customResource, type ConversionWebhookCalls } from '../registry/custom-descriptors.js';
import { customResourceSpecFromCrd } from '../registry/crd-spec.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { followerFactory, type Controller, type ControllerShared } from './controller.js';
import { WorkQueue, type ResourceFollower } from '../registry/informer.js';

/**
 * Serves what the stored CustomResourceDefinitions define, on every process
 * (kube's crdHandler with its DiscoveryController and OpenAPI controllers):
 * a CRD whose names are accepted (or that is established) is added to the
 * registry, which puts it in discovery and OpenAPI; a change to its spec or
 * accepted names builds it again (its watches end, as kube's storage swap
 * ends them); Terminating only stops creates; a CRD that is gone is removed.
 * A CRD for a built-in resource is not served (the built-in wins, as
 * kube-apiserver's handlers come before apiextensions'). Keys (CRD names)
 * go through a work queue, so a burst of changes to one CRD rebuilds it once.
 */

interface Served {
  /** Spec and accepted names the descriptor was built from. */
  key: string;
  group: string;
  plural: string;
  lifecycle: { terminating: boolean };
}

export class CrdServing implements Controller {
  readonly name = 'crd-serving';
  private readonly informer: ResourceFollower;
  private readonly queue: WorkQueue;
  private readonly served = new Map<string, Served>();

  constructor(
    crds: ResourceStore,
    private readonly registry: Registry,
    private readonly logger: Logger,
    shared: ControllerShared = {},
    /** What calls the CRDs' conversion webhooks. */
    private readonly conversionCalls?: ConversionWebhookCalls,
  ) {
    this.queue = new WorkQueue(async (name) => this.sync(this.informer.get(name), name), { name: 'crd_serving', ...(shared.metrics ? { metrics: shared.metrics } : {}) });
    this.informer = followerFactory(shared)(crds, (_type, crd) => this.queue.add(crd.metadata?.name ?? ''));
  }

  /** Resolves once every stored CRD has been looked at (served or not), so requests for them find them. */
  async start(): Promise<void> {
    await this.informer.start();
    await this.queue.idle();
  }

  stop(): void {
    this.informer.stop();
    this.queue.stop();
  }

  private sync(crd: KubeObject | undefined, name: string): void {
    const current = this.served.get(name);
    const serve = crd !== undefined && (conditionTrue(crd, 'NamesAccepted') || conditionTrue(crd, 'Established'));
    if (!serve) {
      if (current) this.unserve(name, current);
      return;
    }
    const key = canonicalJson({ spec: crd.spec ?? null, acceptedNames: (crdStatus(crd).acceptedNames ?? null) } as unknown as Json);
    const terminating = conditionTrue(crd, 'Terminating');
    if (current?.key === key) {
      current.lifecycle.terminating = terminating;
      return;
    }
    const spec = crdSpec(crd);
    const lifecycle = { terminating };
    try {
      const { descriptor, versions } = customResource(customResourceSpecFromCrd(crd, lifecycle), this.registry.keyLayout, this.conversionCalls);
      if (current && (current.group !== descriptor.group || current.plural !== descriptor.resource)) this.unserve(name, current);
      this.registry.addResource(descriptor, versions);
      this.served.set(name, { key, group: spec.group ?? '', plural: spec.names?.plural ?? '', lifecycle });
    } catch (err) {
      this.logger.error(`customresourcedefinition ${name} not served: ${(err as Error).message}`);
      if (current) this.unserve(name, current);
    }
  }

  private unserve(name: string, s: Served): void {
    this.registry.removeResource(s.group, s.plural);
    this.served.delete(name);
  }
}
