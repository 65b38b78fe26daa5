import { CONTROLLERS_DISABLED_BY_DEFAULT, KNOWN_CONTROLLERS, validateControllers } from '../controllers/controller-names.js';
import { formatGoDuration } from '../machinery/duration.js';
import { join, resolve } from 'node:path';
import { FlagError, parseFlags, type FlagSpec, type ParsedFlags } from './flags.js';
import { parseCidr } from '../registry/services/cidr.js';
import { FeatureGateError, FeatureGates, featureGatesHelp } from '../machinery/feature-gates.js';
import type { ServerConfig } from './config.js';
import { TOKEN_AUTHN_FLAG_SPECS, tokenAuthnFromFlags } from './token-authn-options.js';
import { AUTHORIZATION_MODES, BUILT_MODES, validateAuthorizationFlags } from '../authz/modes.js';

/** `capstan serve`'s authorizers: Node,RBAC as kubeadm runs kube-apiserver, RBAC while the Node authorizer is not built. */
export const DEFAULT_AUTHORIZATION_MODES: readonly string[] = BUILT_MODES.includes('Node') ? ['Node', 'RBAC'] : ['RBAC'];
import { AUTHN_EXTENSION_FLAG_SPECS, authnExtensionsFromFlags } from './authn-flags.js';
import { ADMISSION_FLAG_SPECS, admissionFromFlags } from './admission-flags.js';
import { CSR_SIGNING_FLAG_SPECS, csrSigningFromFlags } from './csr-signing-options.js';

export const FLAG_SPECS: FlagSpec[] = [
  { name: 'secure-port', type: 'int', default: '6443', help: 'The port on which to serve HTTPS with authentication and authorization. 0 picks a free port.' },
  { name: 'bind-address', type: 'string', default: '127.0.0.1', help: 'The IP address on which to listen for the --secure-port port.' },
  { name: 'data-dir', type: 'string', default: '.capstan', help: 'Directory for the embedded store, certificates and the admin kubeconfig.' },
  { name: 'cert-dir', type: 'string', default: '', help: 'The directory where the TLS certs are located (default <data-dir>/pki). Ignored if --tls-cert-file and --tls-private-key-file are provided.' },
  { name: 'tls-cert-file', type: 'string', default: '', help: 'File containing the default x509 Certificate for HTTPS (CA cert, if any, concatenated after server cert).' },
  { name: 'tls-private-key-file', type: 'string', default: '', help: 'File containing the default x509 private key matching --tls-cert-file.' },
  { name: 'proxy-client-cert-file', type: 'string', default: '', help: 'Client certificate used to prove the identity of the aggregator or kube-apiserver when it must call out during a request. This includes proxying requests to a user api-server and calling out to webhook admission plugins. It is expected that this cert includes a signature from the CA in the --requestheader-client-ca-file flag. That CA is published in the \'extension-apiserver-authentication\' configmap in the kube-system namespace. Components receiving calls from kube-aggregator should use that CA to perform their half of the mutual TLS verification.' },
  { name: 'proxy-client-key-file', type: 'string', default: '', help: 'Private key for the client certificate used to prove the identity of the aggregator or kube-apiserver when it must call out during a request. This includes proxying requests to a user api-server and calling out to webhook admission plugins.' },
  { name: 'enable-aggregator-routing', type: 'bool', default: 'true', help: 'Turns on aggregator routing requests to endpoints IP rather than cluster IP. (Capstan has no service proxy, so a cluster IP is reachable only through one of your own: the default is true, unlike kube-apiserver; it applies to APIServices and admission webhooks.)' },
  { name: 'client-ca-file', type: 'string', default: '', help: 'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate (default: the generated CA).' },
  { name: 'storage-backend', type: 'string', default: 'sqlite', help: "The storage backend for persistence. Options: 'sqlite' (embedded, one process), 'etcd3' (several processes on one etcd cluster), 'memory'." },
  { name: 'etcd-servers', type: 'stringList', default: '', help: 'List of etcd servers to connect with (scheme://ip:port), comma separated.' },
  { name: 'etcd-prefix', type: 'string', default: '/registry', help: 'The prefix to prepend to all resource paths in etcd.' },
  { name: 'etcd-cafile', type: 'string', default: '', help: 'SSL Certificate Authority file used to secure etcd communication.' },
  { name: 'etcd-certfile', type: 'string', default: '', help: 'SSL certification file used to secure etcd communication.' },
  { name: 'etcd-keyfile', type: 'string', default: '', help: 'SSL key file used to secure etcd communication.' },
  { name: 'etcd-compaction-interval', type: 'duration', default: '5m', help: 'The interval of compaction requests. If 0, the compaction request from apiserver is disabled.' },
  { name: 'sqlite-synchronous', type: 'string', default: 'NORMAL', help: "SQLite durability: 'NORMAL' survives a crash of the process, 'FULL' also survives power loss (slower per commit)." },
  { name: 'runtime-config', type: 'stringList', default: '', help: 'A set of key=value pairs that enable or disable built-in APIs, e.g. api/all=true, batch/v1=false, storage.k8s.io/v1beta1/volumeattributesclasses.' },
  { name: 'admin-kubeconfig', type: 'string', default: '', help: 'Where to write the admin kubeconfig (default <data-dir>/admin.kubeconfig).' },
  { name: 'livez-grace-period', type: 'duration', default: '0s', help: 'This option represents the maximum amount of time it should take for apiserver to complete its startup sequence and become live.' },
  { name: 'shutdown-delay-duration', type: 'duration', default: '0s', help: 'Time to delay the termination. During that time the server keeps serving requests normally and /readyz returns failure.' },
  { name: 'watch-cache-history', type: 'duration', default: '5m', help: 'How long the watch cache keeps events (watches can resume from a resourceVersion within it) and the store keeps history before compaction.' },
  { name: 'watch-cache-capacity', type: 'int', default: '100000', help: 'The most events each resource\'s watch cache keeps; older ones leave its history early.' },
  { name: 'max-watch-buffered-bytes', type: 'int', default: '0', help: 'The most bytes held for all watchers together (events queued for clients that read slower than they are sent, and unsent socket buffers); when reached, the watchers furthest behind are closed and resume from their last resourceVersion. 0 means a quarter of the JavaScript heap limit.' },
  { name: 'service-cluster-ip-range', type: 'string', default: '10.0.0.0/24', help: 'A CIDR notation IP range from which to assign service cluster IPs. This must not overlap with any IP ranges assigned to nodes or pods.' },
  { name: 'service-node-port-range', type: 'string', default: '30000-32767', help: 'A port range to reserve for services with NodePort visibility. Example: \'30000-32767\'. Inclusive at both ends of the range.' },
  { name: 'leader-elect', type: 'bool', default: 'true', help: 'Start a leader election client and gain leadership before running leader-only work (controllers, compaction); several processes on one etcd need it.' },
  { name: 'leader-elect-lease-duration', type: 'duration', default: '15s', help: 'The duration that non-leader candidates will wait after observing a leadership renewal until attempting to acquire leadership of a led but unrenewed leader slot.' },
  { name: 'leader-elect-renew-deadline', type: 'duration', default: '10s', help: 'The interval between attempts by the acting master to renew a leadership slot before it stops leading. This must be less than the lease duration.' },
  { name: 'leader-elect-retry-period', type: 'duration', default: '2s', help: 'The duration the clients should wait between attempting acquisition and renewal of a leadership.' },
  {
    name: 'controllers',
    type: 'stringList',
    default: '*',
    help: `A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'.\nAll controllers: ${KNOWN_CONTROLLERS.join(', ')}\nDisabled-by-default controllers: ${CONTROLLERS_DISABLED_BY_DEFAULT.join(', ')}\nCapstan runs in-process only those its README lists as running.`,
  },
  { name: 'legacy-service-account-token-clean-up-period', type: 'duration', default: '8760h0m0s', help: 'The period of time since the last usage of an legacy service account token before it can be deleted.' },
  { name: 'request-timeout', type: 'duration', default: '1m0s', help: 'An optional field indicating the duration a handler must keep a request open before timing it out. This is the default request timeout for requests but may be overridden by flags such as --min-request-timeout for specific types of requests.' },
  { name: 'min-request-timeout', type: 'int', default: '1800', help: 'An optional field indicating the minimum number of seconds a handler must keep a request open before timing it out. Currently only honored by the watch request handler, which picks a randomized value above this number as the connection timeout, to spread out load.' },
  { name: 'max-requests-inflight', type: 'int', default: '400', help: 'This and --max-mutating-requests-inflight are summed to determine the server\'s total concurrency limit (which must be positive) if --enable-priority-and-fairness is true. Otherwise, this flag limits the maximum number of non-mutating requests in flight, or a zero value disables the limit completely.' },
  { name: 'max-mutating-requests-inflight', type: 'int', default: '200', help: 'This and --max-requests-inflight are summed to determine the server\'s total concurrency limit (which must be positive) if --enable-priority-and-fairness is true. Otherwise, this flag limits the maximum number of mutating requests in flight, or a zero value disables the limit completely.' },
  {
    name: 'authorization-mode',
    type: 'stringList',
    default: DEFAULT_AUTHORIZATION_MODES.join(','),
    help: `Ordered list of plug-ins to do authorization on secure port. Defaults to ${DEFAULT_AUTHORIZATION_MODES.join(',')} (as kubeadm clusters run) if --authorization-config is not used. Comma-delimited list of: ${AUTHORIZATION_MODES.join(',')}.`,
  },
  { name: 'authorization-policy-file', type: 'string', default: '', help: 'File with authorization policy in json line by line format, used with --authorization-mode=ABAC, on the secure port.' },
  { name: 'authorization-webhook-config-file', type: 'string', default: '', help: "File with webhook configuration in kubeconfig format, used with --authorization-mode=Webhook. The API server will query the remote service to determine access on the API server's secure port." },
  { name: 'authorization-webhook-version', type: 'string', default: 'v1beta1', help: 'The API version of the authorization.k8s.io SubjectAccessReview to send to and expect from the webhook.' },
  { name: 'authorization-webhook-cache-authorized-ttl', type: 'duration', default: '5m0s', help: "The duration to cache 'authorized' responses from the webhook authorizer." },
  { name: 'authorization-webhook-cache-unauthorized-ttl', type: 'duration', default: '30s', help: "The duration to cache 'unauthorized' responses from the webhook authorizer." },
  { name: 'authorization-config', type: 'string', default: '', help: 'File with Authorization Configuration to configure the authorizer chain. Requires feature gate StructuredAuthorizationConfiguration. This flag is mutually exclusive with the other --authorization-mode and --authorization-webhook-* flags.' },
  { name: 'default-not-ready-toleration-seconds', type: 'int', default: '300', help: 'Indicates the tolerationSeconds of the toleration for notReady:NoExecute that is added by default to every pod that does not already have such a toleration.' },
  { name: 'default-unreachable-toleration-seconds', type: 'int', default: '300', help: 'Indicates the tolerationSeconds of the toleration for unreachable:NoExecute that is added by default to every pod that does not already have such a toleration.' },
  { name: 'v', type: 'int', default: '0', help: 'Number for the log level verbosity.' },
  { name: 'help', type: 'bool', default: 'false', help: 'Help for serve.' },
  { name: 'feature-gates', type: 'stringArray', default: '', help: featureGatesHelp() },
  ...TOKEN_AUTHN_FLAG_SPECS,
  ...AUTHN_EXTENSION_FLAG_SPECS,
  ...ADMISSION_FLAG_SPECS,
  ...CSR_SIGNING_FLAG_SPECS,
];

function str(p: ParsedFlags, name: string): string {
  return String(p.values.get(name) ?? '');
}

export function configFromFlags(argv: string[], cwd = process.cwd()): { config: ServerConfig; help: boolean; args: string[]; warnings: string[] } {
  const p = parseFlags(argv, FLAG_SPECS);
  const backend = str(p, 'storage-backend');
  if (backend !== 'sqlite' && backend !== 'memory' && backend !== 'etcd3') throw new FlagError(`invalid argument "${backend}" for "--storage-backend": must be one of sqlite, etcd3, memory`);
  const etcdServers = (p.values.get('etcd-servers') as string[]).filter((s) => s !== '');
  if (backend === 'etcd3' && etcdServers.length === 0) throw new FlagError('--etcd-servers must be specified');
  for (const server of etcdServers) {
    if (!/^(https?:\/\/)?[^/\s]+:\d+\/?$/.test(server)) throw new FlagError(`invalid argument "${server}" for "--etcd-servers": must be scheme://host:port`);
  }
  const etcdPrefix = str(p, 'etcd-prefix');
  if (!etcdPrefix.startsWith('/')) throw new FlagError(`invalid argument "${etcdPrefix}" for "--etcd-prefix": must start with /`);
  const sync = str(p, 'sqlite-synchronous').toUpperCase();
  if (sync !== 'NORMAL' && sync !== 'FULL') throw new FlagError(`invalid argument "${sync}" for "--sqlite-synchronous": must be NORMAL or FULL`);
  const port = p.values.get('secure-port') as number;
  if (port < 0 || port > 65535) throw new FlagError(`--secure-port ${port} must be between 0 and 65535, inclusive`);
  if ((p.values.get('watch-cache-capacity') as number) < 1) throw new FlagError('--watch-cache-capacity must be at least 1');
  const maxWatchBuffered = p.values.get('max-watch-buffered-bytes') as number;
  if (maxWatchBuffered < 0) throw new FlagError('--max-watch-buffered-bytes must not be negative');
  try {
    const range = parseCidr(str(p, 'service-cluster-ip-range'));
    if (range.size < 8) throw new Error('too small');
  } catch {
    throw new FlagError(`invalid argument "${str(p, 'service-cluster-ip-range')}" for "--service-cluster-ip-range" flag: must be an IPv4 CIDR with room for services (at most /29)`);
  }
  if (!/^\d+-\d+$/.test(str(p, 'service-node-port-range'))) {
    throw new FlagError(`invalid argument "${str(p, 'service-node-port-range')}" for "--service-node-port-range" flag: must be of the form first-last`);
  }
  const lease = p.values.get('leader-elect-lease-duration') as number;
  const renew = p.values.get('leader-elect-renew-deadline') as number;
  const retry = p.values.get('leader-elect-retry-period') as number;
  if (lease <= renew) throw new FlagError('leaseDuration must be greater than renewDeadline');
  // client-go jitters the retry period by up to 1.2x.
  if (renew <= retry * 1.2) throw new FlagError('renewDeadline must be greater than retryPeriod*JitterFactor');
  if (retry < 1) throw new FlagError('retryPeriod must be greater than zero');
  const controllers = (p.values.get('controllers') as string[]).filter((c) => c !== '');
  const controllerErrors = validateControllers(controllers);
  if (controllerErrors.length === 1) throw new FlagError(controllerErrors[0]!);
  if (controllerErrors.length > 1) throw new FlagError(`[${controllerErrors.join(', ')}]`);
  const cleanUpPeriod = p.values.get('legacy-service-account-token-clean-up-period') as number;
  // NewLegacySATokenCleaner's refusal, which stops kube-controller-manager.
  if (!(cleanUpPeriod > 0)) throw new FlagError(`invalid CleanUpPeriod: ${formatGoDuration(cleanUpPeriod)}`);
  const maxRequestsInflight = p.values.get('max-requests-inflight') as number;
  const maxMutatingRequestsInflight = p.values.get('max-mutating-requests-inflight') as number;
  const requestTimeout = p.values.get('request-timeout') as number;
  // ServerRunOptions.Validate's texts.
  if (maxRequestsInflight < 0) throw new FlagError('--max-requests-inflight can not be negative value');
  if (maxMutatingRequestsInflight < 0) throw new FlagError('--max-mutating-requests-inflight can not be negative value');
  if (requestTimeout < 0) throw new FlagError('--request-timeout can not be negative value');
  const minRequestTimeout = p.values.get('min-request-timeout') as number;
  if (minRequestTimeout < 0) throw new FlagError('--min-request-timeout can not be negative value');
  const authorizationModes = (p.values.get('authorization-mode') as string[]).filter((m) => m !== '');
  const authorizationErrors = validateAuthorizationFlags({
    modes: authorizationModes,
    policyFile: str(p, 'authorization-policy-file'),
    webhookConfigFile: str(p, 'authorization-webhook-config-file'),
    configFile: str(p, 'authorization-config'),
    modeFlagSet: ['authorization-mode', 'authorization-webhook-config-file', 'authorization-webhook-version', 'authorization-webhook-cache-authorized-ttl', 'authorization-webhook-cache-unauthorized-ttl'].some((f) => p.set.has(f)),
  });
  // utilerrors.NewAggregate: one error as itself, several as [a, b].
  if (authorizationErrors.length === 1) throw new FlagError(authorizationErrors[0]!);
  if (authorizationErrors.length > 1) throw new FlagError(`[${authorizationErrors.join(', ')}]`);
  const unbuilt = authorizationModes.find((m) => !(BUILT_MODES as readonly string[]).includes(m));
  if (unbuilt) throw new FlagError(`--authorization-mode=${unbuilt} is not supported by this server yet (supported: ${BUILT_MODES.join(', ')})`);
  const dataDir = resolve(cwd, str(p, 'data-dir'));
  const config: ServerConfig = {
    securePort: port,
    bindAddress: str(p, 'bind-address'),
    dataDir,
    certDir: str(p, 'cert-dir') ? resolve(cwd, str(p, 'cert-dir')) : join(dataDir, 'pki'),
    storageBackend: backend,
    etcdServers,
    etcdPrefix,
    etcdCompactionInterval: p.values.get('etcd-compaction-interval') as number,
    sqliteSynchronous: sync,
    runtimeConfig: p.values.get('runtime-config') as string[],
    adminKubeconfig: str(p, 'admin-kubeconfig') ? resolve(cwd, str(p, 'admin-kubeconfig')) : join(dataDir, 'admin.kubeconfig'),
    livezGracePeriod: p.values.get('livez-grace-period') as number,
    shutdownDelay: p.values.get('shutdown-delay-duration') as number,
    watchHistory: p.values.get('watch-cache-history') as number,
    watchCacheCapacity: p.values.get('watch-cache-capacity') as number,
    serviceClusterIpRange: str(p, 'service-cluster-ip-range'),
    serviceNodePortRange: str(p, 'service-node-port-range'),
    enableAggregatorRouting: p.values.get('enable-aggregator-routing') === true,
    leaderElect: p.values.get('leader-elect') === true,
    leaderElectLeaseDuration: lease,
    leaderElectRenewDeadline: renew,
    leaderElectRetryPeriod: retry,
    ...(p.set.has('controllers') ? { controllers } : {}),
    ...(p.set.has('legacy-service-account-token-clean-up-period') ? { legacyServiceAccountTokenCleanUpPeriod: cleanUpPeriod } : {}),
    requestTimeout,
    minRequestTimeout,
    maxRequestsInflight,
    maxMutatingRequestsInflight,
    verbosity: p.values.get('v') as number,
    featureGates: featureGatesFromFlag(p.values.get('feature-gates') as string[]),
    ...tokenAuthnFromFlags(p, cwd),
    ...(str(p, 'authorization-webhook-config-file')
      ? {
          authorizationWebhook: {
            configFile: resolve(cwd, str(p, 'authorization-webhook-config-file')),
            version: webhookVersion(str(p, 'authorization-webhook-version')),
            authorizedTtl: p.values.get('authorization-webhook-cache-authorized-ttl') as number,
            unauthorizedTtl: p.values.get('authorization-webhook-cache-unauthorized-ttl') as number,
          },
        }
      : {}),
    ...(str(p, 'authorization-policy-file') ? { authorizationPolicyFile: resolve(cwd, str(p, 'authorization-policy-file')) } : {}),
    ...(str(p, 'authorization-config') ? { authorizationConfigFile: resolve(cwd, str(p, 'authorization-config')) } : { authorizationModes }),
  };
  if (maxWatchBuffered > 0) config.maxWatchBufferedBytes = maxWatchBuffered;
  const csrSigning = csrSigningFromFlags(p, cwd);
  if (csrSigning) config.csrSigning = csrSigning;
  if (p.set.has('default-not-ready-toleration-seconds') || p.set.has('default-unreachable-toleration-seconds')) {
    config.defaultTolerationSeconds = {
      notReady: p.values.get('default-not-ready-toleration-seconds') as number,
      unreachable: p.values.get('default-unreachable-toleration-seconds') as number,
    };
  }
  if (str(p, 'tls-cert-file')) config.tlsCertFile = resolve(cwd, str(p, 'tls-cert-file'));
  if (str(p, 'tls-private-key-file')) config.tlsPrivateKeyFile = resolve(cwd, str(p, 'tls-private-key-file'));
  if (str(p, 'client-ca-file')) config.clientCaFile = resolve(cwd, str(p, 'client-ca-file'));
  const proxyCert = str(p, 'proxy-client-cert-file');
  const proxyKey = str(p, 'proxy-client-key-file');
  // As kube: the pair is used only when both are given.
  if (proxyCert !== '' && proxyKey !== '') config.proxyClient = { certFile: resolve(cwd, proxyCert), keyFile: resolve(cwd, proxyKey) };
  if (str(p, 'etcd-cafile')) config.etcdCaFile = resolve(cwd, str(p, 'etcd-cafile'));
  if (str(p, 'etcd-certfile')) config.etcdCertFile = resolve(cwd, str(p, 'etcd-certfile'));
  if (str(p, 'etcd-keyfile')) config.etcdKeyFile = resolve(cwd, str(p, 'etcd-keyfile'));
  const admission = admissionFromFlags(p, cwd);
  if (admission) config.admission = admission;
  const authn = authnExtensionsFromFlags(p, cwd);
  if (Object.keys(authn).length > 0) config.authnExtensions = authn;
  // kube's klog warnings for GA and deprecated gates follow the flag parser's notices.
  return { config, help: p.values.get('help') === true, args: p.args, warnings: [...p.warnings, ...config.featureGates.warnings] };
}

function webhookVersion(v: string): 'v1' | 'v1beta1' {
  if (v !== 'v1' && v !== 'v1beta1') throw new FlagError(`unsupported webhook authorizer version "${v}", supported versions are "v1", "v1beta1"`);
  return v;
}

function featureGatesFromFlag(values: string[]): FeatureGates {
  try {
    return FeatureGates.parse(values);
  } catch (err) {
    if (err instanceof FeatureGateError) throw new FlagError(`invalid argument "${err.value}" for "--feature-gates" flag: ${err.message}`);
    throw err;
  }
}

/**
 * Defaults for programmatic use (tests, embedding): the flags' defaults with
 * the memory store on a free port and nothing on disk; a given dataDir
 * places certificates and the admin kubeconfig under it, as `serve` does.
 */
export function defaultConfig(overrides: Partial<ServerConfig> = {}): ServerConfig {
  const { config } = configFromFlags(['--storage-backend', 'memory', '--secure-port', '0']);
  // Embedders keep the permissive interim authorizer unless they name modes (existing callers rely on it).
  const { dataDir: _d, certDir: _c, adminKubeconfig: _k, authorizationModes: _a, authorizationConfigFile: _f, authorizationPolicyFile: _p, authorizationWebhook: _w, ...flagDefaults } = config;
  const dataDir = overrides.dataDir;
  return {
    ...flagDefaults,
    ...overrides,
    ...(dataDir !== undefined ? { certDir: overrides.certDir ?? join(dataDir, 'pki'), adminKubeconfig: overrides.adminKubeconfig ?? join(dataDir, 'admin.kubeconfig') } : {}),
  };
}
