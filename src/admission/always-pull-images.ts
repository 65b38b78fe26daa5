import { badRequest, fieldErrorString } from '../machinery/errors.js';
import { isRecord } from '../machinery/json.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './admission.js';
import { admissionForbidden, aggregateMessage, plainAdmissionError } from './admission-errors.js';
import { allContainers, listOf, podSpecOf, type PodSpec } from './pod-spec.js';

/**
 * The AlwaysPullImages admission plugin (plugin/pkg/admission/alwayspullimages):
 * every container's imagePullPolicy (and image volume's pullPolicy) becomes
 * Always, so a pod cannot use an image cached on its node without the
 * credentials to pull it. Updates that bring no new image are left alone.
 */
export class AlwaysPullImages implements AdmissionPlugin {
  readonly name = 'AlwaysPullImages';

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    const spec = this.podSpec(attrs);
    if (!spec) return;
    for (const { container } of allContainers(spec)) container.imagePullPolicy = 'Always';
    for (const v of listOf(spec.volumes)) if (isRecord(v.image)) v.image.pullPolicy = 'Always';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const spec = this.podSpec(attrs);
    if (!spec) return;
    const errs: string[] = [];
    const notSupported = (field: string, value: unknown): string =>
      admissionForbidden(attrs, fieldErrorString({ type: 'FieldValueNotSupported', field, value: value ?? '', supported: ['Always'] })).message;
    for (const { container, path } of allContainers(spec)) {
      if (container.imagePullPolicy !== 'Always') errs.push(notSupported(`${path}.imagePullPolicy`, container.imagePullPolicy));
    }
    listOf(spec.volumes).forEach((v, i) => {
      if (isRecord(v.image) && v.image.pullPolicy !== 'Always') errs.push(notSupported(`spec.volumes[${i}].image.pullPolicy`, v.image.pullPolicy));
    });
    // kube returns an aggregate of Forbidden errors, which the handler answers as a plain error.
    if (errs.length > 0) throw plainAdmissionError(aggregateMessage(errs));
  }

  /** The pod's spec, or undefined when the plugin ignores the request (shouldIgnore). */
  private podSpec(attrs: AdmissionAttributes): PodSpec | undefined {
    if (attrs.subresource || attrs.resource.group !== '' || attrs.resource.name !== 'pods') return undefined;
    if (!isRecord(attrs.object)) throw badRequest('Resource was marked with kind Pod but was unable to be converted');
    const spec = podSpecOf(attrs.object);
    if (attrs.operation === 'UPDATE' && isRecord(attrs.oldObject) && !hasNewImage(spec, podSpecOf(attrs.oldObject))) return undefined;
    return spec;
  }
}

function hasNewImage(spec: PodSpec, old: PodSpec): boolean {
  const oldImages = new Set(allContainers(old).map(({ container }) => container.image));
  return allContainers(spec).some(({ container }) => !oldImages.has(container.image));
}
