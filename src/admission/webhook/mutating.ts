import { internalError } from '../../machinery/errors.js';
import { cloneObject, type KubeObject } from '../../machinery/object.js';
import { applyJsonPatch } from '../../patch/json-patch.js';
import type { ResourceInfo } from '../../api/types.js';
import { loadDefinitions } from '../../api/definitions.js';
import { fieldTypeFor, goDecodeError, pruneUnknownFields } from '../../validation/fields/index.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../admission.js';
import type { MatchedVersion } from '../matching/admission-request.js';
import { convertForMatch } from '../matching/equivalents.js';
import { VersionedObjects, type AdmissionMatcher } from '../matching/matcher.js';
import { isExemptAdmissionConfigurationResource } from '../matching/rules.js';
import { callHook, CallingWebhookError, settleFailure, shouldCallHook, WebhookPluginBase } from './call.js';
import type { WebhookClients } from './client.js';
import type { WebhookSource } from './source.js';
import type { Webhook } from './configuration.js';

/**
 * MutatingAdmissionWebhook (kube's mutating dispatcher): webhooks in order,
 * each one's JSONPatch applied to the object before the next is called. A
 * webhook that changed the object asks the chain for a second pass, in which
 * only the webhooks with reinvocationPolicy IfNeeded that ran before the
 * change are called again.
 */

export const MUTATING_PLUGIN_NAME = 'MutatingAdmissionWebhook';

const PATCH_ANNOTATION_PREFIX = 'patch.webhook.admission.k8s.io/';
const MUTATION_ANNOTATION_PREFIX = 'mutation.webhook.admission.k8s.io/';
const FAILED_OPEN_ANNOTATION_PREFIX = `failed-open.${MUTATION_ANNOTATION_PREFIX}`;

/** kube's webhookReinvokeContext, kept in the request's ReinvocationContext between the passes. */
class ReinvokeState {
  lastOutput: string | undefined;
  previouslyInvoked = new Set<string>();
  reinvoke = new Set<string>();

  requireReinvokingPreviouslyInvoked(): void {
    for (const uid of this.previouslyInvoked) this.reinvoke.add(uid);
    this.previouslyInvoked.clear();
  }
}

/** kube's object defaulter for a decoded object of a served version: scheme defaults, canonical quantities (in place). */
export type ObjectDefaulter = (info: ResourceInfo, obj: KubeObject) => void;

export class MutatingWebhookPlugin extends WebhookPluginBase implements AdmissionPlugin {
  readonly name = MUTATING_PLUGIN_NAME;

  constructor(source: WebhookSource, matcher: AdmissionMatcher, clients: WebhookClients, shutdown: AbortSignal, private readonly defaulter?: ObjectDefaulter) {
    super(source, matcher, clients, shutdown);
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (isExemptAdmissionConfigurationResource(attrs)) return;
    const hooks = this.source.webhooks();
    if (hooks.length === 0) return;
    const ctx = attrs.reinvocation;
    let state = ctx?.values.get(MUTATING_PLUGIN_NAME) as ReinvokeState | undefined;
    if (!state) {
      state = new ReinvokeState();
      ctx?.values.set(MUTATING_PLUGIN_NAME, state);
    }
    const isReinvoke = ctx?.isReinvoke ?? false;
    // in-tree plugins changed the object since the webhooks last ran: the IfNeeded ones see it again
    if (isReinvoke && state.lastOutput !== snapshot(attrs.object)) state.requireReinvokingPreviouslyInvoked();
    try {
      const versioned = new VersionedObjects(attrs);
      for (const [i, hook] of hooks.entries()) {
        const version = await shouldCallHook(hook, attrs, this.matcher, versioned);
        if (!version) continue;
        if (isReinvoke && !state.reinvoke.has(hook.uid)) continue;
        const changed = await this.call(hook, attrs, version, isReinvoke ? 1 : 0, i);
        if (changed) {
          versioned.refresh();
          state.requireReinvokingPreviouslyInvoked();
          if (ctx) ctx.shouldReinvoke = true;
        }
        if (hook.reinvocationPolicy === 'IfNeeded') state.previouslyInvoked.add(hook.uid);
      }
    } finally {
      state.lastOutput = snapshot(attrs.object);
    }
  }

  /** Calls one webhook and applies its patch; true when the object changed. Throws what fails the request. */
  private async call(hook: Webhook, attrs: AdmissionAttributes, version: MatchedVersion, round: number, index: number): Promise<boolean> {
    const started = performance.now();
    const seconds = (): number => (performance.now() - started) / 1000;
    let changed = false;
    try {
      const response = await callHook(hook, attrs, version, this.clients, true);
      if (response.patch !== undefined) changed = this.applyPatch(hook, attrs, version, response.patch, response.patchType, round, index);
      this.clients.metrics.observe(hook.name, 'admit', attrs.operation, seconds(), false, 200);
      return changed;
    } catch (err) {
      const failure = settleFailure(err, hook, 'admit', attrs.operation, seconds(), this.clients.metrics);
      if (failure) throw failure;
      attrs.addAuditAnnotation?.(`${FAILED_OPEN_ANNOTATION_PREFIX}round_${round}_index_${index}`, hook.name);
      return false;
    } finally {
      attrs.addAuditAnnotation?.(`${MUTATION_ANNOTATION_PREFIX}round_${round}_index_${index}`, JSON.stringify({ configuration: hook.configurationName, webhook: hook.name, mutated: changed }));
    }
  }

  private applyPatch(hook: Webhook, attrs: AdmissionAttributes, version: MatchedVersion, patch: string, patchType: string | undefined, round: number, index: number): boolean {
    let operations: unknown;
    try {
      operations = JSON.parse(Buffer.from(patch, 'base64').toString('utf8'));
    } catch (e) {
      throw new CallingWebhookError(hook.name, `received undecodable patch in webhook response: ${(e as Error).message}`, 503);
    }
    if (!Array.isArray(operations)) throw new CallingWebhookError(hook.name, 'received undecodable patch in webhook response: json: cannot unmarshal object into Go value of type jsonpatch.Patch', 503);
    if (operations.length === 0) return false;
    const object = version.object;
    if (!object || !attrs.object) throw internalError(`admission webhook ${JSON.stringify(hook.name)} attempted to modify the object, which is not supported for this operation`);
    if (patchType !== 'JSONPatch') throw new CallingWebhookError(hook.name, `unsupported patch type ${JSON.stringify(patchType ?? '')}`, 400);
    let patched: unknown;
    try {
      patched = applyJsonPatch(cloneObject(object), JSON.stringify(operations));
    } catch (e) {
      throw internalError(e);
    }
    const decoded = decodePatched(patched, object, version.resource, attrs.subresource);
    const before = JSON.stringify(object);
    const changed = JSON.stringify(decoded) !== before;
    // kube defaults the patched object after comparing it (a webhook removing a defaulted field is a change)
    if (this.defaulter && (!attrs.subresource || version.kind.kind === version.resource.kind)) this.defaulter(version.resource, decoded);
    attrs.addAuditAnnotation?.(`${PATCH_ANNOTATION_PREFIX}round_${round}_index_${index}`, JSON.stringify({ configuration: hook.configurationName, webhook: hook.name, patch: operations, patchType: 'JSONPatch' }));
    if (changed) replaceContents(attrs.object, convertForMatch(decoded, version.resource, attrs.resource, attrs.subresource));
    return changed;
  }
}

/**
 * The patched object as kube decodes it into the versioned type: still an
 * object of the same kind, every value of its Go type (else an internal
 * error with the decoder's text), fields the type does not have dropped.
 * Custom resources decode as unstructured objects: nothing is checked here.
 */
function decodePatched(patched: unknown, original: KubeObject, resource: ResourceInfo, subresource: string): KubeObject {
  if (patched === null || typeof patched !== 'object' || Array.isArray(patched)) throw internalError('couldn\'t get version/kind; json parse error: the patched object is not a JSON object');
  const obj = patched as KubeObject;
  if (obj.apiVersion !== original.apiVersion || obj.kind !== original.kind) {
    throw internalError(`the patched object's apiVersion/kind ${String(obj.apiVersion)}/${String(obj.kind)} is not ${String(original.apiVersion)}/${String(original.kind)}`);
  }
  const sub = subresource ? resource.subresources.find((s) => s.name === subresource) : undefined;
  const definition = sub && sub.kind !== resource.kind ? sub.definition : resource.definition;
  const type = definition ? fieldTypeFor(loadDefinitions(), definition) : undefined;
  if (!type || !definition) return obj;
  const error = goDecodeError(JSON.stringify(obj), definition);
  if (error !== undefined) throw internalError(error);
  return pruneUnknownFields(obj, type) as KubeObject;
}

/**
 * The request's handlers keep a reference to the object they gave admission:
 * the patched object replaces its contents in place.
 */
function replaceContents(target: KubeObject, source: KubeObject): void {
  const t = target as Record<string, unknown>;
  for (const k of Object.keys(t)) if (!(k in source)) delete t[k];
  Object.assign(t, source);
}

function snapshot(obj: KubeObject | undefined): string | undefined {
  return obj === undefined ? undefined : JSON.stringify(obj);
}

