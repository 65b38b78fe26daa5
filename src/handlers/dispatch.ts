import type { AdmissionChain } from '../admission/admission.js';
import type { Authorizer } from '../authz/authorizer.js';
import type { ApiCatalog } from '../api/catalog.js';
import type { DeprecatedApiRequests } from '../api/deprecated-api-requests.js';
import type { ResourceInfo } from '../api/types.js';
import type { Registry } from '../registry/registry.js';
import type { RequestContext } from '../machinery/context.js';
import { ApiError, methodNotSupported, notImplemented, resourceNotFound } from '../machinery/errors.js';
import type { FeatureGates } from '../machinery/feature-gates.js';
import type { ResourceRequestInfo } from '../machinery/request-info.js';
import { handleCreate } from './create.js';
import { handleDelete, handleDeleteCollection } from './delete.js';
import { handleFinalize } from './finalize.js';
import { handleGet } from './get.js';
import { handleList } from './list.js';
import { handlePatch } from './patch.js';
import { handleReview } from './reviews.js';
import { handleBinding } from './subresources/binding.js';
import { handleEviction } from './subresources/eviction.js';
import { handleScale } from './subresources/scale.js';
import { handleTokenRequest, type TokenRequestDeps } from './subresources/token-request.js';
import type { TokenReviewer } from '../authn/token-review.js';
import type { ResourceStore } from '../registry/resource-store.js';
import type { ResourceDescriptor, SubresourceKind, VirtualKind } from '../registry/descriptor.js';
import { ResourceScope } from './scope.js';
import { handleUpdate } from './update.js';
import { handleWatch } from './watch.js';
import type { WatchStreams } from './watch-streams.js';

export interface ResourceDeps {
  catalog: ApiCatalog;
  registry: Registry;
  admission: AdmissionChain;
  featureGates: FeatureGates;
  /** Answers the access review APIs and the extra check of an unsafe delete. */
  authorizer: Authorizer;
  /** Aborted when the server shuts down (ends watches). */
  shutdown: AbortSignal;
  /** Every watch response's writer: per-watcher and global bounds on what waits for slow clients. */
  watchStreams: WatchStreams;
  /** Issues service account tokens (serviceaccounts/<name>/token); absent: that subresource answers 501. */
  serviceAccountTokens?: Omit<TokenRequestDeps, 'pods' | 'secrets' | 'nodes'> | undefined;
  /** Authenticates TokenReviews' tokens. */
  tokenReviewer?: TokenReviewer | undefined;
  /** Decides which built-in versions are deprecated, and counts the requests to deprecated versions (/metrics). */
  deprecatedApis: DeprecatedApiRequests;
}

/**
 * A request to a deprecated version, as kube's installer (built-in types) and
 * crdHandler (custom resources) answer it: the version's Warning header, the
 * apiserver_requested_deprecated_apis gauge and the k8s.io/deprecated (and
 * k8s.io/removed-release) audit annotations. Built-in subresources are judged
 * by their own kind (status: the resource's; scale: autoscaling/v1 Scale).
 */
function noteDeprecation(ctx: RequestContext, req: ResourceRequestInfo, info: ResourceInfo, descriptor: ResourceDescriptor, apis: DeprecatedApiRequests): void {
  let removedRelease = '';
  const customWarning = descriptor.versionWarnings?.get(info.version);
  if (customWarning !== undefined) {
    if (customWarning) ctx.warnings.push(customWarning);
  } else {
    const sub = req.subresource ? info.subresources.find((s) => s.name === req.subresource) : undefined;
    const deprecation = sub ? apis.builtin(sub.group, sub.version, sub.kind) : apis.builtin(info.group, info.version, info.kind);
    if (!deprecation) return;
    if (deprecation.warning) ctx.warnings.push(deprecation.warning);
    removedRelease = deprecation.removedRelease;
  }
  apis.record({ group: info.group, version: info.version, resource: info.name, subresource: req.subresource ?? '', removedRelease });
  const annotate = (key: string, value: string): void => {
    if (!ctx.auditAnnotations.has(key)) ctx.auditAnnotations.set(key, value);
  };
  annotate('k8s.io/deprecated', 'true');
  if (removedRelease) annotate('k8s.io/removed-release', removedRelease);
}


function methodNotAllowed(): ApiError {
  return new ApiError({ message: 'the server does not allow this method on the requested resource', reason: 'MethodNotAllowed', details: {}, code: 405 });
}

/**
 * The handler of each subresource behaviour (descriptor.subresources says
 * which subresource of a resource has which); status is the main resource's
 * handlers in status mode, a CSR's approval in approval mode. The rest of the catalog's subresources answer 501.
 */
type SubresourceHandler = (scope: ResourceScope, deps: ResourceDeps) => Promise<void>;

const podsStore = (deps: ResourceDeps): ResourceStore => deps.registry.storeFor(deps.catalog.resource('', 'v1', 'pods')!);

const SUBRESOURCE_BEHAVIOURS: Record<Exclude<SubresourceKind, 'status' | 'approval'>, SubresourceHandler> = {
  finalize: (scope) => handleFinalize(scope),
  scale: (scope, deps) => handleScale(scope, deps.admission),
  eviction: (scope, deps) =>
    handleEviction(scope, { pods: scope.store, podDisruptionBudgets: deps.registry.storeFor(deps.catalog.resource('policy', 'v1', 'poddisruptionbudgets')!) }, deps.admission),
  binding: (scope, deps) => handleBinding(scope, podsStore(deps), deps.admission, deps.featureGates.enabled('PodTopologyLabelsAdmission')),
  token: (scope, deps) => {
    if (!deps.serviceAccountTokens) throw notImplemented('the serviceaccounts/token subresource');
    const core = (name: string): ResourceStore => deps.registry.storeFor(deps.catalog.resource('', 'v1', name)!);
    return handleTokenRequest(scope, { ...deps.serviceAccountTokens, pods: core('pods'), secrets: core('secrets'), nodes: core('nodes') }, deps.admission);
  },
};

/** The create of a resource without storage (descriptor.virtual). */
function virtualCreate(kind: VirtualKind, scope: ResourceScope, deps: ResourceDeps): Promise<void> {
  if (kind === 'binding') return handleBinding(scope, podsStore(deps), deps.admission, deps.featureGates.enabled('PodTopologyLabelsAdmission'));
  return handleReview(scope, kind, { authorizer: deps.authorizer, tokenReviewer: deps.tokenReviewer, apiAudiences: deps.serviceAccountTokens?.settings.audiences });
}

function subresourceHandler(descriptor: ResourceDescriptor, subresource: string): SubresourceHandler | undefined {
  const kind = descriptor.subresources.get(subresource);
  return kind && kind !== 'status' && kind !== 'approval' ? SUBRESOURCE_BEHAVIOURS[kind] : undefined;
}

/** The discovery verb a request needs (connect verbs are the HTTP verb). */
function requiredVerb(req: ResourceRequestInfo): string {
  return req.verb;
}

/**
 * Routes a resource request to its handler: checks that the group, version,
 * resource, scope, subresource and verb are served, then dispatches.
 */
export async function serveResource(ctx: RequestContext, req: ResourceRequestInfo, deps: ResourceDeps): Promise<void> {
  const info = deps.catalog.resource(req.group, req.version, req.resource);
  if (!info) throw resourceNotFound();
  if (!info.namespaced && req.namespace) throw resourceNotFound();
  if (info.namespaced && !req.namespace && req.name) throw resourceNotFound();

  const descriptor = deps.registry.descriptorFor(info);
  let verbs = info.verbs;
  if (req.subresource) {
    const sub = info.subresources.find((s) => s.name === req.subresource);
    if (!sub || req.rest.length > 0 && !sub.connect) throw resourceNotFound();
    verbs = sub.verbs;
    if (sub.name !== 'status' && descriptor.subresources.get(sub.name) !== 'approval' && !subresourceHandler(descriptor, sub.name)) {
      if (!verbs.includes(connectVerb(req))) throw methodNotAllowed();
      throw notImplemented(`the ${info.name}/${sub.name} subresource`);
    }
  }
  const verb = req.subresource ? connectVerb(req) : requiredVerb(req);
  if (!verbs.includes(verb)) throw methodNotAllowed();
  // POST creates in a collection; on an object's path there is no such route.
  if (verb === 'create' && req.name && !req.subresource) throw methodNotAllowed();
  if (info.namespaced && !req.namespace && (verb === 'create' || verb === 'deletecollection')) throw methodNotAllowed();
  noteDeprecation(ctx, req, info, descriptor, deps.deprecatedApis);
  if (verb === 'create' && !req.subresource && descriptor.lifecycle?.terminating) {
    // kube's crdHandler: no new instances while the CRD's cleanup runs.
    const err = methodNotSupported({ group: info.group, resource: info.name }, 'create');
    throw new ApiError({ ...err.status, message: 'create not allowed while custom resource definition is terminating' });
  }
  const scope = new ResourceScope(ctx, req, info, descriptor, deps.registry.storeFor(info));
  if (info.virtual) {
    if (verb === 'create' && descriptor.virtual) return virtualCreate(descriptor.virtual, scope, deps);
    throw notImplemented(`${info.group ? `${info.name}.${info.group}` : info.name}`);
  }
  const subHandler = req.subresource ? subresourceHandler(descriptor, req.subresource) : undefined;
  if (subHandler) return subHandler(scope, deps);

  switch (verb) {
    case 'get':
      return handleGet(scope);
    case 'list':
      return handleList(scope);
    case 'watch':
      return handleWatch(scope, deps.watchStreams, deps.featureGates.enabled('WatchList'));
    case 'create':
      return handleCreate(scope, deps.admission);
    case 'update':
      return handleUpdate(scope, deps.admission);
    case 'patch':
      return handlePatch(scope, deps.admission);
    case 'delete':
      return handleDelete(scope, deps.admission, deps.featureGates, deps.authorizer);
    case 'deletecollection':
      return handleDeleteCollection(scope, deps.admission, deps.featureGates);
    default:
      throw methodNotAllowed();
  }
}

/** For subresources, the HTTP method's verb (GET → get, POST → create, ...). */
function connectVerb(req: ResourceRequestInfo): string {
  if (req.verb === 'watch') return 'watch';
  if (req.verb === 'list') return 'get';
  return req.verb === 'connect' ? 'get' : req.verb;
}
