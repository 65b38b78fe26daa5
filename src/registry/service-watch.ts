import type { KubeObject } from '../machinery/object.js';
import { Informer } from './informer.js';
import type { ResourceStore } from './resource-store.js';

/**
 * Services and their EndpointSlices as the watch caches hold them, with a
 * callback on every change: what the APIService availability checks read
 * (kube's RemoteAvailability listers). Where a call to a Service goes is
 * service-routing.ts's.
 */

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

export class ServiceWatch {
  private readonly services: Informer;
  private readonly slices: Informer;
  /** namespace/service → its EndpointSlices' keys. */
  private readonly slicesByService = new Map<string, Set<string>>();

  constructor(services: ResourceStore, endpointSlices: ResourceStore, onChange?: (namespace: string, service: string) => void) {
    this.services = new Informer(services, (_type, svc) => onChange?.(str(svc.metadata?.namespace), str(svc.metadata?.name)));
    this.slices = new Informer(endpointSlices, (type, slice) => {
      const service = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
      const namespace = str(slice.metadata?.namespace);
      const sliceKey = Informer.keyOf(slice);
      for (const keys of this.slicesByService.values()) keys.delete(sliceKey);
      if (type !== 'DELETED' && service) {
        const key = `${namespace}/${service}`;
        let keys = this.slicesByService.get(key);
        if (!keys) this.slicesByService.set(key, (keys = new Set()));
        keys.add(sliceKey);
      }
      if (service) onChange?.(namespace, service);
    });
  }

  async start(): Promise<void> {
    await Promise.all([this.services.start(), this.slices.start()]);
  }

  stop(): void {
    this.services.stop();
    this.slices.stop();
  }

  service(namespace: string, name: string): KubeObject | undefined {
    return this.services.get(`${namespace}/${name}`);
  }

  endpointSlices(namespace: string, name: string): KubeObject[] {
    return [...(this.slicesByService.get(`${namespace}/${name}`) ?? [])].map((k) => this.slices.get(k)).filter((s): s is KubeObject => s !== undefined);
  }

  /** The port's name on the Service (what EndpointSlices name it), or undefined when the Service has no such port. */
  servicePortName(service: KubeObject, port: number): string | undefined {
    const found = arr(obj(service.spec).ports).map(obj).find((p) => p.port === port);
    return found ? str(found.name) : undefined;
  }

  /** Whether a ready endpoint serves the named port (kube's hasAvailableEndpoint). */
  hasReadyEndpoint(namespace: string, name: string, portName: string): boolean {
    return this.readyAddresses(namespace, name, portName).length > 0;
  }

  private readyAddresses(namespace: string, name: string, portName: string): Array<{ host: string; port: number }> {
    const out: Array<{ host: string; port: number }> = [];
    for (const slice of this.endpointSlices(namespace, name)) {
      const s = slice as Obj;
      const port = arr(s.ports).map(obj).find((p) => str(p.name) === portName && typeof p.port === 'number');
      if (!port) continue;
      for (const e of arr(s.endpoints).map(obj)) {
        if (obj(e.conditions).ready === false) continue;
        for (const address of arr(e.addresses)) if (typeof address === 'string') out.push({ host: address, port: port.port as number });
      }
    }
    return out;
  }
}
