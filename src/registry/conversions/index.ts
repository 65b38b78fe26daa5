/**
 * Registers kube-apiserver's conversions for the served versions whose schema
 * differs from their storage version. Import once, for its side effects,
 * before serving requests.
 *
 * Checked against the 1.36 catalog (test/unit/conversions.test.ts compares
 * every served version's schema with its storage version's): these are the
 * only ones that differ. The others whose group/version/kind differs from
 * storage share its schema (admissionregistration.k8s.io MutatingAdmissionPolicy
 * v1 and v1alpha1 stored as v1beta1, resource.k8s.io v1beta2 and DeviceClass
 * v1beta1 stored as v1, ...), so the apiVersion/kind rewrite in convert.ts is
 * already what kube does.
 */
import { registerConversion } from '../convert.js';
import { coreToEventsV1, eventsV1ToCore } from './events.js';
import { hpaV1ToV2, hpaV2ToV1 } from './hpa.js';
import { RESOURCE_CLAIM_TEMPLATE_V1BETA1, RESOURCE_CLAIM_V1BETA1, RESOURCE_SLICE_V1BETA1 } from './resource.js';

registerConversion({ group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' }, { toStorage: hpaV1ToV2, fromStorage: hpaV2ToV1 });
registerConversion({ group: 'events.k8s.io', version: 'v1', kind: 'Event' }, { toStorage: eventsV1ToCore, fromStorage: coreToEventsV1 });
registerConversion({ group: 'resource.k8s.io', version: 'v1beta1', kind: 'ResourceClaim' }, RESOURCE_CLAIM_V1BETA1);
registerConversion({ group: 'resource.k8s.io', version: 'v1beta1', kind: 'ResourceClaimTemplate' }, RESOURCE_CLAIM_TEMPLATE_V1BETA1);
registerConversion({ group: 'resource.k8s.io', version: 'v1beta1', kind: 'ResourceSlice' }, RESOURCE_SLICE_V1BETA1);
