import { createServer as createHttpsServer, type Server } from 'node:https';
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { setMaxListeners } from 'node:events';
import { mkdirSync, readFileSync } from 'node:fs';
import { DeprecatedApiRequests } from '../api/deprecated-api-requests.js';
import { KUBERNETES_MINOR } from './version.js';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { AdmissionChain, AdmissionPlugin } from '../admission/admission.js';
import { buildAdmissionChain } from './admission-setup.js';
import { AggregatedApis } from '../aggregator/aggregated-apis.js';
import { ApiServiceAvailability } from '../aggregator/availability.js';
import type { ProxyClientCertificate } from '../aggregator/extension-server.js';
import { AggregatorMetrics } from '../aggregator/metrics.js';
import { OpenApiAggregation } from '../aggregator/openapi-aggregation.js';
import { proxyToExtensionServer } from '../aggregator/proxy.js';
import { ApiServiceRegistration, AutoregisterCompletion } from '../aggregator/registration.js';
import { ServiceWatch } from '../registry/service-watch.js';
import { ClusterIpServiceResolver, EndpointServiceResolver, type ServiceResolver } from '../registry/service-routing.js';
import { ConversionWebhookMetrics } from '../registry/conversion-webhook.js';
import { WebhookClients } from '../registry/webhook-client.js';
import { AdmissionMetrics } from '../admission/metrics.js';
import { ApiCatalog } from '../api/catalog.js';
import type { ResourceInfo } from '../api/types.js';
import { UnionAuthenticator, type Authenticator } from '../authn/authenticator.js';
import { ClientCertAuthenticator } from '../authn/client-cert.js';
import { LoopbackAuthenticator } from '../authn/loopback.js';
import { BearerTokenAuthenticator, TokenUnion, type TokenAuthenticator } from '../authn/bearer-token.js';
import { cachedLookup } from '../registry/object-lookup.js';
import { tokenReviewer } from '../authn/token-review.js';
import { buildTokenAuthentication, type TokenAuthentication } from './token-authn.js';
import { LegacyTokenSecrets } from '../controllers/legacy-token-secrets.js';
import { ClusterAuthenticationTrust } from '../controllers/cluster-authentication-trust.js';
import type { Authorizer } from '../authz/authorizer.js';
import { AuthorizationSetup } from './authorization-setup.js';
import type { ApiClient } from '../machinery/client.js';
import type { ServerConfig } from './config.js';
import type { Controller, ControllerShared } from '../controllers/controller.js';
import { ValidatingAdmissionPolicyStatus, VAP_STATUS_CONTROLLER } from '../controllers/validating-admission-policy-status.js';
import { NamespaceDefaults } from '../controllers/namespace-defaults.js';
import { SystemPriorityClasses } from '../controllers/system-priority-classes.js';
import { NamespaceDeleter } from '../controllers/namespace-deleter.js';
import { ResourceQuotaController } from '../controllers/resource-quota.js';
import { SystemNamespaces } from '../controllers/system-namespaces.js';
import { KubernetesService } from '../controllers/kubernetes-service.js';
import { CrdFinalizer } from '../controllers/crd-finalizer.js';
import { CrdNaming } from '../controllers/crd-naming.js';
import { CrdServing } from '../controllers/crd-serving.js';
import { ClusterIpAllocator, NodePortAllocator } from '../registry/services/allocators.js';
import { parseCidr } from '../registry/services/cidr.js';
import { ServiceAllocation } from '../registry/services/service-store.js';
import { serveResource } from '../handlers/dispatch.js';
import { WatchStreams } from '../handlers/watch-streams.js';
import { HealthChecks } from '../observability/health.js';
import { Metrics } from '../observability/metrics.js';
import { PodSecurityPlugin } from '../admission/pod-security/plugin.js';
import { Registry } from '../registry/registry.js';
import { customResource, type ConversionWebhookCalls, type CustomResourceSpec } from '../registry/custom-descriptors.js';
import { DEFAULT_WATCH_CACHE_OPTIONS } from '../cache/watch-cache.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { KeyLayout } from '../storage/keys.js';
import { MemoryStore } from '../storage/memory.js';
import { SqliteStore } from '../storage/sqlite.js';
import type { Store } from '../storage/store.js';
import { Compactor } from '../storage/compactor.js';
import { apiLeases, LeaderElector } from '../controllers/leader-election.js';
import { LeaderGatedController, runWhileLeading } from '../controllers/leader-gated.js';
import { GarbageCollector } from '../controllers/garbage-collector/garbage-collector.js';
import { CLUSTERROLE_AGGREGATION, DEFAULT_CONTROLLERS, GARBAGE_COLLECTOR, isControllerEnabled, NAMESPACE, ROOT_CA_PUBLISHER, SERVICE_ACCOUNT, SERVICE_ACCOUNT_TOKEN, TOKEN_CLEANER, BOOTSTRAP_SIGNER, RESOURCE_QUOTA, LEGACY_SA_TOKEN_CLEANER, PVC_PROTECTION, PV_PROTECTION, CSR_SIGNING, CSR_CLEANER, ENDPOINTSLICE_MIRRORING } from '../controllers/controller-names.js';
import { PvcProtection, PvProtection } from '../controllers/volume-protection.js';
import { DEFAULT_CLEAN_UP_PERIOD_MS, LegacyTokenCleaner } from '../controllers/legacy-token-cleaner.js';
import { LegacyTokenTracking } from '../controllers/legacy-token-tracking.js';
import { BootstrapSigner } from '../controllers/bootstrap-signer.js';
import { TokenCleaner } from '../controllers/token-cleaner.js';
import { CsrSigning } from '../controllers/certificates/csr-signing.js';
import { CsrCleaner } from '../controllers/certificates/csr-cleaner.js';
import type { CaSource } from '../controllers/certificates/certificate-authority.js';
import { EndpointSliceMirroring } from '../controllers/endpointslice-mirroring/endpointslice-mirroring.js';
import { csrSigners, DEFAULT_CLUSTER_SIGNING_DURATION_MS } from './csr-signing-options.js';
import { WorkQueueMetrics } from '../registry/work-queue.js';
import { SharedInformers } from '../registry/informer.js';
// Registers the conversions of served versions whose schema differs from storage.
import '../registry/conversions/index.js';
import { RequestContext } from '../machinery/context.js';
import { stderrLogger, type Logger } from '../machinery/logger.js';
import { writeKubeconfig, type KubeconfigSpec } from './kubeconfig.js';
import { NonResourceRoutes, type OpenApiAggregationRoutes } from './non-resource.js';
import { joinHostPort } from '../machinery/host-port.js';
import { issuerDiscovery, type IssuerDiscovery } from '../authn/service-account-discovery.js';
import { ensurePki, type ServerPki } from './pki.js';
import { parseRequestInfo } from '../machinery/request-info.js';
import { writeError, writePanic } from '../http/respond.js';
import { ConnectionResponses } from './connections.js';
import { installLastResort, requestScopeIsCheap, runInRequest } from './last-resort.js';
import { requestTimeout } from './filters/timeout.js';
import { httpServerSettings } from './http-settings.js';
import { maxInFlight } from './filters/max-in-flight.js';
import { authentication } from './filters/authentication.js';
import { authorization } from './filters/authorization.js';
import { chain, type Handler } from './filters/chain.js';
import { impersonation } from './filters/impersonation.js';
import { LoopbackTransport } from './loopback.js';
import { defaultConfig } from './options.js';

/** One answered request, as ApiServerOptions.onRequest hears of it. */
export interface RequestRecord {
  /** kube's request verb (get, list, watch, create, update, patch, delete, deletecollection), or the HTTP method's for non-resource paths. */
  verb: string;
  method: string;
  path: string;
  /** The query string with its `?`, or ''. */
  query: string;
  /** The user the request ran as ('' when authentication failed). */
  user: string;
  status: number;
}

/**
 * What an embedder may hand the server; everything has a default, so
 * `new ApiServer()` is a working server on a free port with a memory store
 * that writes nothing to disk.
 */
export interface ApiServerOptions {
  /** Settings with kube-apiserver's flag names, over `defaultConfig()`. */
  config?: Partial<ServerConfig>;
  /** The storage; default: the one `config.storageBackend` names. A given store is not closed by `stop()`. */
  store?: Store;
  /** Serving certificate, client CA and admin credentials; default: generated (under config.certDir when set, else in memory). */
  pki?: ServerPki;
  /** Authenticators, asked in order; default: client certificates. Anonymous requests are system:anonymous unless `anonymousAuth` is false. */
  authenticators?: Authenticator[];
  /** Authenticators asked before `authenticators` (or the defaults), keeping those (capstan/testing's users). */
  extraAuthenticators?: Authenticator[];
  /** Hears of every request once answered (capstan/testing records them for assertions). */
  onRequest?: (record: RequestRecord) => void;
  anonymousAuth?: boolean;
  /** Authorizers, asked in order (the first Allow or Deny decides); default: `config.authorizationModes`, else the interim authorizer. */
  authorizers?: Authorizer[];
  /** Admission plugins run after the named ones (config.admission: kube's default-on set Capstan has built, --enable/--disable-admission-plugins). */
  admissionPlugins?: AdmissionPlugin[];
  /** Built-in plugins' configurations by plugin name (what --admission-control-config-file gives them), for embedders and tests. */
  admissionConfigurations?: ReadonlyMap<string, unknown>;
  /** More controllers, started once the server listens and stopped with it. */
  controllers?: Controller[];
  logger?: Logger;
  /**
   * Install process-wide handlers that log an exception or rejection escaping
   * a request's handling instead of letting it end the process
   * (server/last-resort.ts). `capstan serve` sets it; an embedder owns its
   * process (a test runner must still see its own uncaught errors), so the
   * default is off.
   */
  lastResort?: boolean;
  /**
   * With lastResort: answer the request an exception or rejection escaped
   * from at once (kube's panic answer, 500) instead of at --request-timeout,
   * by entering an AsyncLocalStorage around each request's handling. Default:
   * where that is cheap (Node 24+, server/last-resort.ts); on Node 20 it
   * costs a noticeable share of every request's CPU.
   */
  attributeEscapes?: boolean;
  /** Time to receive a request's headers; default kube's 32 s (server/http-settings.ts). Tests shorten it. */
  readHeaderTimeoutMs?: number;
}

/**
 * One Capstan API server: storage, registry, controllers and the HTTPS
 * listener, wired together. `start()` returns once it serves; `stop()` drains.
 * Instances share no state, so several can run in one process.
 */
export class ApiServer {
  readonly config: ServerConfig;
  readonly catalog: ApiCatalog;
  readonly health = new HealthChecks();
  readonly logger: Logger;
  private store!: Store;
  registry!: Registry;
  private admission!: AdmissionChain;
  /** kube's admission step and controller latency histograms, on /metrics. */
  private readonly admissionMetrics = new AdmissionMetrics();
  private readonly conversionMetrics = new ConversionWebhookMetrics();
  /** CRD conversion webhooks' calls (built with the service routing, in start()). */
  private conversionCalls: ConversionWebhookCalls | undefined;
  private server: Server | undefined;
  pki!: ServerPki;
  private readonly controllers: Controller[] = [];
  /** Every controller queue's figures (workqueue_* metrics). */
  private readonly workQueueMetrics = new WorkQueueMetrics();
  /** Informers and metrics shared by the controllers. */
  private readonly controllerShared: ControllerShared = { informers: new SharedInformers().follow, metrics: this.workQueueMetrics };
  private readonly shutdownController = new AbortController();
  readonly watchStreams: WatchStreams;
  /** Requests to deprecated API versions (apiserver_requested_deprecated_apis). */
  private readonly deprecatedApis = new DeprecatedApiRequests({ major: 1, minor: Number(KUBERNETES_MINOR) });
  private systemNamespaces!: SystemNamespaces;
  private systemPriorityClasses: SystemPriorityClasses | undefined;
  private stopCompactor: (() => void) | undefined;
  /** Set when several processes may share the store (etcd3 with --leader-elect). */
  private elector: LeaderElector | undefined;
  private routes!: NonResourceRoutes;
  private readonly handler: Handler;
  /** Gate CBORServingAndStorage, copied into each request's RequestContext.cbor. */
  private get cborServing(): boolean {
    return this.config.featureGates.enabled('CBORServingAndStorage');
  }
  private readonly authorizer: Authorizer;
  /** The authorizer chain and what its authorizers need (server/authorization-setup.ts). */
  private readonly authz: AuthorizationSetup;
  private readonly loopbackAuthenticator = new LoopbackAuthenticator();
  /** The authenticating proxy and every token authenticator the flags configure; built in start() (keys may be generated into the data dir). */
  private tokenAuthn: TokenAuthentication | undefined;
  /** Every token authenticator, asked in turn (bearer tokens and TokenReview). */
  private readonly tokens: TokenAuthenticator = { authenticateToken: (token, audiences) => this.tokenUnion.authenticateToken(token, audiences) };
  private tokenUnion = new TokenUnion([]);
  private readonly reviewToken = tokenReviewer(this.tokens);
  /** The server's own requests into its handler chain (kube's loopback client), in memory. */
  private readonly loopback: LoopbackTransport;
  private shuttingDown = false;
  /** The APIServices' routing table and discovery (kube-aggregator), on every process. */
  private aggregatedApis: AggregatedApis | undefined;
  /** The extension servers' OpenAPI documents, on every process. */
  private openApiAggregation: OpenApiAggregation | undefined;
  private readonly aggregatorMetrics = new AggregatorMetrics();
  private proxyClient: ProxyClientCertificate | undefined;
  private readonly connections = new ConnectionResponses();
  private uninstallLastResort: (() => void) | undefined;
  /** Requests run inside last-resort.ts's request scope (options.attributeEscapes). */
  private attributeEscapes = false;
  private synced = false;
  /** Resolves once every controller's informers have their initial state. */
  controllersSynced: Promise<void> = Promise.resolve();
  /** Resolves once every built-in group-version's APIService exists and is Available (kube's autoregister-completion; the leader writes them). */
  autoregistered: Promise<void> = Promise.resolve();
  private readonly startedAt = Date.now();
  /** https://host:port once listening. */
  url = '';
  port = 0;

  constructor(private readonly options: ApiServerOptions = {}) {
    this.config = defaultConfig(options.config);
    // Every admission plugin, informer and watch stops on this one signal: more than Node's default of 10 listeners is expected.
    setMaxListeners(0, this.shutdownController.signal);
    this.logger = options.logger ?? stderrLogger(this.config.verbosity);
    this.catalog = ApiCatalog.load({ runtimeConfig: this.config.runtimeConfig });
    // As kube-apiserver: system:masters (the loopback client's group) is allowed before any other authorizer is asked.
    this.authz = new AuthorizationSetup(this.config, options.authorizers, this.logger);
    this.authorizer = this.authz.authorizer;
    this.watchStreams = new WatchStreams({ maxBufferedBytes: this.config.maxWatchBufferedBytes ?? 0, shutdown: this.shutdownController.signal, minRequestTimeout: this.config.minRequestTimeout });
    this.handler = this.buildHandler();
    this.loopback = new LoopbackTransport((req, res) => this.handle(req, res), this.loopbackAuthenticator.token);
  }

  async start(): Promise<void> {
    const cfg = this.config;
    if (this.options.lastResort) {
      this.uninstallLastResort = installLastResort(this.logger);
      this.attributeEscapes = this.options.attributeEscapes ?? requestScopeIsCheap();
    }
    if (cfg.dataDir !== undefined) mkdirSync(cfg.dataDir, { recursive: true });
    this.pki =
      this.options.pki ??
      (await ensurePki({
        ...(cfg.certDir !== undefined ? { certDir: cfg.certDir } : {}),
        servingNames: cfg.bindAddress && cfg.bindAddress !== '0.0.0.0' && cfg.bindAddress !== '::' ? [cfg.bindAddress] : [],
        ...(cfg.tlsCertFile ? { tlsCertFile: cfg.tlsCertFile } : {}),
        ...(cfg.tlsPrivateKeyFile ? { tlsPrivateKeyFile: cfg.tlsPrivateKeyFile } : {}),
        ...(cfg.clientCaFile ? { clientCaFile: cfg.clientCaFile } : {}),
        adminUser: 'capstan-admin',
        adminGroups: ['system:masters'],
      }));
    this.store = this.options.store ?? (await openStore(cfg));
    this.registry = new Registry(this.store, new KeyLayout({ root: cfg.etcdPrefix }), { ...DEFAULT_WATCH_CACHE_OPTIONS, historyMs: cfg.watchHistory, capacity: cfg.watchCacheCapacity }, cfg.featureGates, this.catalog);
    this.buildTokenAuthentication();
    const nsInfo = this.catalog.resource('', 'v1', 'namespaces')!;
    const namespaces = this.registry.storeFor(nsInfo);
    const admission = buildAdmissionChain(
      cfg.admission,
      {
        registry: this.registry,
        catalog: this.catalog,
        lookup: (group, version, resource) => cachedLookup(() => this.registry.storeFor(this.catalog.resource(group, version, resource)!)),
        client: (component) => this.client(component),
        authorizer: this.authorizer,
        featureGates: cfg.featureGates,
        logger: this.logger,
        ...(cfg.defaultTolerationSeconds ? { defaultTolerationSeconds: cfg.defaultTolerationSeconds } : {}),
        enableAggregatorRouting: cfg.enableAggregatorRouting ?? false,
        shutdown: this.shutdownController.signal,
        metrics: this.admissionMetrics,
      },
      [...this.authz.admissionPlugins(), ...(this.options.admissionPlugins ?? [])],
      { nodeAuthorizer: this.authz.nodeAuthorizer, metrics: this.admissionMetrics, ...(this.options.admissionConfigurations ? { configurations: this.options.admissionConfigurations } : {}) },
    );
    this.admission = admission.chain;
    await Promise.all(admission.plugins.map((p) => p.start?.()));
    await this.authz.start(this.registry, this.catalog);

    // Every process creates missing system namespaces (as every kube-apiserver does); the election's Lease lives in one.
    this.systemNamespaces = new SystemNamespaces(namespaces, this.client('kube-apiserver'));
    await this.systemNamespaces.start();
    this.controllers.push(this.systemNamespaces);
    // kube's scheduling/bootstrap-system-priority-classes hook, on every process.
    const priorityClasses = this.catalog.resource('scheduling.k8s.io', 'v1', 'priorityclasses');
    if (priorityClasses) {
      this.systemPriorityClasses = new SystemPriorityClasses(this.registry.storeFor(priorityClasses), this.client('kube-apiserver'));
      await this.systemPriorityClasses.start();
      this.controllers.push(this.systemPriorityClasses);
    }
    this.elector = this.leaderElector();
    this.elector?.start();
    this.authz.startBootstrap(this.client('kube-apiserver'));
    const core = (name: string): ResourceStore => this.registry.storeFor(this.catalog.resource('', 'v1', name)!);
    const networking = (name: string): ResourceStore => this.registry.storeFor(this.catalog.knownResource('networking.k8s.io', 'v1', name)!);
    const allocation = this.registry.descriptorFor(this.catalog.resource('', 'v1', 'services')!).hooks;
    if (allocation instanceof ServiceAllocation) {
      allocation.setAllocators({
        clusterIps: new ClusterIpAllocator(cfg.serviceClusterIpRange, networking('ipaddresses')),
        nodePorts: new NodePortAllocator(cfg.serviceNodePortRange, this.store),
      });
    }
    // kube-controller-manager's controllers write as it does (its User-Agent names their manager).
    const controllerManager = this.client('kube-controller-manager');
    const content = (): ResourceInfo[] => this.registry.namespacedResources(this.catalog.allResources().filter((r) => r.isObject && r.verbs.includes('list') && r.verbs.includes('delete')));
    const shared = this.controllerShared;
    if (this.controllerEnabled(NAMESPACE)) {
      this.controllers.push(this.leaderOnly('namespace-deleter', () => new NamespaceDeleter(namespaces, controllerManager, () => content().map((r) => ({ group: r.group, version: r.version, resource: r.name })), shared)));
    }
    if (this.tokenAuthn && this.controllerEnabled(SERVICE_ACCOUNT_TOKEN)) {
      const issuer = this.tokenAuthn.issuer;
      const caPem = this.pki.servingCa ?? this.pki.serving.cert;
      this.controllers.push(this.leaderOnly('legacy-token-secrets', () => new LegacyTokenSecrets(core('secrets'), core('serviceaccounts'), controllerManager, issuer, caPem, shared)));
    }
    if (this.controllerEnabled(LEGACY_SA_TOKEN_CLEANER)) {
      const opts = {
        cleanUpPeriodMs: cfg.legacyServiceAccountTokenCleanUpPeriod ?? DEFAULT_CLEAN_UP_PERIOD_MS,
        ...(cfg.legacyServiceAccountTokenCleanerSyncInterval ? { syncIntervalMs: cfg.legacyServiceAccountTokenCleanerSyncInterval } : {}),
        log: (m: string) => this.logger.info(m),
      };
      this.controllers.push(this.leaderOnly('legacy-token-cleaner', () => new LegacyTokenCleaner({ secrets: core('secrets'), serviceAccounts: core('serviceaccounts'), pods: core('pods') }, controllerManager, opts, shared)));
    }
    // StorageObjectInUseProtection's finalizers come off unused claims and volumes (kube-controller-manager's protection controllers).
    if (this.controllerEnabled(PVC_PROTECTION)) this.controllers.push(this.leaderOnly('pvc-protection', () => new PvcProtection(core('persistentvolumeclaims'), core('pods'), controllerManager, shared)));
    if (this.controllerEnabled(PV_PROTECTION)) this.controllers.push(this.leaderOnly('pv-protection', () => new PvProtection(core('persistentvolumes'), controllerManager, shared)));
    if (this.controllerEnabled(TOKEN_CLEANER)) this.controllers.push(this.leaderOnly('token-cleaner', () => new TokenCleaner(core('secrets'), controllerManager, shared)));
    // One controller does both kube's serviceaccount and root-ca-certificate-publisher work.
    if (this.controllerEnabled(SERVICE_ACCOUNT) || this.controllerEnabled(ROOT_CA_PUBLISHER)) {
      this.controllers.push(this.leaderOnly('namespace-defaults', () => new NamespaceDefaults(namespaces, core('serviceaccounts'), core('configmaps'), controllerManager, this.pki.servingCa ?? this.pki.serving.cert, shared, { serviceAccount: this.controllerEnabled(SERVICE_ACCOUNT), rootCaPublisher: this.controllerEnabled(ROOT_CA_PUBLISHER) })));
    }
    if (this.controllerEnabled(RESOURCE_QUOTA)) this.controllers.push(this.leaderOnly('resourcequota-controller', () => new ResourceQuotaController({ registry: this.registry, catalog: this.catalog, client: controllerManager })));
    const csrInfo = this.catalog.resource('certificates.k8s.io', 'v1', 'certificatesigningrequests');
    if (csrInfo) {
      const csrs = this.registry.storeFor(csrInfo);
      const generatedCa = this.pki.ca && { pem: this.pki.ca, name: cfg.certDir !== undefined ? join(cfg.certDir, 'ca.crt') : 'generated CA' };
      const signers = this.controllerEnabled(CSR_SIGNING) ? await csrSigners(cfg.csrSigning, generatedCa, (m) => this.logger.info(m)) : new Map<string, CaSource>();
      if (signers.size > 0) {
        const opts = { signers, durationMs: cfg.csrSigning?.durationMs ?? DEFAULT_CLUSTER_SIGNING_DURATION_MS, log: (m: string) => this.logger.error(m) };
        this.controllers.push(this.leaderOnly('csr-signing', () => new CsrSigning(csrs, controllerManager, opts, shared)));
      }
      if (this.controllerEnabled(CSR_CLEANER)) this.controllers.push(this.leaderOnly('csr-cleaner', () => new CsrCleaner(csrs, controllerManager, shared, (m) => this.logger.info(m))));
    }
    const endpointSlicesInfo = this.catalog.resource('discovery.k8s.io', 'v1', 'endpointslices');
    if (endpointSlicesInfo && this.controllerEnabled(ENDPOINTSLICE_MIRRORING)) {
      const stores = { endpoints: core('endpoints'), endpointSlices: this.registry.storeFor(endpointSlicesInfo), services: core('services') };
      this.controllers.push(this.leaderOnly('endpointslice-mirroring', () => new EndpointSliceMirroring(stores, controllerManager, shared, (m) => this.logger.v(2) && this.logger.info(m))));
    }
    const policies = this.registry.storeFor(this.catalog.knownResource('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies')!);
    if (this.controllerEnabled(VAP_STATUS_CONTROLLER)) this.controllers.push(this.leaderOnly(VAP_STATUS_CONTROLLER, () => new ValidatingAdmissionPolicyStatus(policies, this.catalog, controllerManager)));
    // etcd keeps one --etcd-compaction-interval of history (kube-apiserver's
    // compactor); the embedded stores keep the watch cache's window.
    const compactor = new Compactor(this.store, cfg.storageBackend === 'etcd3' ? cfg.etcdCompactionInterval : cfg.watchHistory);
    if (this.elector) this.stopCompactor = runWhileLeading(this.elector, () => compactor);
    else {
      compactor.start();
      this.stopCompactor = () => compactor.stop();
    }

    await this.authz.bootstrapped();
    this.registerHealthChecks();
    this.tokenAuthn?.start();
    await this.listen();
    this.controllers.push(...(this.options.controllers ?? []));
    // Every process serves the stored CRDs; their status and cleanup are the leader's (apiextensions-apiserver's controllers).
    const crds = this.registry.storeFor(this.catalog.knownResource('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!);
    this.conversionCalls = { clients: new WebhookClients(this.serviceRouting()), observer: this.conversionMetrics };
    this.controllers.push(new CrdServing(crds, this.registry, this.logger, this.controllerShared, this.conversionCalls));
    this.controllers.push(this.leaderOnly('crd-naming', () => new CrdNaming(crds, this.client('kube-apiserver'), (group, plural) => this.registry.isAdded(group, plural))));
    this.controllers.push(this.leaderOnly('crd-finalizer', () => new CrdFinalizer(crds, this.client('kube-apiserver'), this.controllerShared)));
    this.startAggregation(crds);
    this.controllers.push(
      ...this.authz.controllers(this.registry, this.catalog, (c) => this.client(c), (name, create) => this.leaderOnly(name, create), this.controllerShared).filter(() => this.controllerEnabled(CLUSTERROLE_AGGREGATION)),
    );
    if (this.controllerEnabled(GARBAGE_COLLECTOR)) {
      const collectable = (): Array<{ info: ResourceInfo; store: ResourceStore }> => {
        const byStore = new Map<string, { info: ResourceInfo; store: ResourceStore }>();
        for (const info of this.catalog.allResources()) {
          if (!info.isObject || !['list', 'watch', 'delete'].every((v) => info.verbs.includes(v))) continue;
          const store = this.registry.storeFor(info);
          if (!byStore.has(store.desc.prefix)) byStore.set(store.desc.prefix, { info, store });
        }
        return [...byStore.values()];
      };
      this.controllers.push(this.leaderOnly('garbage-collector', () => new GarbageCollector(this.catalog, collectable, controllerManager, this.controllerShared, (m) => this.logger.v(2) && this.logger.info(m))));
    }
    // Every kube-apiserver keeps the legacy token tracking ConfigMap (its `since` gates the cleaner).
    this.controllers.push(new LegacyTokenTracking(core('configmaps'), this.client('kube-apiserver'), this.controllerShared));
    // Every server publishes its part of how clients and front proxies are trusted (kube-system/extension-apiserver-authentication).
    const requestHeader = this.tokenAuthn?.requestHeaderInfo;
    this.controllers.push(
      new ClusterAuthenticationTrust(
        this.client('kube-apiserver'),
        {
          ...(this.pki.clientCa ? { clientCa: this.pki.clientCa } : {}),
          ...(requestHeader ? { requestHeader: { ...requestHeader, clientCa: requestHeader.clientCaPem } } : {}),
        },
        (message) => this.logger.error(message),
      ),
    );
    this.controllers.push(
      this.leaderOnly('kubernetes-service', () => new KubernetesService(this.client('kube-apiserver'), {
        range: parseCidr(cfg.serviceClusterIpRange),
        advertiseAddress: cfg.bindAddress === '0.0.0.0' || cfg.bindAddress === '::' || cfg.bindAddress === '' ? '127.0.0.1' : cfg.bindAddress,
        securePort: this.port,
        serviceCidrs: this.catalog.resource('networking.k8s.io', 'v1', 'servicecidrs') !== undefined,
        endpointSlices: this.catalog.resource('discovery.k8s.io', 'v1', 'endpointslices') !== undefined,
      }, [core('services'), core('endpoints'), ...(['endpointslices', 'servicecidrs'] as const).flatMap((r) => {
        const info = r === 'endpointslices' ? this.catalog.resource('discovery.k8s.io', 'v1', r) : this.catalog.resource('networking.k8s.io', 'v1', r);
        return info ? [this.registry.storeFor(info)] : [];
      })], this.controllerShared)),
    );
    if (this.controllerEnabled(BOOTSTRAP_SIGNER)) {
      // cluster-info names this server as the admin kubeconfig does.
      const server = this.url.replace('0.0.0.0', '127.0.0.1').replace('[::]', '[::1]');
      const caPem = this.pki.servingCa ?? this.pki.serving.cert;
      this.controllers.push(this.leaderOnly('bootstrap-signer', () => new BootstrapSigner(core('secrets'), core('configmaps'), controllerManager, server, caPem, this.controllerShared)));
    }
    // Controllers sync once the server listens: requests are served meanwhile
    // (reads wait for their own cache) and /readyz reports informer-sync until done.
    // (A turn later: starting an informer loads its cache synchronously from SQLite.)
    this.controllersSynced = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => Promise.all(this.controllers.slice(1).map((c) => c.start())))
      .then(() => {
        this.synced = true;
      });
    // A stop() during start-up ends the loopback under the controllers' first writes: not a failure.
    this.controllersSynced.catch((err: unknown) => this.shuttingDown || this.logger.error(`controller start failed: ${(err as Error).message}`));
    const authnConfigMetrics = cfg.authnExtensions?.authenticationConfigFile ? this.tokenAuthn?.jwt?.metrics : undefined;
    this.routes = new NonResourceRoutes(this.catalog, this.health, new Metrics(this.registry, this.watchStreams, authnConfigMetrics, this.deprecatedApis, () => [...admission.plugins.flatMap((p) => (p instanceof PodSecurityPlugin ? p.counters() : [])), ...(this.tokenAuthn?.legacyTokenCounters.families() ?? []), this.aggregatorMetrics.unavailableCounter], this.admissionMetrics, this.workQueueMetrics, cfg.featureGates, [this.conversionMetrics.duration, ...this.authz.metrics.histograms()], this.authz.metrics.counters(), () => [this.aggregatorMetrics.unavailableGauge]), `${this.config.bindAddress}:${this.port}`, this.issuerDiscovery(), this.openApiRoutes());
    if (this.pki.admin && cfg.adminKubeconfig !== undefined) writeKubeconfig(cfg.adminKubeconfig, this.adminKubeconfig());
  }

  /**
   * kube-aggregator's part: the APIServices' routing table and discovery on
   * every process; the local APIServices (autoregister, crdregistration) and
   * every APIService's Available condition on the leader.
   */
  private startAggregation(crds: ResourceStore): void {
    const cfg = this.config;
    if (cfg.proxyClient) this.proxyClient = { cert: readFileSync(cfg.proxyClient.certFile, 'utf8'), key: readFileSync(cfg.proxyClient.keyFile, 'utf8') };
    const apiServices = this.registry.storeFor(this.catalog.knownResource('apiregistration.k8s.io', 'v1', 'apiservices')!);
    const services = this.registry.storeFor(this.catalog.resource('', 'v1', 'services')!);
    const endpointSlices = this.registry.storeFor(this.catalog.knownResource('discovery.k8s.io', 'v1', 'endpointslices')!);
    const proxyClient = this.proxyClient;
    const routing = this.serviceRouting();
    const openApi = new OpenApiAggregation(routing, proxyClient, this.logger);
    this.openApiAggregation = openApi;
    this.aggregatedApis = new AggregatedApis(apiServices, routing, this.catalog, proxyClient, this.logger, this.aggregatorMetrics, (name, remote) => openApi.apiServiceChanged(name, remote));
    this.controllers.push(this.aggregatedApis);
    this.controllers.push(openApi);
    const completion = new AutoregisterCompletion(apiServices, this.catalog, (group, resource) => this.registry.isAdded(group, resource));
    this.controllers.push(completion);
    this.health.add({ name: completion.name, endpoints: ['readyz', 'healthz'], check: () => completion.check() });
    this.autoregistered = completion.done;
    this.controllers.push(this.leaderOnly('apiservice-registration', () => new ApiServiceRegistration(apiServices, crds, this.catalog, (group, resource) => this.registry.isAdded(group, resource), this.client('kube-apiserver'))));
    this.controllers.push(
      this.leaderOnly('apiservice-availability', () => {
        const changed = { to: (_namespace: string, _name: string): void => undefined };
        const availability = new ApiServiceAvailability(apiServices, new ServiceWatch(services, endpointSlices, (ns, name) => changed.to(ns, name)), routing, this.client('kube-apiserver'), proxyClient, this.aggregatorMetrics);
        changed.to = (ns, name) => availability.serviceChanged(ns, name);
        return availability;
      }),
    );
  }

  /** The extension servers' OpenAPI documents in /openapi, and their own v3 documents proxied to them. */
  private openApiRoutes(): OpenApiAggregationRoutes | undefined {
    const openApi = this.openApiAggregation;
    const apis = this.aggregatedApis;
    if (!openApi || !apis) return undefined;
    return {
      documents: openApi,
      proxyV3: (ctx, key) => {
        const owner = openApi.v3Owner(key);
        return owner ? proxyToExtensionServer(ctx, owner, apis.resolver, this.proxyClient) : undefined;
      },
    };
  }

  /** Where calls to a Service go (APIServices, CRD conversion webhooks): kube's resolver for --enable-aggregator-routing. */
  private serviceRouting(): ServiceResolver {
    if (this.routing) return this.routing;
    const services = this.registry.storeFor(this.catalog.resource('', 'v1', 'services')!);
    const serviceLookup = cachedLookup(() => services);
    this.routing = this.config.enableAggregatorRouting
      ? new EndpointServiceResolver(serviceLookup, () => this.registry.storeFor(this.catalog.knownResource('discovery.k8s.io', 'v1', 'endpointslices')!))
      : new ClusterIpServiceResolver(serviceLookup);
    return this.routing;
  }

  private routing: ServiceResolver | undefined;

  /**
   * Serves a type defined at run time (registry/custom-descriptors.ts): from
   * the next request on it is in discovery and OpenAPI and can be written,
   * read and watched. Call after start().
   */
  addCustomResource(spec: CustomResourceSpec): void {
    const { descriptor, versions } = customResource(spec, this.registry.keyLayout, this.conversionCalls);
    this.registry.addResource(descriptor, versions);
  }

  /** Stops serving a type added with addCustomResource: it leaves discovery, its watches end, requests get 404. */
  removeCustomResource(group: string, plural: string): boolean {
    return this.registry.removeResource(group, plural);
  }

  /**
   * A client of this server's API for in-process code: requests take the
   * whole handler chain as user system:apiserver (kube's loopback client);
   * `component` starts its User-Agent, which names its writes' manager
   * unless a write gives a fieldManager. Usable once start() has built the
   * registry, before the listener opens; stop() ends its connections.
   */
  client(component: string): ApiClient {
    return this.loopback.client(component);
  }

  /** What the admin kubeconfig holds: this server's URL, CA and admin client certificate (when the server has one). */
  adminKubeconfig(): KubeconfigSpec & { clientCertPem: string; clientKeyPem: string } {
    if (!this.pki.admin) throw new Error('this server has no admin credentials (the client CA is not its own)');
    return {
      server: this.url.replace('0.0.0.0', '127.0.0.1').replace('[::]', '[::1]'),
      caPem: this.pki.servingCa,
      clientCertPem: this.pki.admin.cert,
      clientKeyPem: this.pki.admin.key,
      user: 'capstan-admin',
    };
  }

  /** kube's authenticators from the authentication flags (token-authn.ts); lookups through the watch caches. */
  private buildTokenAuthentication(): void {
    const core = (name: string) => cachedLookup(() => this.registry.storeFor(this.catalog.resource('', 'v1', name)!));
    this.tokenAuthn = buildTokenAuthentication(this.config.tokenAuthn, this.config.authnExtensions ?? {}, {
      keyDir: this.config.certDir,
      lookups: { serviceAccounts: core('serviceaccounts'), secrets: core('secrets'), pods: core('pods'), nodes: core('nodes') },
      logger: this.logger,
      apiServerId: `capstan-${randomUUID()}`,
      // kube-apiserver's own write (legacy token tracking), through the loopback as kube's secretsWriter.
      patchSecret: async (namespace, name, patch) => {
        await this.client('kube-apiserver').patch({ group: '', version: 'v1', resource: 'secrets', namespace, name }, 'merge', patch);
      },
    });
    this.tokenUnion = new TokenUnion(this.tokenAuthn.authenticators);
  }

  /** The issuer's discovery documents, when kube would serve them (an https issuer); else why not, logged. */
  private issuerDiscovery(): IssuerDiscovery | undefined {
    if (!this.tokenAuthn) return undefined;
    const cfg = this.config.tokenAuthn;
    const host = this.config.bindAddress === '0.0.0.0' || this.config.bindAddress === '::' || this.config.bindAddress === '' ? '127.0.0.1' : this.config.bindAddress;
    try {
      return issuerDiscovery(cfg.serviceAccountIssuers[0]!, cfg.serviceAccountJwksUri, joinHostPort(host, this.port), this.tokenAuthn.keys.verifying);
    } catch (err) {
      this.logger.error(`Failed to build the service account issuer's discovery documents; they will not be served: ${(err as Error).message}`);
      return undefined;
    }
  }

  /**
   * Leader election runs only on etcd3: the embedded stores hold one process
   * each, and waiting out a dead predecessor's Lease after a kill -9 would
   * only delay a restarted server's controllers.
   */
  private leaderElector(): LeaderElector | undefined {
    const cfg = this.config;
    if (!cfg.leaderElect || cfg.storageBackend !== 'etcd3') return undefined;
    return new LeaderElector({
      // kube-controller-manager's leader election: its Lease writes show that manager.
      leases: apiLeases(this.client('kube-controller-manager')),
      name: LEADER_LEASE_NAME,
      leaseDurationMs: cfg.leaderElectLeaseDuration,
      renewDeadlineMs: cfg.leaderElectRenewDeadline,
      retryPeriodMs: cfg.leaderElectRetryPeriod,
    });
  }

  /** Whether --controllers runs the kube-controller-manager controller `name`. */
  private controllerEnabled(name: string): boolean {
    return isControllerEnabled(this.config.controllers ?? DEFAULT_CONTROLLERS, name);
  }

  /** A controller that runs on the leader only (on every process when there is no election). */
  private leaderOnly(name: string, create: () => Controller): Controller {
    return this.elector ? new LeaderGatedController(this.elector, name, create) : create();
  }

  private registerHealthChecks(): void {
    // HealthChecks bounds every check (2 s), so a hung etcd fails it promptly.
    const storeCheck = async (): Promise<void> => {
      await this.store.currentRevision();
    };
    this.health.add({ name: 'ping', endpoints: ['livez', 'readyz', 'healthz'], check: () => undefined });
    this.health.add({ name: 'log', endpoints: ['livez', 'readyz', 'healthz'], check: () => undefined });
    // kube-apiserver names its storage check `etcd`; clients exclude it by that name.
    // Not in livez: a process is alive while its store is away, and restarting it would not help.
    this.health.add({ name: 'etcd', endpoints: ['readyz', 'healthz'], check: storeCheck });
    this.health.add({ name: 'etcd-readiness', endpoints: ['readyz'], check: storeCheck });
    const systemNamespacesDone = (): void => {
      if (!this.systemNamespaces.done) throw new Error('not finished');
    };
    this.health.add({ name: 'poststarthook/start-system-namespaces-controller', endpoints: ['readyz', 'healthz'], check: systemNamespacesDone });
    // --livez-grace-period: until it has passed since start, /livez takes unfinished post-start hooks as finishing.
    this.health.add({
      name: 'poststarthook/start-system-namespaces-controller',
      endpoints: ['livez'],
      check: () => {
        if (this.uptimeMs >= this.config.livezGracePeriod) systemNamespacesDone();
      },
    });
    const priorityClassBootstrap = this.systemPriorityClasses;
    if (priorityClassBootstrap) {
      this.health.add({
        name: 'poststarthook/scheduling/bootstrap-system-priority-classes',
        endpoints: ['readyz', 'healthz'],
        check: () => {
          if (!priorityClassBootstrap.done) throw new Error('not finished');
        },
      });
    }
    const rbacBootstrap = this.authz.bootstrap;
    if (rbacBootstrap) {
      this.health.add({
        name: 'poststarthook/rbac/bootstrap-roles',
        endpoints: ['readyz', 'healthz'],
        check: () => {
          if (!rbacBootstrap.done) throw new Error('not finished');
        },
      });
    }
    this.health.add({
      name: 'informer-sync',
      endpoints: ['readyz'],
      check: () => {
        if (!this.synced) throw new Error('informers not synced');
      },
    });
    this.health.add({
      name: 'shutdown',
      endpoints: ['readyz'],
      check: () => {
        if (this.shuttingDown) throw new Error('process is shutting down');
      },
    });
  }

  private listen(): Promise<void> {
    const cfg = this.config;
    const settings = httpServerSettings(cfg.requestTimeout, this.options.readHeaderTimeoutMs);
    const server = createHttpsServer(
      {
        connectionsCheckingInterval: settings.connectionsCheckingInterval,
        maxHeaderSize: settings.maxHeaderSize,
        key: this.pki.serving.key,
        cert: this.pki.serving.cert,
        ...(this.pki.clientCa ? { ca: this.pki.clientCa } : {}),
        requestCert: true,
        rejectUnauthorized: false,
        minVersion: 'TLSv1.2',
      },
      (req, res) => void this.handle(req, res),
    );
    // A request is complete once its body is, so watches, which have none, are never ended by requestTimeout.
    server.requestTimeout = settings.requestTimeout;
    server.headersTimeout = settings.headersTimeout;
    server.keepAliveTimeout = settings.keepAliveTimeout;
    server.on('clientError', this.connections.onClientError);
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.handleUpgrade(req, socket, head));
    server.on('secureConnection', raiseWriteHighWaterMark);
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.config.securePort, this.config.bindAddress, () => {
        server.off('error', reject);
        const addr = server.address() as AddressInfo;
        this.port = addr.port;
        const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
        this.url = `https://${host}:${addr.port}`;
        resolve();
      });
    });
  }

  /**
   * kube-apiserver's handler chain, outermost first: request info (the
   * RequestContext), the timeout for non-long-running requests,
   * authentication, impersonation, max-in-flight,
   * authorization, then the resource handlers or the non-resource routes.
   * Audit takes its place between these when it is built; panic recovery is
   * handle()'s.
   */
  private buildHandler(): Handler {
    // The loopback token first, as kube-apiserver wraps its authenticators.
    const apiAudiences = this.config.tokenAuthn.apiAudiences;
    // The authenticating proxy (built in start()) is asked before client certificates, as kube orders them.
    const requestHeader: Authenticator[] = this.config.authnExtensions?.requestHeader ? [{ authenticate: async (req) => this.tokenAuthn?.requestHeader?.authenticate(req) }] : [];
    const authenticator = new UnionAuthenticator([
      this.loopbackAuthenticator,
      ...requestHeader,
      ...(this.options.extraAuthenticators ?? []),
      ...(this.options.authenticators ?? [new ClientCertAuthenticator(), new BearerTokenAuthenticator(this.tokens, apiAudiences)]),
    ]);
    const anonymousFlag = this.options.anonymousAuth ?? this.config.anonymousAuth;
    // The configuration file's `anonymous` section, when it has one, decides instead of the flag.
    const anonymous = (path: string): boolean => this.tokenAuthn?.jwt?.anonymousAllowed(path) ?? anonymousFlag;
    return chain(
      [
        requestTimeout(this.config.requestTimeout),
        authentication(authenticator, { anonymous, apiAudiences }),
        impersonation(this.authorizer),
        // Priority and fairness would take this place; without it kube-apiserver bounds requests in flight.
        maxInFlight({ readOnly: this.config.maxRequestsInflight, mutating: this.config.maxMutatingRequestsInflight }),
        authorization(this.authorizer),
      ],
      (ctx) => {
        // A group-version an extension API server serves goes there (kube-aggregator's proxy), after authn and authz.
        const remote = this.aggregatedApis?.routeForPath(ctx.url.pathname);
        if (remote) return proxyToExtensionServer(ctx, remote, this.aggregatedApis!.resolver, this.proxyClient);
        const info = ctx.info;
        if (!info.isResourceRequest) return this.routes.serve(ctx);
        return serveResource(ctx, info, {
          catalog: this.catalog,
          registry: this.registry,
          admission: this.admission,
          authorizer: this.authorizer,
          featureGates: this.config.featureGates,
          shutdown: this.shutdownController.signal,
          watchStreams: this.watchStreams,
          serviceAccountTokens: this.tokenAuthn && { issuer: this.tokenAuthn.issuer, settings: this.tokenAuthn.tokenRequest },
          tokenReviewer: this.reviewToken,
          deprecatedApis: this.deprecatedApis,
        });
      },
    );
  }

  /**
   * An upgrade request (WebSocket, SPDY) goes through the same chain as any
   * other, answered on its own connection: a response written there closes
   * it, unless a handler takes the connection over (the aggregator's tunnel
   * to an extension server).
   */
  private handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.upgradedSockets.add(socket);
    socket.once('close', () => this.upgradedSockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const res = new ServerResponse(req);
    res.assignSocket(socket as Socket);
    res.shouldKeepAlive = false;
    res.once('finish', () => socket.end());
    void this.handle(req, res, { socket, head });
  }

  /** Connections handed over by upgrade requests: the HTTP server no longer closes them itself. */
  private readonly upgradedSockets = new Set<Duplex>();

  private async handle(req: IncomingMessage, res: ServerResponse, upgrade?: { socket: Duplex; head: Buffer }): Promise<void> {
    this.connections.track(req, res);
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'https://capstan.invalid');
    } catch {
      res.shouldKeepAlive = false;
      res.writeHead(400).end();
      return;
    }
    const ctx = new RequestContext(req, res, parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams), url);
    ctx.logger = this.logger;
    ctx.compressResponses = this.config.featureGates.enabled('APIResponseCompression');
    if (this.config.requestTimeout > 0) ctx.bodyDeadline = Date.now() + this.config.requestTimeout;
    ctx.cbor = this.cborServing;
    ctx.upgrade = upgrade;
    try {
      await (this.attributeEscapes ? runInRequest(ctx, () => this.handler(ctx)) : this.handler(ctx));
    } catch (err) {
      // A tunnel's connection carries another protocol now: no HTTP answer can go there.
      if (ctx.hijacked) {
        this.logger.error(`request ${ctx.method} ${ctx.url.pathname} failed after its connection was upgraded: ${(err as Error).message}`);
        ctx.upgrade?.socket.destroy();
        return;
      }
      try {
        writeError(ctx, err);
      } catch (failed) {
        writePanic(ctx, failed);
      }
    }
    if (this.logger.v(3)) this.logger.info(requestLogLine(ctx));
    this.options.onRequest?.({ verb: ctx.info.verb, method: ctx.method, path: ctx.url.pathname, query: ctx.url.search, user: ctx.user?.username ?? '', status: ctx.res.statusCode });
  }

  /** Graceful stop: readyz fails for --shutdown-delay-duration, watches end, in-flight requests finish. */
  async stop(): Promise<void> {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    if (this.config.shutdownDelay > 0) await new Promise((r) => setTimeout(r, this.config.shutdownDelay));
    this.shutdownController.abort();
    // Hand leadership over first, so another process takes the work at once.
    await this.elector?.stop();
    for (const c of this.controllers) c.stop();
    this.authz.stop();
    this.tokenAuthn?.stop();
    this.stopCompactor?.();
    // The controllers' last writes finish before the store closes.
    await this.loopback.close();
    this.registry?.stop();
    this.conversionCalls?.clients.close();
    if (this.server) {
      const server = this.server;
      await new Promise<void>((resolve) => {
        // Cleared once closed: a pending timer would keep this stopped server (caches and all) in memory.
        const backstop = setTimeout(() => server.closeAllConnections(), 5000).unref();
        server.close(() => {
          clearTimeout(backstop);
          resolve();
        });
        server.closeIdleConnections();
        // Tunnels (exec, consoles) end with the server, as hijacked connections end with kube-apiserver's process.
        for (const socket of this.upgradedSockets) socket.destroy();
      });
    }
    if (!this.options.store) await this.store?.close();
    this.uninstallLastResort?.();
  }

  get uptimeMs(): number {
    return Date.now() - this.startedAt;
  }
}

/** kube's httplog line, written at -v=3 and above once a request is answered. */
function requestLogLine(ctx: RequestContext): string {
  const latency = Number(process.hrtime.bigint() - ctx.started) / 1e6;
  const ua = ctx.header('user-agent') ?? '';
  return `"HTTP" verb="${ctx.method}" URI="${ctx.req.url ?? ''}" latency="${latency.toFixed(3)}ms" userAgent="${ua}" audit-ID="${ctx.auditId}" srcIP="${ctx.req.socket.remoteAddress ?? ''}:${ctx.req.socket.remotePort ?? ''}" resp=${ctx.res.statusCode}`;
}


/** kube-system Lease whose holder runs the leader-only work. */
export const LEADER_LEASE_NAME = 'capstan-leader';

async function openStore(cfg: ServerConfig): Promise<Store> {
  switch (cfg.storageBackend) {
    case 'memory':
      return new MemoryStore();
    case 'etcd3': {
      // Loaded only for this backend: the etcd client (gRPC and protobufjs) is ~200 ms of every start otherwise.
      const { EtcdStore } = await import('../storage/etcd.js');
      return EtcdStore.open({
        endpoints: cfg.etcdServers,
        ...(cfg.etcdCaFile ? { caFile: cfg.etcdCaFile } : {}),
        ...(cfg.etcdCertFile ? { certFile: cfg.etcdCertFile } : {}),
        ...(cfg.etcdKeyFile ? { keyFile: cfg.etcdKeyFile } : {}),
      });
    }
    case 'sqlite':
      if (cfg.dataDir === undefined) throw new Error('the sqlite storage backend needs a data directory');
      return SqliteStore.open({ path: join(cfg.dataDir, 'capstan.db'), synchronous: cfg.sqliteSynchronous });
  }
}

/**
 * Node's HTTP server pauses a keep-alive connection when a new request starts
 * while the last response is still above the socket's write high-water mark
 * (16 KiB), and over TLS the request's body can still reach the paused parser,
 * which then fails with HPE_PAUSED and drops the connection: a client that
 * PUTs a 20 KB object right after reading a 20 KB answer sees "socket hang
 * up". With the mark above any single object's size, the pause only happens
 * behind big lists, which their clients follow with bodiless GETs or watches.
 */
const SOCKET_WRITE_HIGH_WATER_MARK = 4 * 1024 * 1024;

function raiseWriteHighWaterMark(socket: TLSSocket): void {
  const state = (socket as unknown as { _writableState?: { highWaterMark: number } })._writableState;
  if (state) state.highWaterMark = SOCKET_WRITE_HIGH_WATER_MARK;
}
