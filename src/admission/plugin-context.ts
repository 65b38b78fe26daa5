import type { ApiCatalog } from '../api/catalog.js';
import type { Authorizer } from '../authz/authorizer.js';
import type { ApiClient } from '../machinery/client.js';
import type { FeatureGates } from '../machinery/feature-gates.js';
import type { Logger } from '../machinery/logger.js';
import type { ObjectLookup } from '../registry/object-lookup.js';
import type { Registry } from '../registry/registry.js';
import type { AdmissionPlugin } from './admission.js';
import type { AdmissionMetrics } from './metrics.js';

/**
 * What a built-in admission plugin is built from (kube's plugin initializers:
 * informers, the loopback client, the authorizer, feature gates, and the
 * plugin's own section of --admission-control-config-file).
 */
export interface AdmissionPluginContext {
  /** Reads through the watch caches: `registry.storeFor(catalog.resource(...))`, and informers (registry/informer.ts) over them. */
  readonly registry: Registry;
  readonly catalog: ApiCatalog;
  /** One object of a served resource through its watch cache (registry/object-lookup.ts); undefined when it does not exist. */
  lookup(group: string, version: string, resource: string): ObjectLookup;
  /** The server's loopback client (user system:apiserver); `component` starts its User-Agent. */
  client(component: string): ApiClient;
  /** The server's authorizer chain (policies' `authorizer` variable, OwnerReferencesPermissionEnforcement). */
  readonly authorizer: Authorizer;
  readonly featureGates: FeatureGates;
  readonly logger: Logger;
  /**
   * The plugin's configuration from --admission-control-config-file: the
   * decoded `configuration` object of its entry (or the contents of the file
   * its `path` names), undefined when the file has no entry for it.
   */
  readonly configuration: unknown;
  /** DefaultTolerationSeconds's flags (--default-not-ready-toleration-seconds, --default-unreachable-toleration-seconds); 300 each when absent. */
  readonly defaultTolerationSeconds?: { notReady: number; unreachable: number };
  /** --enable-aggregator-routing: services (webhooks') are reached at an endpoint rather than their cluster IP. */
  readonly enableAggregatorRouting?: boolean;
  /** Aborted when the server stops: plugins end their informers and timers. */
  readonly shutdown: AbortSignal;
  /** The server's admission metrics (the webhooks write theirs there); absent in plugin unit tests. */
  readonly metrics?: AdmissionMetrics;
}

/** Builds one plugin; throws an Error whose message says what is wrong with its configuration. */
export type AdmissionPluginFactory = (ctx: AdmissionPluginContext) => AdmissionPlugin;
