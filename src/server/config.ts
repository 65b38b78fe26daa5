import type { FeatureGates } from '../machinery/feature-gates.js';
import type { AuthnExtensionOptions } from './authn-flags.js';
import type { TokenAuthnConfig } from './token-authn-options.js';
import type { CsrSigningConfig } from './csr-signing-options.js';

/** Everything `capstan serve` can be told, after flags and defaults. */
export interface ServerConfig {
  securePort: number;
  bindAddress: string;
  /** Where the embedded store, generated certificates and the admin kubeconfig live; without it nothing is written to disk. */
  dataDir?: string;
  /** Generated certificates are kept here and reused (default <dataDir>/pki); without it they live in memory. */
  certDir?: string;
  tlsCertFile?: string;
  /** --proxy-client-cert-file / --proxy-client-key-file: the client certificate shown to extension API servers (API aggregation). */
  proxyClient?: { certFile: string; keyFile: string };
  tlsPrivateKeyFile?: string;
  clientCaFile?: string;
  storageBackend: 'sqlite' | 'memory' | 'etcd3';
  /** --etcd-servers: client URLs of the etcd cluster (etcd3 backend). */
  etcdServers: string[];
  /** --etcd-prefix: root of every storage key (all backends). */
  etcdPrefix: string;
  etcdCaFile?: string;
  etcdCertFile?: string;
  etcdKeyFile?: string;
  /** Milliseconds between etcd compactions (0: none); each keeps one interval of history. */
  etcdCompactionInterval: number;
  sqliteSynchronous: 'NORMAL' | 'FULL';
  runtimeConfig: string[];
  /** Where the admin kubeconfig is written (default <dataDir>/admin.kubeconfig); without it none is. */
  adminKubeconfig?: string;
  /** Milliseconds. */
  livezGracePeriod: number;
  /** Milliseconds /readyz reports failure before shutdown proceeds. */
  shutdownDelay: number;
  /** Milliseconds of store history kept for watches (compaction keeps at least this). */
  watchHistory: number;
  /** Events each resource's watch cache keeps at most. */
  watchCacheCapacity: number;
  /** --max-watch-buffered-bytes: bytes held for all watchers together; absent: a quarter of the heap limit. */
  maxWatchBufferedBytes?: number;
  /** --service-cluster-ip-range (IPv4 CIDR). */
  serviceClusterIpRange: string;
  /** --service-node-port-range (`first-last`). */
  serviceNodePortRange: string;
  /** --leader-elect: run leader-only work (controllers, compaction) only while holding the leader Lease. */
  leaderElect: boolean;
  /** Milliseconds: --leader-elect-lease-duration, --leader-elect-renew-deadline, --leader-elect-retry-period. */
  leaderElectLeaseDuration: number;
  leaderElectRenewDeadline: number;
  leaderElectRetryPeriod: number;
  /** Milliseconds (--request-timeout): the longest a request's body may take to arrive; 0: no bound. */
  requestTimeout: number;
  /**
   * Seconds (--min-request-timeout): a watch without timeoutSeconds ends after a random time in
   * [this, twice this); 0: such a watch ends at once, as kube's context of zero timeout does.
   */
  minRequestTimeout: number;
  /** --max-requests-inflight: get/list requests served at once (watches not counted); 0: no limit. */
  maxRequestsInflight: number;
  /** --max-mutating-requests-inflight: other requests served at once; 0: no limit. */
  maxMutatingRequestsInflight: number;
  verbosity: number;
  /**
   * --authorization-mode: the authorizers after system:masters, in order.
   * Absent (embedders' default): authenticated users may do everything and
   * anonymous ones what system:public-info-viewer grants (authz/interim.ts).
   */
  authorizationModes?: string[];
  /** --authorization-policy-file: ABAC's policies (mode ABAC). */
  authorizationPolicyFile?: string;
  /** --authorization-webhook-*: the Webhook mode's endpoint (a kubeconfig file), SubjectAccessReview version and cache TTLs (ms). */
  authorizationWebhook?: { configFile: string; version: 'v1' | 'v1beta1'; authorizedTtl: number; unauthorizedTtl: number };
  /** --authorization-config: an AuthorizationConfiguration file naming the chain instead (reloaded on change). */
  authorizationConfigFile?: string;
  /**
   * --enable-admission-plugins / --disable-admission-plugins (kube names; the
   * order is always kube's) and --admission-control-config-file. Absent: the
   * default-on set Capstan has built, with NodeRestriction when the Node
   * authorizer is configured (server/admission-setup.ts).
   */
  admission?: { enablePlugins?: string[]; disablePlugins?: string[]; configFile?: string };
  /** --default-not-ready-toleration-seconds / --default-unreachable-toleration-seconds (DefaultTolerationSeconds; 300 each when absent). */
  defaultTolerationSeconds?: { notReady: number; unreachable: number };
  /** --enable-aggregator-routing: Services behind APIServices and admission webhooks are reached at a ready EndpointSlice endpoint (default) rather than their cluster IP. */
  enableAggregatorRouting: boolean;
  /** --controllers: kube-controller-manager's syntax (controllers/controller-names.ts); absent: `*`. */
  controllers?: string[];
  /** Milliseconds: --legacy-service-account-token-clean-up-period (absent: one year). */
  legacyServiceAccountTokenCleanUpPeriod?: number;
  /** --cluster-signing-*: the CAs and duration of certificatesigningrequest-signing-controller (absent: the generated CA, a year). */
  csrSigning?: CsrSigningConfig;
  /** Milliseconds between the legacy token cleaner's sweeps (kube: a day, no flag; embedders and tests shorten it). */
  legacyServiceAccountTokenCleanerSyncInterval?: number;
  /** --feature-gates, over the defaults. */
  featureGates: FeatureGates;
  /** --anonymous-auth: requests no authenticator has an opinion on are system:anonymous. */
  anonymousAuth: boolean;
  /** Static, bootstrap and service account tokens (token-authn-options.ts). */
  tokenAuthn: TokenAuthnConfig;
  /** The authenticating proxy, OIDC / --authentication-config and token webhook flags (authn-flags.ts). */
  authnExtensions?: AuthnExtensionOptions;
}
