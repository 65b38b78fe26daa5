import type { AdmissionPlugin } from '../admission/admission.js';
import type { ApiCatalog } from '../api/catalog.js';
import { AbacAuthorizer, loadPolicyFile } from '../authz/abac.js';
import { UnionAuthorizer, type Authorizer } from '../authz/authorizer.js';
import { ReloadingAuthorizer, type AuthorizerEntry } from '../authz/config-file.js';
import { InterimAuthorizer } from '../authz/interim.js';
import { AlwaysAllowAuthorizer, AlwaysDenyAuthorizer } from '../authz/modes.js';
import { NodeAuthorizer } from '../authz/node/authorizer.js';
import { NodeGraph } from '../authz/node/graph.js';
import { PrivilegedGroupsAuthorizer } from '../authz/privileged-groups.js';
import { RbacAuthorizer } from '../authz/rbac/authorizer.js';
import { bootstrapPolicy } from '../authz/rbac/bootstrap-policy.js';
import { RbacEscalationCheck } from '../authz/rbac/escalation.js';
import { RbacPolicyIndex } from '../authz/rbac/policy-index.js';
import { policyRulesOf } from '../authz/rbac/rules.js';
import { WebhookAuthorizer } from '../authz/webhook.js';
import { AuthorizationMetrics, InstrumentedAuthorizer } from '../authz/metrics.js';
import { PRIVILEGED_GROUP } from '../authn/loopback.js';
import { ClusterRoleAggregation } from '../controllers/clusterrole-aggregation.js';
import type { Controller, ControllerShared } from '../controllers/controller.js';
import { Informer } from '../registry/informer.js';
import { RbacBootstrap } from '../controllers/rbac-bootstrap.js';
import type { ApiClient } from '../machinery/client.js';
import type { Logger } from '../machinery/logger.js';
import type { Registry } from '../registry/registry.js';
import type { ServerConfig } from './config.js';

/** A core object by resource, namespace and name, or undefined when there is none. */
/**
 * The server's authorization, as `--authorization-mode`,
 * `--authorization-config` or an embedder's `authorizers` name it: the chain
 * after system:masters (asked first, as in kube), the state its authorizers
 * read (RBAC's policy index and the Node authorizer's graph, fed by
 * informers on the watch caches), the admission plugins that come with
 * them (RBAC's escalation checks), the default RBAC policy
 * reconciled at start and the ClusterRole aggregation controller.
 */
export class AuthorizationSetup {
  readonly authorizer: Authorizer;
  /** kube's apiserver_authorization_* metrics of this server's authorizers. */
  readonly metrics = new AuthorizationMetrics();
  /** Set when RBAC is a mode, or may become one at a configuration file's reload. */
  private readonly rbac: RbacPolicyIndex | undefined;
  /** Set when Node is a mode, or may become one at a configuration file's reload. */
  private readonly nodeGraph: NodeGraph | undefined;
  private readonly reloading: ReloadingAuthorizer | undefined;
  private readonly informers: Informer[] = [];
  /** kube's post-start hook rbac/bootstrap-roles, once started. */
  bootstrap: RbacBootstrap | undefined;
  private bootstrapRun: Promise<void> | undefined;

  constructor(
    private readonly config: ServerConfig,
    authorizers: Authorizer[] | undefined,
    private readonly logger: Logger,
  ) {
    const configFile = authorizers ? undefined : config.authorizationConfigFile;
    const modes = authorizers || configFile ? undefined : config.authorizationModes;
    // A configuration file may name RBAC or Node at its next reload: their caches are kept from the start.
    if (configFile || modes?.includes('RBAC')) this.rbac = new RbacPolicyIndex();
    if (configFile || modes?.includes('Node')) this.nodeGraph = new NodeGraph();
    if (configFile) {
      // As kube's reload.go: every configured authorizer counts its decisions under its type and name.
      const build = (entries: AuthorizerEntry[]): Authorizer[] =>
        entries.map((e) => new InstrumentedAuthorizer(e.type, e.name, e.webhook ? new WebhookAuthorizer({ ...e.webhook, metrics: this.metrics }) : this.modeAuthorizer(e.type), this.metrics));
      this.reloading = new ReloadingAuthorizer(configFile, build, (m) => this.logger.info(m));
    }
    const chain = authorizers ?? (this.reloading ? [this.reloading] : this.modeAuthorizers(modes));
    this.authorizer = new UnionAuthorizer([new PrivilegedGroupsAuthorizer([PRIVILEGED_GROUP]), ...chain]);
  }

  /** Admission plugins that come with the authorizers: RBAC's escalation checks (kube's policy-based storage, not a named plugin). */
  admissionPlugins(): AdmissionPlugin[] {
    return this.rbac ? [new RbacEscalationCheck(this.authorizer, this.rbac)] : [];
  }

  /** The Node authorizer is (or may become, by a configuration file's reload) one of the authorizers: NodeRestriction then runs unless disabled (server/admission-setup.ts). */
  get nodeAuthorizer(): boolean {
    return this.nodeGraph !== undefined;
  }

  /** Loads what the authorizers read from the watch caches (requests are served once they have it) and starts the configuration file's reloads. */
  async start(registry: Registry, catalog: ApiCatalog): Promise<void> {
    const rbac = this.rbac;
    if (rbac) {
      const store = (resource: string) => registry.storeFor(catalog.knownResource('rbac.authorization.k8s.io', 'v1', resource)!);
      this.informers.push(
        new Informer(store('roles'), (type, obj) => rbac.onRole(type, obj)),
        new Informer(store('clusterroles'), (type, obj) => rbac.onClusterRole(type, obj)),
        new Informer(store('rolebindings'), (type, obj) => rbac.onRoleBinding(type, obj)),
        new Informer(store('clusterrolebindings'), (type, obj) => rbac.onClusterRoleBinding(type, obj)),
      );
    }
    const graph = this.nodeGraph;
    if (graph) {
      this.informers.push(
        new Informer(registry.storeFor(catalog.resource('', 'v1', 'pods')!), (type, obj) => graph.onPod(type, obj)),
        new Informer(registry.storeFor(catalog.resource('', 'v1', 'persistentvolumes')!), (type, obj) => graph.onPersistentVolume(type, obj)),
      );
      const attachments = catalog.resource('storage.k8s.io', 'v1', 'volumeattachments');
      if (attachments) this.informers.push(new Informer(registry.storeFor(attachments), (type, obj) => graph.onVolumeAttachment(type, obj)));
      const slices = catalog.resource('resource.k8s.io', 'v1', 'resourceslices');
      if (slices) this.informers.push(new Informer(registry.storeFor(slices), (type, obj) => graph.onResourceSlice(type, obj)));
    }
    await Promise.all(this.informers.map((i) => i.start()));
    this.reloading?.start();
  }

  /**
   * kube's post-start hook rbac/bootstrap-roles: the default roles and
   * bindings reconciled through the loopback client before the listener
   * opens, by every process as every kube-apiserver does (writes are
   * compare-and-swap, so processes starting together only retry).
   */
  startBootstrap(client: ApiClient): void {
    if (!this.rbac) return;
    this.bootstrap = new RbacBootstrap(client);
    this.bootstrapRun = this.bootstrap.start();
  }

  /** Resolves once the default policy is reconciled (at once without RBAC). */
  async bootstrapped(): Promise<void> {
    await this.bootstrapRun;
  }

  /** The ClusterRole aggregation controller, with RBAC; `wrap` runs it on the leader only. */
  controllers(registry: Registry, catalog: ApiCatalog, client: (component: string) => ApiClient, wrap: (name: string, create: () => Controller) => Controller, shared: ControllerShared = {}): Controller[] {
    if (!this.rbac) return [];
    const clusterRoles = registry.storeFor(catalog.knownResource('rbac.authorization.k8s.io', 'v1', 'clusterroles')!);
    return [wrap('clusterrole-aggregation', () => new ClusterRoleAggregation(clusterRoles, client('clusterrole-aggregation-controller'), shared))];
  }

  stop(): void {
    for (const i of this.informers) i.stop();
    this.reloading?.stop();
  }

  /**
   * The authorizers `--authorization-mode` names, in its order, counting their decisions under the names kube's
   * buildAuthorizationConfiguration gives them (the mode in lower case); none named: the interim authorizer.
   */
  private modeAuthorizers(modes: string[] | undefined): Authorizer[] {
    if (!modes) return [new InterimAuthorizer()];
    return modes.map((mode) => new InstrumentedAuthorizer(mode, mode.toLowerCase(), this.modeAuthorizer(mode), this.metrics));
  }

  private modeAuthorizer(mode: string): Authorizer {
    switch (mode) {
        case 'AlwaysAllow':
          return new AlwaysAllowAuthorizer();
        case 'AlwaysDeny':
          return new AlwaysDenyAuthorizer();
        case 'RBAC':
          return new RbacAuthorizer(this.rbac!);
        case 'Webhook': {
          // The flags' webhook: kube's legacy options become a NoOpinion failure policy and a 30 s timeout.
          const w = this.config.authorizationWebhook!;
          return new WebhookAuthorizer({ name: 'webhook', kubeconfigFile: w.configFile, version: w.version, authorizedTtlMs: w.authorizedTtl, unauthorizedTtlMs: w.unauthorizedTtl, timeoutMs: 30_000, failurePolicy: 'NoOpinion', metrics: this.metrics });
        }
        case 'ABAC':
          // Read once: policy changes need a restart, as in kube.
          return new AbacAuthorizer(loadPolicyFile(this.config.authorizationPolicyFile ?? '', (message) => this.logger.info(message)));
        case 'Node': {
          // kube's NodeRules are the system:node ClusterRole's rules.
          const nodeRole = bootstrapPolicy().clusterRoles.find((r) => r.metadata?.name === 'system:node');
          return new NodeAuthorizer(this.nodeGraph!, policyRulesOf(nodeRole?.rules));
        }
        default:
          throw new Error(`authorization mode ${mode} is not supported by this server yet`);
    }
  }
}
