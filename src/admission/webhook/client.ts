import { WebhookMetrics } from './metrics.js';
import type { ServiceResolver } from '../../registry/service-routing.js';
import { WebhookClients as HttpsWebhookClients } from '../../registry/webhook-client.js';

export { CallFailure, type Answer } from '../../registry/webhook-client.js';

/** The admission webhooks' HTTPS client (registry/webhook-client.ts) with the server's admission webhook metrics beside it. */
export class WebhookClients extends HttpsWebhookClients {
  constructor(
    services: ServiceResolver,
    /** Where the calls are counted (the server's AdmissionMetrics.webhooks). */
    readonly metrics: WebhookMetrics = new WebhookMetrics(),
  ) {
    super(services);
  }
}
