import { randomUUID } from 'node:crypto';
import { aggregateMessage } from '../machinery/errors.js';
import { HistogramVec } from '../machinery/histogram.js';
import { cloneObject, type KubeObject } from '../machinery/object.js';
import { validateAnnotations, validateLabels } from './validate-meta.js';
import type { ClientConfig, WebhookClients } from './webhook-client.js';

/**
 * A CRD's conversion webhook (apiextensions-apiserver's webhookConverter):
 * objects go out in one ConversionReview (v1, else v1beta1, as the CRD's
 * conversionReviewVersions list them first), the answer is checked as kube
 * checks it — its uid, the number of objects, each object's apiVersion and
 * kind, name, namespace and uid unchanged — and every object's metadata is
 * the original's except labels and annotations (restoreObjectMeta). Failures
 * are plain errors in kube's words; callers answer them as kube's 500.
 */

export interface ConversionWebhookSpec {
  /** The CRD's name, for the metric. */
  crdName: string;
  clientConfig: ClientConfig;
  conversionReviewVersions: readonly string[];
}

/** Where conversions are counted (kube's apiserver_crd_conversion_webhook_duration_seconds). */
export interface ConversionObserver {
  observe(crdName: string, fromVersion: string, toVersion: string, succeeded: boolean, seconds: number): void;
}

/** kube's apiserver_crd_conversion_webhook_duration_seconds, one per server (observability/ renders it). */
export class ConversionWebhookMetrics implements ConversionObserver {
  readonly duration = new HistogramVec(
    'apiserver_crd_conversion_webhook_duration_seconds',
    '[ALPHA] CRD webhook conversion duration in seconds',
    ['crd_name', 'from_version', 'to_version', 'succeeded'],
    // kube's ExponentialBuckets(0.001, 2, 15)
    Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i),
  );

  observe(crdName: string, fromVersion: string, toVersion: string, succeeded: boolean, seconds: number): void {
    if (fromVersion !== toVersion) this.duration.observe([crdName, fromVersion, toVersion, succeeded ? 'true' : 'false'], seconds);
  }
}

/** kube sets no per-call timeout (the request's own bounds it); calls here give up after the request timeout's 60 s. */
const CALL_TIMEOUT_SECONDS = 60;

/** The GroupVersionKind as kube prints it: `group/version, Kind=Kind`. */
function gvkString(apiVersion: string, kind: string): string {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
  return `${group}/${version}, Kind=${kind}`;
}

function versionOf(apiVersion: string): string {
  return apiVersion.slice(apiVersion.indexOf('/') + 1);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export class ConversionWebhook {
  constructor(
    private readonly spec: ConversionWebhookSpec,
    private readonly clients: Pick<WebhookClients, 'post'>,
    private readonly observer?: ConversionObserver,
  ) {}

  /**
   * The objects (all of one apiVersion) in `desiredApiVersion`. `list`:
   * the objects are a list's items (`listKind`), reported as kube reports a
   * list's conversion.
   */
  async convert(objects: readonly KubeObject[], desiredApiVersion: string, list?: { listKind: string }): Promise<KubeObject[]> {
    const toConvert = objects.filter((o) => o.apiVersion !== desiredApiVersion);
    if (toConvert.length === 0) return objects.map((o) => ({ ...o, apiVersion: desiredApiVersion }));
    const fromApiVersion = String(toConvert[0]!.apiVersion ?? '');
    const started = performance.now();
    let ok = false;
    try {
      const converted = await this.call(toConvert, desiredApiVersion, list ? gvkString(fromApiVersion, list.listKind) : gvkString(fromApiVersion, String(toConvert[0]!.kind ?? '')), list !== undefined);
      let next = 0;
      const out = objects.map((o) => (o.apiVersion === desiredApiVersion ? o : converted[next++]!));
      ok = true;
      return out;
    } finally {
      this.observer?.observe(this.spec.crdName, versionOf(fromApiVersion), versionOf(desiredApiVersion), ok, (performance.now() - started) / 1000);
    }
  }

  private async call(objects: KubeObject[], desiredApiVersion: string, gvk: string, isList: boolean): Promise<KubeObject[]> {
    const reviewVersion = this.spec.conversionReviewVersions.find((v) => v === 'v1' || v === 'v1beta1');
    if (!reviewVersion) throw new Error('no supported conversion review versions');
    const uid = randomUUID();
    const review = {
      kind: 'ConversionReview',
      apiVersion: `apiextensions.k8s.io/${reviewVersion}`,
      request: { uid, desiredAPIVersion: desiredApiVersion, objects },
      response: { uid: '', convertedObjects: null, result: { metadata: {} } },
    };
    let body: unknown;
    try {
      body = (await this.clients.post({ clientConfig: this.spec.clientConfig, timeoutSeconds: CALL_TIMEOUT_SECONDS, timeoutInUrl: false }, review)).body;
    } catch (err) {
      throw new Error(`conversion webhook for ${gvk} failed: ${(err as Error).message}`);
    }
    let convertedObjects: unknown[];
    try {
      convertedObjects = convertedObjectsOf(body, reviewVersion, uid);
    } catch (err) {
      throw new Error(`conversion webhook for ${gvk} failed: ${(err as Error).message}`);
    }
    if (convertedObjects.length !== objects.length) throw new Error(`conversion webhook for ${gvk} returned ${convertedObjects.length} objects, expected ${objects.length}`);
    return objects.map((original, i) => {
      const converted = convertedObjects[i];
      // kube's list path counts the index up before its version and kind checks; the single-object path says 0.
      const at = isList ? `invalid converted object at index ${i + 1}` : 'invalid object at index 0';
      if (!isObject(converted)) throw new Error(isList ? `conversion webhook for ${gvk} returned invalid converted object at index ${i}: Object 'Kind' is missing in '${JSON.stringify(converted)}'` : `Object 'Kind' is missing in '${JSON.stringify(converted)}'`);
      // apiVersion is schema.GroupVersion's String() form already
      const got = typeof converted.apiVersion === 'string' ? converted.apiVersion : '';
      if (got !== desiredApiVersion) throw new Error(`conversion webhook for ${gvk} returned ${at}: invalid groupVersion (expected ${desiredApiVersion}, received ${got})`);
      if (converted.kind !== original.kind) throw new Error(`conversion webhook for ${gvk} returned ${at}: invalid kind (expected ${String(original.kind ?? '')}, received ${String(converted.kind ?? '')})`);
      const invalid = invalidConversion(original, converted as KubeObject);
      if (invalid) throw new Error(isList ? `conversion webhook for ${gvk} returned invalid converted object at index ${i + 1}: ${invalid}` : `conversion webhook for ${gvk} returned invalid object: ${invalid}`);
      const restored = restoreObjectMeta(original, converted as KubeObject);
      if (typeof restored === 'string') throw new Error(isList ? `conversion webhook for ${gvk} returned invalid metadata in object at index ${i + 1}: ${restored}` : `conversion webhook for ${gvk} returned invalid metadata: ${restored}`);
      return restored;
    });
  }
}

/** The answer's convertedObjects, after kube's getConvertedObjectsFromResponse checks. */
function convertedObjectsOf(body: unknown, reviewVersion: string, uid: string): unknown[] {
  const review = isObject(body) ? body : {};
  if (reviewVersion === 'v1') {
    const gvk = gvkString(typeof review.apiVersion === 'string' ? review.apiVersion : '', typeof review.kind === 'string' ? review.kind : '');
    const want = 'apiextensions.k8s.io/v1, Kind=ConversionReview';
    if (gvk !== want) throw new Error(`expected webhook response of ${want}, got ${gvk}`);
  }
  const response = review.response;
  if (!isObject(response)) throw new Error('no response provided');
  // v1beta1 answers were never checked for their uid; kube keeps it so
  if (reviewVersion === 'v1' && response.uid !== uid) throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(typeof response.uid === 'string' ? response.uid : '')}`);
  const result = isObject(response.result) ? response.result : {};
  if (result.status !== 'Success') {
    if (typeof result.message === 'string' && result.message.length > 0) throw new Error(result.message);
    throw new Error(`response.result.status was '${typeof result.status === 'string' ? result.status : ''}', not 'Success'`);
  }
  return Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
}

/** kube's validateConvertedObject: kind, name, namespace and uid unchanged. */
function invalidConversion(original: KubeObject, converted: KubeObject): string | undefined {
  const a = original.metadata ?? {};
  const b = (isObject(converted.metadata) ? converted.metadata : {}) as Record<string, unknown>;
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  if (str(original.kind) !== str(converted.kind)) return `must have the same kind: ${str(original.kind)} != ${str(converted.kind)}`;
  if (str(a.name) !== str(b.name)) return `must have the same name: ${str(a.name)} != ${str(b.name)}`;
  if (str(a.namespace) !== str(b.namespace)) return `must have the same namespace: ${str(a.namespace)} != ${str(b.namespace)}`;
  if (str(a.uid) !== str(b.uid)) return `must have the same UID: ${str(a.uid)} != ${str(b.uid)}`;
  return undefined;
}

/** Go's %T of a decoded JSON value. */
function goType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  if (v === null) return '<nil>';
  return 'map[string]interface {}';
}

/**
 * kube's restoreObjectMeta: the converted object gets the original's
 * metadata, with the labels and annotations the webhook returned (validated
 * when they changed). A string is the error.
 */
function restoreObjectMeta(original: KubeObject, converted: KubeObject): KubeObject | string {
  if (!('metadata' in converted)) return 'missing metadata in converted object';
  const response = converted.metadata as unknown;
  if (!isObject(response)) return `invalid metadata of type ${goType(response)} in converted object`;
  const meta = (original.metadata ? cloneObject({ metadata: original.metadata } as KubeObject).metadata : {}) as Record<string, unknown>;
  for (const field of ['labels', 'annotations'] as const) {
    const returned = response[field];
    if (returned === undefined || returned === null) {
      delete meta[field];
      continue;
    }
    if (!isObject(returned)) return `invalid metadata.${field} of type ${goType(returned)} in converted object`;
    const before = (meta[field] ?? {}) as Record<string, unknown>;
    let changed = Object.keys(before).length !== Object.keys(returned).length;
    for (const [k, v] of Object.entries(returned)) {
      if (typeof v !== 'string') return `metadata.${field}[${k}] must be a string, but is ${goType(v)} in converted object`;
      if (before[k] !== v) changed = true;
    }
    if (changed) {
      const errs = field === 'labels' ? validateLabels(returned, 'metadata.labels') : validateAnnotations(returned, 'metadata.annotation');
      if (errs.length > 0) return aggregateMessage(errs);
    }
    meta[field] = returned;
  }
  return { ...converted, metadata: meta } as KubeObject;
}
