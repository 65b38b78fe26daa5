import type { AdmissionAttributes, AdmissionChain } from '../admission/admission.js';
import type { ResourceInfo } from '../api/types.js';
import type { ServedType } from '../codec/cached-encoding.js';
import { negotiate, type Negotiated } from '../codec/negotiate.js';
import { supportsProtobuf } from '../codec/protobuf/index.js';
import { apiVersionOf } from '../machinery/object.js';
import type { ResourceDescriptor } from '../registry/descriptor.js';
import type { KubeObject } from '../machinery/object.js';
import type { ResourceStore, UpdateMode, ValidateAdmission } from '../registry/resource-store.js';
import { internalError, type GroupKind, type GroupResource } from '../machinery/errors.js';
import type { RequestContext, UserInfo } from '../machinery/context.js';
import type { ResourceRequestInfo } from '../machinery/request-info.js';

/** What an admission call says itself; the rest comes from the request (ResourceScope.admit). */
export type AdmitAttributes = Omit<AdmissionAttributes, 'resource' | 'namespace' | 'name' | 'subresource' | 'user' | 'addWarning' | 'addAuditAnnotation' | 'onWriteFailed'> &
  Partial<Pick<AdmissionAttributes, 'namespace' | 'name' | 'subresource'>>;

/**
 * What a resource handler works on: the served resource (group, version,
 * kind), its descriptor (every per-type behaviour a handler needs), the
 * store of its storage, and where in it the request points.
 */
export class ResourceScope {
  constructor(
    readonly ctx: RequestContext,
    readonly request: ResourceRequestInfo,
    readonly info: ResourceInfo,
    readonly descriptor: ResourceDescriptor,
    readonly store: ResourceStore,
  ) {}

  get namespace(): string {
    return this.request.namespace;
  }

  get name(): string {
    return this.request.name;
  }

  get subresource(): string {
    return this.request.subresource;
  }

  /** How an update, patch or apply on this endpoint writes: the main resource, its status, or a CSR's approval. */
  get writeMode(): Exclude<UpdateMode, 'internal'> {
    const kind = this.subresource ? this.descriptor.subresources.get(this.subresource) : undefined;
    return kind === 'status' || kind === 'approval' ? kind : '';
  }

  get groupResource(): GroupResource {
    return { group: this.info.group, resource: this.info.name };
  }

  get groupKind(): GroupKind {
    return { group: this.info.group, kind: this.info.kind };
  }

  /** The endpoint's apiVersion/kind, e.g. for protobuf envelopes without type meta. */
  get typeInfo(): { apiVersion: string; kind: string } {
    return { apiVersion: this.requestVersion, kind: this.info.kind };
  }

  /** The API version the request came through (`v1`, `events.k8s.io/v1`). */
  get requestVersion(): string {
    return apiVersionOf(this.info.group, this.info.version);
  }

  /** What the type's write rules may know of the request: its API version and user. */
  get writeContext(): { requestVersion: string; user?: UserInfo } {
    return { requestVersion: this.requestVersion, ...(this.ctx.user ? { user: this.ctx.user } : {}) };
  }

  /**
   * The response encoding and view for this request's Accept header. Lists
   * offer PartialObjectMetadataList, single objects PartialObjectMetadata;
   * types without metadata offer neither, nor Table.
   */
  negotiate(opts: { list?: boolean; table?: boolean } = {}): Negotiated {
    const isObject = this.info.isObject;
    return negotiate(this.ctx.header('accept'), {
      table: (opts.table ?? true) && isObject,
      metadataAs: isObject ? (opts.list ? 'PartialObjectMetadataList' : 'PartialObjectMetadata') : undefined,
      protobuf: supportsProtobuf(this.typeInfo.apiVersion, this.info.kind),
      cbor: this.ctx.cbor,
    });
  }

  /** The served type, for encoders that cache bytes per served version. */
  get served(): ServedType {
    return (this.servedType ??= { ...this.typeInfo, toServed: (o) => this.toServed(o) });
  }

  private servedType: ServedType | undefined;

  /** Undoes of admission side effects for the write in progress (AdmissionAttributes.onWriteFailed). */
  private admissionUndos: Array<() => Promise<void>> = [];

  /**
   * Runs the storage write of this request; when it fails, undoes what
   * validating admission did for it (quota charged).
   */
  async landed<T>(write: () => Promise<T>): Promise<T> {
    try {
      const result = await write();
      this.admissionUndos = [];
      return result;
    } catch (err) {
      await this.undoAdmission();
      throw err;
    }
  }

  private async undoAdmission(): Promise<void> {
    const undos = this.admissionUndos;
    this.admissionUndos = [];
    await Promise.all(undos.map((u) => u()));
  }

  /**
   * Runs both admission phases for this request: the resource, namespace,
   * name, subresource and user come from the request unless the call names
   * them. For writes whose strategy runs between the phases, see
   * admitMutating and validatingAdmission.
   */
  admit(admission: AdmissionChain, attrs: AdmitAttributes): Promise<void> {
    return admission.run(this.admissionAttributes(attrs));
  }

  /** The mutating phase, before the registry's strategy. */
  admitMutating(admission: AdmissionChain, attrs: AdmitAttributes): Promise<void> {
    return admission.admit(this.admissionAttributes(attrs));
  }

  /**
   * The validating phase on objects the caller shapes itself (a subresource
   * whose body is another kind: Scale, Eviction, Binding), where kube's
   * registry calls createValidation / updateValidation.
   */
  admitValidating(admission: AdmissionChain, attrs: AdmitAttributes): Promise<void> {
    return admission.validate(this.admissionAttributes(attrs));
  }

  /**
   * The validating phase as the registry calls it, on the fully formed object
   * in its storage version (kube's createValidation / updateValidation).
   */
  validatingAdmission(admission: AdmissionChain, attrs: Omit<AdmitAttributes, 'operation' | 'object' | 'oldObject' | 'name'>): ValidateAdmission {
    return async (obj, old) => {
      // The registry validates again only when the previous attempt's write did not land.
      await this.undoAdmission();
      await admission.validate(
        this.admissionAttributes({
          ...attrs,
          operation: old ? 'UPDATE' : 'CREATE',
          name: obj.metadata?.name ?? this.name,
          object: await this.servedOne(obj),
          ...(old ? { oldObject: await this.servedOne(old) } : {}),
        }),
      );
    };
  }

  /** The validating phase of a delete, on the object about to be deleted (kube's deleteValidation). */
  deleteValidation(admission: AdmissionChain, attrs: Omit<AdmitAttributes, 'operation' | 'object' | 'oldObject'>): (current: KubeObject) => Promise<void> {
    return async (current) => admission.validate(this.admissionAttributes({ ...attrs, operation: 'DELETE', oldObject: await this.servedOne(current) }));
  }

  private admissionAttributes(attrs: AdmitAttributes): AdmissionAttributes {
    const ctx = this.ctx;
    const out: AdmissionAttributes = {
      resource: this.info,
      namespace: this.namespace,
      name: this.name,
      subresource: this.subresource,
      ...attrs,
      ...(ctx.user ? { user: ctx.user } : {}),
      addWarning: (text) => ctx.warnings.push(text),
      addAuditAnnotation: (key, value) => {
        if (!ctx.auditAnnotations.has(key)) ctx.auditAnnotations.set(key, value);
      },
    };
    // Not enumerable: a copy of the attributes ({...attrs}) is data; the hook stays with this request.
    Object.defineProperty(out, 'onWriteFailed', { value: (undo: () => Promise<void>) => this.admissionUndos.push(undo), enumerable: false });
    return out;
  }

  /** What decoding a request does in kube: the served version's defaults and canonical quantities, in place. */
  applyDefaults(obj: KubeObject): void {
    this.descriptor.defaults(this.info, obj);
    this.canonicalize(obj);
  }

  /** Quantities in canonical form, in place: what decoding into Go types does to any body. */
  canonicalize(obj: KubeObject): void {
    this.descriptor.canonicalize(this.info, obj);
  }

  /**
   * Whether this version's objects convert through a call that may fail (a
   * CRD's conversion webhook, for versions other than the storage version):
   * handlers then convert with servedAll/storageOf before encoding, and skip
   * the cache's per-version encodings.
   */
  get convertsAsync(): boolean {
    return this.descriptor.asyncConversion !== undefined && this.info.version !== this.info.storage.version;
  }

  /** A stored object as this version, where the conversion is synchronous (see convertsAsync). */
  toServed(obj: KubeObject): KubeObject {
    if (this.convertsAsync) throw internalError(`${this.info.name}.${this.info.group}/${this.info.version} converts through its conversion webhook`);
    return this.descriptor.toServed(obj, this.info);
  }

  toStorage(obj: KubeObject): KubeObject {
    if (this.convertsAsync) throw internalError(`${this.info.name}.${this.info.group}/${this.info.version} converts through its conversion webhook`);
    return this.descriptor.toStorage(obj, this.info);
  }

  /**
   * Stored objects as this version: through the conversion webhook in one
   * ConversionReview (`list`: a list's items, as kube converts a list) when
   * the version needs it; a failure is kube's 500 InternalError.
   */
  async servedAll(objs: readonly KubeObject[], list = false): Promise<KubeObject[]> {
    const conversion = this.descriptor.asyncConversion;
    if (!conversion || !this.convertsAsync) return objs.map((o) => this.descriptor.toServed(o, this.info));
    try {
      return await conversion.toServed(objs, this.info, list);
    } catch (err) {
      throw internalError(err);
    }
  }

  async servedOne(obj: KubeObject): Promise<KubeObject> {
    return (await this.servedAll([obj]))[0]!;
  }

  /** A request's object in the storage version (see servedAll). */
  async storageOf(obj: KubeObject): Promise<KubeObject> {
    const conversion = this.descriptor.asyncConversion;
    if (!conversion || !this.convertsAsync) return this.descriptor.toStorage(obj, this.info);
    try {
      return await conversion.toStorage(obj, this.info);
    } catch (err) {
      throw internalError(err);
    }
  }
}
