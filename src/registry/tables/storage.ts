import type { KubeObject } from '../../machinery/object.js';
import { ageCol, col, doc, nameCol, printer } from './columns.js';
import { type TableConvertor } from '../../codec/table-convertor.js';
import { age, annotationsOf, groupQualified, isDeleting, nameOf } from './format.js';
import { list, optRec, present, rec, recs, str, strings } from './values.js';

/** storage.k8s.io and resource.k8s.io printers. */

const STORAGE = 'io.k8s.api.storage.v1';
const RESOURCE = 'io.k8s.api.resource.v1';

function isDefaultStorageClass(obj: KubeObject): boolean {
  const a = annotationsOf(obj);
  return a['storageclass.kubernetes.io/is-default-class'] === 'true' || a['storageclass.beta.kubernetes.io/is-default-class'] === 'true';
}

export const storageClassTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('Provisioner', 'string', doc(`${STORAGE}.StorageClass`, 'provisioner')),
    col('ReclaimPolicy', 'string', doc(`${STORAGE}.StorageClass`, 'reclaimPolicy')),
    col('VolumeBindingMode', 'string', doc(`${STORAGE}.StorageClass`, 'volumeBindingMode')),
    col('AllowVolumeExpansion', 'string', doc(`${STORAGE}.StorageClass`, 'allowVolumeExpansion')),
    ageCol(),
  ],
  (o, now) => [
    isDefaultStorageClass(o) ? `${nameOf(o)} (default)` : nameOf(o),
    str(o.provisioner),
    typeof o.reclaimPolicy === 'string' ? o.reclaimPolicy : 'Delete',
    typeof o.volumeBindingMode === 'string' ? o.volumeBindingMode : 'Immediate',
    o.allowVolumeExpansion === true,
    age(o, now),
  ],
);

export const volumeAttributesClassTable: TableConvertor = printer(
  () => [nameCol(), col('DriverName', 'string', doc(`${STORAGE}.VolumeAttributesClass`, 'driverName')), ageCol()],
  (o, now) => [nameOf(o), str(o.driverName), age(o, now)],
);

export const volumeAttachmentTable: TableConvertor = printer(
  () => [
    nameCol(),
    // kube gives this column the "name" format too.
    col('Attacher', 'string', doc(`${STORAGE}.VolumeAttachmentSpec`, 'attacher'), 0, 'name'),
    col('PV', 'string', doc(`${STORAGE}.VolumeAttachmentSource`, 'persistentVolumeName')),
    col('Node', 'string', doc(`${STORAGE}.VolumeAttachmentSpec`, 'nodeName')),
    col('Attached', 'boolean', doc(`${STORAGE}.VolumeAttachmentStatus`, 'attached')),
    ageCol(),
  ],
  (o, now) => {
    const spec = rec(o.spec);
    return [nameOf(o), str(spec.attacher), str(rec(spec.source).persistentVolumeName), str(spec.nodeName), rec(o.status).attached === true, age(o, now)];
  },
);

export const csiNodeTable: TableConvertor = printer(
  () => [nameCol(), col('Drivers', 'integer', 'Drivers indicates the number of CSI drivers registered on the node'), ageCol()],
  (o, now) => [nameOf(o), list(rec(o.spec).drivers).length, age(o, now)],
);

export const csiDriverTable: TableConvertor = printer(
  () => {
    const spec = `${STORAGE}.CSIDriverSpec`;
    return [
      nameCol(),
      col('AttachRequired', 'boolean', doc(spec, 'attachRequired')),
      col('PodInfoOnMount', 'boolean', doc(spec, 'podInfoOnMount')),
      col('StorageCapacity', 'boolean', doc(spec, 'storageCapacity')),
      col('TokenRequests', 'string', doc(spec, 'tokenRequests')),
      col('RequiresRepublish', 'boolean', doc(spec, 'requiresRepublish')),
      col('Modes', 'string', doc(spec, 'volumeLifecycleModes')),
      ageCol(),
    ];
  },
  (o, now) => {
    const spec = rec(o.spec);
    const tokenRequests = present(spec.tokenRequests) ? recs(spec.tokenRequests).map((t) => str(t.audience)).join(',') : '<unset>';
    const modes = strings(spec.volumeLifecycleModes).join(',');
    return [
      nameOf(o),
      spec.attachRequired !== false,
      spec.podInfoOnMount === true,
      spec.storageCapacity === true,
      tokenRequests,
      spec.requiresRepublish === true,
      modes || '<none>',
      age(o, now),
    ];
  },
);

// ------------------------------------------------------------------ resource

export const nameAgeTable: TableConvertor = printer(
  () => [nameCol(), ageCol()],
  (o, now) => [nameOf(o), age(o, now)],
);

/** resourceClaimState: deleted, pending, allocated, reserved. */
function resourceClaimState(claim: KubeObject): string {
  const status = rec(claim.status);
  const states: string[] = [];
  if (isDeleting(claim)) states.push('deleted');
  if (!optRec(status.allocation)) {
    if (!isDeleting(claim)) states.push('pending');
  } else {
    states.push('allocated');
    if (list(status.reservedFor).length > 0) states.push('reserved');
  }
  return states.join(',');
}

export const resourceClaimTable: TableConvertor = printer(
  () => [nameCol(), col('State', 'string', 'A summary of the current state (allocated, pending, reserved, etc.).'), ageCol()],
  (o, now) => [nameOf(o), resourceClaimState(o), age(o, now)],
);

export const resourceSliceTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('Node', 'string', doc(`${RESOURCE}.ResourceSliceSpec`, 'nodeName')),
    col('Driver', 'string', doc(`${RESOURCE}.ResourceSliceSpec`, 'driver')),
    col('Pool', 'string', doc(`${RESOURCE}.ResourcePool`, 'name')),
    ageCol(),
  ],
  (o, now) => {
    const spec = rec(o.spec);
    return [nameOf(o), str(spec.nodeName), str(spec.driver), str(rec(spec.pool).name), age(o, now)];
  },
);


// ---------------------------------------------------------- storagemigration

/**
 * printStorageVersionMigration: Name (declared without the "name" format) and
 * the resource to migrate. Up to v1alpha1 the cell was resource.version.group;
 * v1beta1 (served in 1.36) names a GroupResource, written as its String() form.
 */
export const storageVersionMigrationTable: TableConvertor = printer(
  () => [col('Name', 'string', doc('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'name')), col('Resource', 'string', 'Fully qualified resource to migrate')],
  (o) => {
    const resource = rec(rec(o.spec).resource);
    return [nameOf(o), groupQualified(str(resource.resource), str(resource.group))];
  },
);
