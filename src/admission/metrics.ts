import { HistogramVec } from '../machinery/histogram.js';
import type { AdmissionOperation } from './admission.js';
import { WebhookMetrics } from './webhook/metrics.js';

/** kube's admission latency buckets: 5 ms to 2.5 s (k8s.io/apiserver/pkg/admission/metrics). */
const ADMISSION_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];

/** The phase a latency belongs to: kube's `type` label. */
export type AdmissionStepType = 'admit' | 'validate';

/**
 * kube-apiserver's two STABLE admission latency histograms, per server: the
 * whole mutating or validating phase (WithStepMetrics) and each named
 * plugin's part in it (WithControllerMetrics). observability/metrics.ts
 * renders them.
 */
export class AdmissionMetrics {
  /** The admission webhooks' `apiserver_admission_webhook_*` families, per server. */
  readonly webhooks = new WebhookMetrics();

  readonly step = new HistogramVec(
    'apiserver_admission_step_admission_duration_seconds',
    '[STABLE] Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).',
    ['operation', 'rejected', 'type'],
    ADMISSION_BUCKETS,
  );

  readonly controller = new HistogramVec(
    'apiserver_admission_controller_admission_duration_seconds',
    '[STABLE] Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
    ['name', 'operation', 'rejected', 'type'],
    ADMISSION_BUCKETS,
  );

  observeStep(type: AdmissionStepType, operation: AdmissionOperation, rejected: boolean, seconds: number): void {
    this.step.observe([operation, rejected ? 'true' : 'false', type], seconds);
  }

  observeController(name: string, type: AdmissionStepType, operation: AdmissionOperation, rejected: boolean, seconds: number): void {
    this.controller.observe([name, operation, rejected ? 'true' : 'false', type], seconds);
  }
}
