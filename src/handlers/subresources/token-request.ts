import type { AdmissionChain } from '../../admission/admission.js';
import type { ServiceAccountTokenIssuer, BoundObjects } from '../../authn/service-account-issuer.js';
import { isPlainObject } from '../../codec/codec.js';
import { readObjectBody } from '../../http/body.js';
import { writeEncoded } from '../../http/respond.js';
import { badRequest, conflict, invalid, isApiError, type FieldError } from '../../machinery/errors.js';
import { nowTimestamp, type KubeObject } from '../../machinery/object.js';
import type { ResourceStore } from '../../registry/resource-store.js';
import { checkBodyObject, createOptions, parseWriteOptions } from '../create.js';
import type { ResourceScope } from '../scope.js';

/**
 * serviceaccounts/<name>/token (kube's TokenREST): a TokenRequest
 * (authentication.k8s.io/v1) answered with a signed token for the
 * ServiceAccount, for the requested audiences (default --api-audiences) and
 * lifetime (default 1 h, at least 10 min, at most 2^32 s, shortened to
 * --service-account-max-token-expiration), optionally bound to a Pod,
 * Secret or Node whose uid goes into the token. Nothing is stored.
 */

export interface TokenRequestSettings {
  /** --api-audiences (the default audiences of a token). */
  audiences: readonly string[];
  /** --service-account-max-token-expiration in seconds; 0: no bound. */
  maxExpirationSeconds: number;
  /** --service-account-extend-token-expiration. */
  extendExpiration: boolean;
}

export interface TokenRequestDeps {
  issuer: ServiceAccountTokenIssuer;
  settings: TokenRequestSettings;
  pods: ResourceStore;
  secrets: ResourceStore;
  nodes: ResourceStore;
}

const GROUP_KIND = { group: 'authentication.k8s.io', kind: 'TokenRequest' };
const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;
/** What admission asks for pods' projected tokens; kube extends such tokens (warning only after the hour). */
const WARN_ONLY_EXPIRATION_SECONDS = 3607;
const EXTENDED_EXPIRATION_SECONDS = 24 * 365 * 3600;

interface BoundObjectRef {
  kind?: unknown;
  apiVersion?: unknown;
  name?: unknown;
  uid?: unknown;
}

export async function handleTokenRequest(scope: ResourceScope, deps: TokenRequestDeps, admission: AdmissionChain): Promise<void> {
  const { ctx } = scope;
  const neg = scope.negotiate({ table: false });
  const opts = parseWriteOptions(scope, 'CreateOptions');
  const request = checkBodyObject(scope, await readObjectBody(ctx, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest' }), 'TokenRequest', 'authentication.k8s.io', 'v1');
  const spec = (isPlainObject(request.spec) ? { ...request.spec } : {}) as { audiences?: unknown; expirationSeconds?: unknown; boundObjectRef?: unknown };
  // SetDefaults_TokenRequestSpec.
  if (spec.expirationSeconds === undefined || spec.expirationSeconds === null) spec.expirationSeconds = DEFAULT_EXPIRATION_SECONDS;
  const admitted = { operation: 'CREATE' as const, subresource: 'token', object: request, options: createOptions(opts), dryRun: opts.dryRun };
  await scope.admitMutating(admission, admitted);

  // TokenREST.Create's order: the names, the ServiceAccount, defaults, validation, validating admission, the bound object.
  const name = scope.name;
  const meta = request.metadata ?? {};
  if (meta.name && meta.name !== name) throw invalid(GROUP_KIND, name, [{ type: 'FieldValueInvalid', field: 'metadata.name', value: meta.name, detail: 'must match the service account name if specified' }]);
  if (meta.namespace && meta.namespace !== scope.namespace) {
    throw invalid(GROUP_KIND, name, [{ type: 'FieldValueInvalid', field: 'metadata.namespace', value: meta.namespace, detail: 'must match the service account namespace if specified' }]);
  }
  const sa = await scope.store.get(scope.namespace, name);
  const saUid = sa.metadata?.uid ?? '';
  if (meta.uid && meta.uid !== saUid) {
    ctx.warnings.push(`the UID in the token request (${meta.uid}) does not match the UID of the service account (${saUid}) but TokenRequestServiceAccountUIDValidation is not enabled. In the future, this will return a conflict error`);
  }

  const errs: FieldError[] = [];
  const requested = typeof spec.expirationSeconds === 'number' && Number.isInteger(spec.expirationSeconds) ? spec.expirationSeconds : NaN;
  if (Number.isNaN(requested)) throw badRequest('spec.expirationSeconds must be an integer');
  if (requested < MIN_EXPIRATION_SECONDS) errs.push({ type: 'FieldValueInvalid', field: 'spec.expirationSeconds', value: requested, detail: 'may not specify a duration less than 10 minutes' });
  if (requested > MAX_EXPIRATION_SECONDS) errs.push({ type: 'FieldValueInvalid', field: 'spec.expirationSeconds', value: requested, detail: 'may not specify a duration larger than 2^32 seconds' });
  if (errs.length > 0) throw invalid(GROUP_KIND, '', errs);
  await scope.admitValidating(admission, admitted);

  const bound: BoundObjects = {};
  const ref = isPlainObject(spec.boundObjectRef) ? (spec.boundObjectRef as BoundObjectRef) : undefined;
  if (ref) {
    const kind = typeof ref.kind === 'string' ? ref.kind : '';
    const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
    const refName = typeof ref.name === 'string' ? ref.name : '';
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    let uid: string | undefined;
    if (group === '' && kind === 'Pod') {
      const pod = await deps.pods.get(scope.namespace, refName);
      const podSa = (pod.spec as { serviceAccountName?: string } | undefined)?.serviceAccountName ?? '';
      if (podSa !== name) throw badRequest(`cannot bind token for serviceaccount "${name}" to pod running with different serviceaccount name.`);
      bound.pod = pod;
      uid = pod.metadata?.uid;
      // The pod's node goes into the token too; a node that does not exist (any more) by its name alone.
      const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
      if (nodeName) bound.node = (await optional(deps.nodes.get(undefined, nodeName, { kind: 'any' }))) ?? { metadata: { name: nodeName } };
    } else if (group === '' && kind === 'Secret') {
      bound.secret = await deps.secrets.get(scope.namespace, refName);
      uid = bound.secret.metadata?.uid;
    } else if (group === '' && kind === 'Node') {
      bound.node = await deps.nodes.get(undefined, refName);
      uid = bound.node.metadata?.uid;
    } else {
      const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
      throw badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${kind}`);
    }
    if (typeof ref.uid === 'string' && ref.uid !== '' && ref.uid !== uid) {
      throw conflict({ group, resource: kind }, refName, `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
  }

  const audiences = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? spec.audiences.filter((a): a is string => typeof a === 'string') : [...deps.settings.audiences];
  let expirationSeconds = requested;
  const max = deps.settings.maxExpirationSeconds;
  if (max > 0 && expirationSeconds > max) {
    ctx.warnings.push(`requested expiration of ${expirationSeconds} seconds shortened to ${max} seconds`);
    expirationSeconds = max;
  }
  // A pod's admission-requested token lives a year but is reported as its hour (warnafter), as kube does.
  let lifetime = expirationSeconds;
  let warnAfter = 0;
  if (deps.settings.extendExpiration && bound.pod && expirationSeconds === WARN_ONLY_EXPIRATION_SECONDS && audiences.every((a) => deps.settings.audiences.includes(a))) {
    warnAfter = expirationSeconds;
    lifetime = EXTENDED_EXPIRATION_SECONDS;
  }
  const created = nowTimestamp();
  const { token } = await deps.issuer.boundToken(sa, bound, lifetime, warnAfter, audiences);
  const answer: KubeObject = {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { ...meta, name: meta.name || name, namespace: meta.namespace || scope.namespace, uid: meta.uid || saUid, creationTimestamp: created },
    spec: { audiences, expirationSeconds, boundObjectRef: ref ?? null },
    status: { token, expirationTimestamp: new Date(Date.parse(created) + expirationSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') },
  };
  writeEncoded(ctx, 201, answer, neg.encoding, neg.contentType);
}

async function optional(p: Promise<KubeObject>): Promise<KubeObject | undefined> {
  try {
    return await p;
  } catch (err) {
    if (isApiError(err, 'NotFound')) return undefined;
    throw err;
  }
}
