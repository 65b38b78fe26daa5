import { ApiCatalog } from '../../src/api/catalog.js';
import type { AdmissionAttributes, AdmissionOperation } from '../../src/admission/admission.js';
import type { Lister } from '../../src/admission/lister.js';
import type { ApiError } from '../../src/machinery/errors.js';
import type { KubeObject } from '../../src/machinery/object.js';
import type { ObjectLookup } from '../../src/registry/object-lookup.js';

/** Admission attributes and fixed listers for driving built-in plugins directly in unit tests. */

const catalog = ApiCatalog.load();

export function attrs(
  group: string,
  resource: string,
  operation: AdmissionOperation,
  object: KubeObject | undefined,
  more: { namespace?: string; name?: string; subresource?: string; oldObject?: KubeObject } = {},
): AdmissionAttributes {
  const info = catalog.resource(group, 'v1', resource);
  if (!info) throw new Error(`no ${group}/v1 ${resource}`);
  return {
    operation,
    resource: info,
    subresource: more.subresource ?? '',
    namespace: more.namespace ?? (info.namespaced ? 'ns' : ''),
    name: more.name ?? '',
    ...(object ? { object } : {}),
    ...(more.oldObject ? { oldObject: more.oldObject } : {}),
    dryRun: false,
  };
}

export function pod(spec: Record<string, unknown>, metadata: KubeObject['metadata'] = { name: 'p', namespace: 'ns' }): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
}

/** A lookup over fixed objects, keyed `namespace/name` or `name`. */
export function fixedLookup(objects: KubeObject[]): ObjectLookup {
  return async (namespace, name) => objects.find((o) => o.metadata?.name === name && (o.metadata?.namespace ?? undefined) === (namespace || undefined));
}

/** A lister whose informer holds `objects`; its live lookups read `live` (default: the same objects) and are counted. */
export function fixedLister(objects: KubeObject[], live: KubeObject[] = objects): Lister & { liveLists: number } {
  const inNamespace = (list: KubeObject[], namespace: string): KubeObject[] => list.filter((o) => (o.metadata?.namespace ?? '') === namespace);
  const lister = {
    liveLists: 0,
    start: async () => undefined,
    hasSynced: true,
    list: (namespace = '') => inNamespace(objects, namespace),
    liveList: async (namespace: string) => {
      lister.liveLists++;
      return inNamespace(live, namespace);
    },
  };
  return lister;
}

/** The ApiError a promise rejects with. */
export async function rejection(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    return err as ApiError;
  }
  throw new Error('expected a rejection');
}
