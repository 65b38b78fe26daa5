/**
 * Registers kube-apiserver's conversions for the served versions whose schema
 * differs from their storage version. Import once, for its side effects,
 * before serving requests.
 *
 * Checked against the 1.36 catalog: the only versions served by default whose
 * group/version/kind differs from storage are these two and
 * admissionregistration.k8s.io/v1 MutatingAdmissionPolicy(Binding) (stored as
 * v1beta1), whose schemas are identical, so the default apiVersion/kind
 * rewrite in convert.ts is already what kube does.
 */
import { registerConversion } from '../convert.js';
import { coreToEventsV1, eventsV1ToCore } from './events.js';
import { hpaV1ToV2, hpaV2ToV1 } from './hpa.js';

registerConversion({ group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' }, { toStorage: hpaV1ToV2, fromStorage: hpaV2ToV1 });
registerConversion({ group: 'events.k8s.io', version: 'v1', kind: 'Event' }, { toStorage: eventsV1ToCore, fromStorage: coreToEventsV1 });
