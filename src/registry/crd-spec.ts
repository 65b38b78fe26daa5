import type { JsonObject } from '../machinery/json.js';
import type { KubeObject } from '../machinery/object.js';
import { crdSpec, crdStatus, crdVersions, versionSubresources, type CrdColumn } from '../apiextensions/crd.js';
import { deprecationWarnings } from '../apiextensions/versions.js';
import type { CustomResourceSpec, CustomResourceVersion } from './custom-descriptors.js';
import type { PrinterColumn } from './custom-table.js';
import { clientConfigOf } from './webhook-client.js';

/**
 * What a stored CustomResourceDefinition serves, as kube's crdHandler builds
 * its serving info: the URL's plural from spec.names, every other name from
 * status.acceptedNames (what the naming controller granted), each version's
 * schema, subresources, printer columns, selectable fields and deprecation
 * warning.
 */

function columns(cols: CrdColumn[] | undefined): PrinterColumn[] {
  return (cols ?? []).map((c) => ({
    name: c.name ?? '',
    type: c.type ?? '',
    jsonPath: c.jsonPath ?? '',
    ...(c.format ? { format: c.format } : {}),
    ...(c.description ? { description: c.description } : {}),
    ...(c.priority ? { priority: c.priority } : {}),
  }));
}

export function customResourceSpecFromCrd(crd: KubeObject, lifecycle?: { terminating: boolean }): CustomResourceSpec {
  const spec = crdSpec(crd);
  const accepted = crdStatus(crd).acceptedNames ?? {};
  const kind = accepted.kind ?? '';
  const warnings = deprecationWarnings(spec, kind);
  const versions: CustomResourceVersion[] = crdVersions(crd).map((v) => {
    const sub = versionSubresources(v);
    const scale = sub.scale;
    const schema = v.schema?.openAPIV3Schema as JsonObject | undefined;
    const warning = warnings.get(v.name ?? '');
    const selectable = (v.selectableFields ?? []).map((f) => f?.jsonPath ?? '').filter((p) => p !== '');
    return {
      name: v.name ?? '',
      storage: v.storage === true,
      served: v.served === true,
      ...(schema ? { schema } : {}),
      columns: columns(v.additionalPrinterColumns),
      status: sub.status !== undefined && sub.status !== null,
      ...(scale?.specReplicasPath && scale.statusReplicasPath
        ? { scale: { specReplicasPath: scale.specReplicasPath, statusReplicasPath: scale.statusReplicasPath, ...(scale.labelSelectorPath ? { labelSelectorPath: scale.labelSelectorPath } : {}) } }
        : {}),
      ...(selectable.length > 0 ? { selectableFields: selectable } : {}),
      ...(warning ? { warning } : {}),
    };
  });
  return {
    group: spec.group ?? '',
    kind,
    plural: spec.names?.plural ?? '',
    ...(accepted.singular ? { singular: accepted.singular } : {}),
    ...(accepted.listKind ? { listKind: accepted.listKind } : {}),
    shortNames: accepted.shortNames ?? [],
    categories: accepted.categories ?? [],
    namespaced: spec.scope !== 'Cluster',
    versions,
    ...(spec.preserveUnknownFields === true ? { preserveUnknownFields: true } : {}),
    ...(spec.conversion?.strategy === 'Webhook'
      ? {
          conversionWebhook: {
            crdName: crd.metadata?.name ?? '',
            clientConfig: clientConfigOf(spec.conversion.webhook?.clientConfig ?? {}),
            conversionReviewVersions: spec.conversion.webhook?.conversionReviewVersions ?? [],
          },
        }
      : {}),
    ...(lifecycle ? { lifecycle } : {}),
  };
}
