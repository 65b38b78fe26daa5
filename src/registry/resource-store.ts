import { randomUUID } from 'node:crypto';
import type { KeyValue, Store } from '../storage/store.js';
import { isStoreError } from '../storage/store.js';
import { ApiError, alreadyExists, conflict, invalid, notFound, type FieldError, type GroupResource } from '../machinery/errors.js';
import { DEFAULT_WATCH_CACHE_OPTIONS, WatchCache, type WatchCacheOptions } from '../cache/watch-cache.js';
import { ResourceReader, type ListRequest, type ListResult, type ReaderWatch, type WatchRequest, type WatchSink } from '../cache/resource-reader.js';
import type { ReadAt } from '../cache/read-semantics.js';
import type { CachedObject } from '../codec/cached-object.js';
import { cloneObject, jsonEqual, metaOf, nowTimestamp, type KubeObject, type ObjectMeta } from '../machinery/object.js';
import type { Strategy, ValidationContext } from './strategy.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './validate-meta.js';
import { CorruptObjectError, corruptListError, decodeStoredObject } from '../storage/stored-object.js';
import { FeatureGates } from '../machinery/feature-gates.js';
import type { CreateOptions, StatusStrategy, StoreHooks } from './descriptor.js';
import { approvalUpdate } from './csr-approval.js';
import { deletionFinalizers } from './gc-finalizers.js';
import { stringifyJson } from '../machinery/deep-json.js';

/**
 * The generic registry of one resource (kube-apiserver's genericregistry.Store):
 * create / get / list / update / delete / watch over the MVCC store, with
 * kube's metadata rules, optimistic concurrency, finalizers and graceful
 * deletion. Reads are served by the resource's watch cache (cache/), writes
 * go to the store. It works on objects in their storage version; conversion
 * to the requested version is the handler's job.
 */

/** What the generic store needs to know of the resource it stores (from its ResourceDescriptor). */
export interface StoredResource {
  group: string;
  resource: string;
  /** Kind in the storage version, for Invalid errors. */
  kind: string;
  namespaced: boolean;
  /** Storage key prefix, with trailing slash. */
  prefix: string;
  /** Field-selector values of an object. */
  fields: (obj: KubeObject) => Record<string, string>;
}

function validationContext(requestVersion: string | undefined): ValidationContext {
  return requestVersion ? { requestVersion } : {};
}

export type UpdateMode = '' | 'status' | 'approval' | 'internal';

export interface UpdateOptions {
  dryRun?: boolean;
  /**
   * `status` writes only status; '' writes everything but status (when split);
   * `approval` only a CertificateSigningRequest's conditions (and metadata);
   * `internal` is a trusted server-side write of the whole object.
   */
  subresource?: UpdateMode;
  /** Server-side changes to system fields (e.g. deletionTimestamp), applied after the client's. */
  mutateSystemFields?: (next: KubeObject) => void;
  /** Name from the URL, used when the update creates the object. */
  name: string;
  /** Create when missing even where the type does not allow it on PUT (server-side apply). */
  forceAllowCreate?: boolean;
  validate?: ValidateAdmission;
  /** Receives the warnings of the type's update rules (the request's Warning headers). */
  warn?: (text: string) => void;
  /** The API version the request came through (type rules that differ by it: events). */
  requestVersion?: string;
}

/**
 * Validating admission as the registry runs it (kube's createValidation /
 * updateValidation): on the fully formed object, after the strategy, right
 * before the write; `old` is the stored object on updates. Throws to refuse.
 */
export type ValidateAdmission = (obj: KubeObject, old: KubeObject | undefined) => Promise<void>;

/** Computes the desired object from the current one (undefined when absent). May throw ApiError. */
export type UpdateFunc = (current: KubeObject | undefined) => KubeObject | Promise<KubeObject>;

export interface UpdateResult {
  object: KubeObject;
  created: boolean;
}

export interface DeleteOptions {
  dryRun?: boolean;
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: string;
  /** The legacy form of propagationPolicy (true: Orphan, false: Background). */
  orphanDependents?: boolean;
  /** Validating admission on the object about to be deleted, after the preconditions (kube's deleteValidation). */
  validate?: (current: KubeObject) => Promise<void>;
}

export interface DeleteResult {
  object: KubeObject;
  /** True when the object is gone from storage, false when it is Terminating. */
  deleted: boolean;
}

const GENERATE_NAME_ATTEMPTS = 8;
const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const GENERATE_SUFFIX_LENGTH = 5;
const MAX_GENERATED_NAME_BASE = 63 - GENERATE_SUFFIX_LENGTH;
const UPDATE_RETRIES = 16;

export function generateName(base: string): string {
  const b = base.length > MAX_GENERATED_NAME_BASE ? base.slice(0, MAX_GENERATED_NAME_BASE) : base;
  let suffix = '';
  for (let i = 0; i < GENERATE_SUFFIX_LENGTH; i++) suffix += GENERATE_ALPHABET[Math.floor(Math.random() * GENERATE_ALPHABET.length)];
  return b + suffix;
}

/** Behaviour the store takes from its descriptor beyond the strategy. */
export interface StoreBehaviour {
  hooks?: StoreHooks;
  statusStrategy?: StatusStrategy;
}

export class ResourceStore {
  readonly cache: WatchCache;
  private readonly reader: ResourceReader;
  private readonly hooks: StoreHooks;
  private readonly statusStrategy: StatusStrategy;

  constructor(
    readonly desc: StoredResource,
    readonly strategy: Strategy,
    private readonly store: Store,
    cacheOptions: WatchCacheOptions = DEFAULT_WATCH_CACHE_OPTIONS,
    gates: FeatureGates = FeatureGates.defaults(),
    behaviour: StoreBehaviour = {},
  ) {
    this.hooks = behaviour.hooks ?? {};
    this.statusStrategy = behaviour.statusStrategy ?? { metadata: 'request' };
    this.cache = new WatchCache(store, desc.prefix, (kv, revision) => this.decode(kv, revision), cacheOptions);
    const aggregateCorrupt = gates.enabled('AllowUnsafeMalformedObjectDeletion');
    this.reader = new ResourceReader(this.cache, {
      ...desc,
      unreadable: (corrupt) => corruptListError(this.groupResource, corrupt, aggregateCorrupt),
      snapshots: gates.enabled('ListFromCacheSnapshot'),
    });
  }

  get groupResource(): GroupResource {
    return { group: this.desc.group, resource: this.desc.resource };
  }

  key(namespace: string | undefined, name: string): string {
    return this.desc.namespaced ? `${this.desc.prefix}${namespace}/${name}` : `${this.desc.prefix}${name}`;
  }

  listPrefix(namespace?: string): string {
    return this.desc.namespaced && namespace ? `${this.desc.prefix}${namespace}/` : this.desc.prefix;
  }

  /** Decodes a stored value and stamps the revision as resourceVersion; CorruptObjectError when it does not decode. */
  decode(kv: KeyValue, revision = kv.modRevision): KubeObject {
    return decodeStoredObject(kv, this.desc.group, this.desc.kind, revision);
  }

  private encode(obj: KubeObject): string {
    // Like kube-apiserver, the stored bytes carry no resourceVersion: the
    // store's revision is the source of truth.
    const meta = obj.metadata;
    if (!meta || meta.resourceVersion === undefined) return stringifyJson(obj);
    const { resourceVersion: _rv, ...rest } = meta;
    return stringifyJson({ ...obj, metadata: rest });
  }

  /** One object from the cache, read as `at` says (default: consistent). Shared: do not mutate. */
  async get(namespace: string | undefined, name: string, at: ReadAt = { kind: 'consistent' }): Promise<KubeObject> {
    return (await this.getCached(namespace, name, at)).object;
  }

  /** As get, with the cache's entry (and its encodings). */
  async getCached(namespace: string | undefined, name: string, at: ReadAt = { kind: 'consistent' }): Promise<CachedObject> {
    const cached = await this.reader.get(this.key(namespace, name), at);
    if (!cached) throw notFound(this.groupResource, name);
    return cached;
  }

  /** A list from the cache with kube's resourceVersion, paging and selector semantics. */
  list(req: ListRequest): Promise<ListResult> {
    return this.reader.list(req);
  }

  /** A watch from the cache (initial events, history replay, live changes). */
  watch(req: WatchRequest, sink: WatchSink): Promise<ReaderWatch> {
    return this.reader.watch(req, sink);
  }

  /** The cache's revision once it has caught up with the store (bookmarks carry it). */
  freshRevision(): Promise<number> {
    return this.reader.freshRevision();
  }

  /** Fills server-set metadata and runs create validation; returns the object to store. */
  prepareCreate(input: KubeObject, namespace: string | undefined, ctx: ValidationContext = {}): KubeObject {
    const obj = cloneObject(input);
    const meta = metaOf(obj);
    if (this.desc.namespaced) meta.namespace = namespace;
    else delete meta.namespace;
    if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
    meta.uid = randomUUID();
    meta.creationTimestamp = nowTimestamp();
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    dropEmptyMeta(meta);
    delete meta.resourceVersion;
    if (this.strategy.tracksGeneration) meta.generation = 1;
    else delete meta.generation;
    if (this.strategy.hasStatusSubresource) {
      const initial = this.strategy.initialStatus?.(obj);
      if (initial === undefined) delete obj.status;
      else obj.status = initial;
    }
    this.strategy.prepareForCreate?.(obj);
    const errs: FieldError[] = [
      ...validateObjectMeta(meta, { namespaced: this.desc.namespaced, nameRule: this.strategy.nameRule, genericFinalizerNames: this.strategy.genericMetaValidation === true }),
      ...(this.strategy.validate?.(obj, ctx) ?? []),
    ];
    if (errs.length > 0) throw invalid({ group: this.desc.group, kind: this.desc.kind }, meta.name ?? '', errs);
    return obj;
  }

  /** Creates the object (through the descriptor's create hook, when it has one). */
  create(input: KubeObject, namespace: string | undefined, opts: CreateOptions = {}): Promise<KubeObject> {
    const hook = this.hooks.create;
    if (!hook) return this.createGeneric(input, namespace, opts);
    return hook(this, input, namespace, opts, (next) => this.createGeneric(next, namespace, opts));
  }

  private async createGeneric(input: KubeObject, namespace: string | undefined, opts: CreateOptions): Promise<KubeObject> {
    const rv = input.metadata?.resourceVersion;
    if (!opts.dryRun && typeof rv === 'string' && /^\d+$/.test(rv) && Number(rv) > 0) {
      // kube-apiserver's storage refuses this with a reasonless 500 (ErrResourceVersionSetOnCreate).
      throw new ApiError({ message: 'resourceVersion should not be set on objects to be created', code: 500 });
    }
    const usesGenerateName = !input.metadata?.name && !!input.metadata?.generateName;
    for (let attempt = 0; ; attempt++) {
      const obj = this.prepareCreate(input, namespace, validationContext(opts.requestVersion));
      const meta = metaOf(obj);
      const key = this.key(namespace, meta.name!);
      await opts.validate?.(obj, undefined);
      if (opts.dryRun) {
        if (await this.store.get(key)) throw alreadyExists(this.groupResource, meta.name!);
        return obj;
      }
      try {
        const kv = await this.store.create(key, this.encode(obj));
        return this.decode(kv);
      } catch (err) {
        if (isStoreError(err, 'KeyExists')) {
          if (!usesGenerateName) throw alreadyExists(this.groupResource, meta.name!);
          if (attempt + 1 < GENERATE_NAME_ATTEMPTS) continue;
          // errors.NewGenerateNameConflict (a fresh ApiError so Error.message matches the Status).
          const { kind: _k, apiVersion: _a, metadata: _m, status: _s, ...taken } = alreadyExists(this.groupResource, meta.name!).status;
          throw new ApiError({
            ...taken,
            message: `${taken.message}, the server was not able to generate a unique name for the object`,
            details: { ...taken.details, retryAfterSeconds: 1 },
          });
        }
        throw err;
      }
    }
  }

  /**
   * Read-modify-write with optimistic concurrency: `tryUpdate` computes the
   * new object from the current one; a write race re-runs it on fresh state.
   * A client-supplied resourceVersion that is not the current one is a 409.
   */
  update(namespace: string | undefined, opts: UpdateOptions, tryUpdate: UpdateFunc): Promise<UpdateResult> {
    const hook = this.hooks.update;
    if (!hook) return this.updateGeneric(namespace, opts, tryUpdate);
    return hook(this, namespace, opts, tryUpdate, (wrapped) => this.updateGeneric(namespace, opts, wrapped));
  }

  private async updateGeneric(namespace: string | undefined, opts: UpdateOptions, tryUpdate: UpdateFunc): Promise<UpdateResult> {
    const key = this.key(namespace, opts.name);
    for (let attempt = 0; attempt < UPDATE_RETRIES; attempt++) {
      const kv = await this.store.get(key);
      if (!kv) {
        if ((!this.strategy.allowCreateOnUpdate && !opts.forceAllowCreate) || opts.subresource) throw notFound(this.groupResource, opts.name);
        const desired = await tryUpdate(undefined);
        // Create-on-update ignores the body's resourceVersion, as kube-apiserver does.
        const { resourceVersion: _ignored, ...meta } = metaOf(desired);
        try {
          const created = await this.create({ ...desired, metadata: { ...meta, name: opts.name } }, namespace, {
            dryRun: !!opts.dryRun,
            ...(opts.validate ? { validate: opts.validate } : {}),
            ...(opts.requestVersion ? { requestVersion: opts.requestVersion } : {}),
          });
          return { object: created, created: true };
        } catch (err) {
          if (err instanceof ApiError && err.reason === 'AlreadyExists') continue;
          throw err;
        }
      }
      const current = this.decode(kv);
      const desired = await tryUpdate(current);
      // The resourceVersion is checked before update validation (Store.Update);
      // "0" counts as unset.
      const requestedRv = desired.metadata?.resourceVersion;
      if (requestedRv && requestedRv !== '0') {
        if (requestedRv !== current.metadata!.resourceVersion) throw conflict(this.groupResource, opts.name);
      } else if (!this.strategy.allowUnconditionalUpdate) {
        // kube names the resource where the kind goes here (its TODO for #18526).
        throw invalid({ group: this.desc.group, kind: this.desc.resource }, opts.name, [
          { type: 'FieldValueInvalid', field: 'metadata.resourceVersion', value: 0, detail: 'must be specified for an update' },
        ]);
      }
      const next = this.prepareUpdate(desired, current, opts.subresource ?? '', opts.mutateSystemFields, opts.warn, validationContext(opts.requestVersion));
      await opts.validate?.(next, current);
      const nextMeta = metaOf(next);
      delete nextMeta.resourceVersion;
      const unchanged = jsonEqual(next, { ...current, metadata: { ...current.metadata, resourceVersion: undefined } });
      if (unchanged) return { object: current, created: false };
      if (opts.dryRun) {
        nextMeta.resourceVersion = current.metadata!.resourceVersion;
        return { object: next, created: false };
      }
      // An update that leaves a Terminating object without finalizers deletes it
      // (genericregistry's ShouldDeleteDuringUpdate).
      const curMeta = current.metadata!;
      if (!this.hasPendingFinalizers(next) && curMeta.deletionTimestamp && !curMeta.deletionGracePeriodSeconds) {
        try {
          await this.store.delete(key, kv.modRevision);
        } catch (err) {
          if (isStoreError(err, 'Conflict') || isStoreError(err, 'NotFound')) continue;
          throw err;
        }
        nextMeta.resourceVersion = curMeta.resourceVersion;
        return { object: next, created: false };
      }
      try {
        const written = await this.store.update(key, this.encode(next), kv.modRevision);
        return { object: this.decode(written), created: false };
      } catch (err) {
        if (isStoreError(err, 'Conflict')) continue;
        if (isStoreError(err, 'NotFound')) continue;
        throw err;
      }
    }
    throw conflict(this.groupResource, opts.name, 'too many concurrent updates, please retry');
  }

  /** DeleteOptions.preconditions: a uid or resourceVersion that is not the object's is a 409. */
  checkDeletePreconditions(current: KubeObject, opts: DeleteOptions): void {
    const meta = current.metadata!;
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== meta.uid) {
      throw conflict(this.groupResource, meta.name!, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid}`);
    }
    if (pre?.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
      throw conflict(
        this.groupResource,
        meta.name!,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in meta: ${meta.resourceVersion}`,
      );
    }
  }

  /** Finalizers that keep a Terminating object stored (namespaces add spec.finalizers). */
  private hasPendingFinalizers(obj: KubeObject): boolean {
    return (obj.metadata?.finalizers?.length ?? 0) > 0 || this.hooks.pendingFinalizers?.(obj) === true;
  }

  /** The stored form of an update: system fields kept, status split, generation, validation. */
  prepareUpdate(
    desired: KubeObject,
    current: KubeObject,
    mode: UpdateMode,
    mutateSystemFields?: (next: KubeObject) => void,
    warn?: (text: string) => void,
    ctx: ValidationContext = {},
  ): KubeObject {
    let next: KubeObject;
    const curMeta = current.metadata!;
    if (mode === 'status') {
      // A status write changes status (and, for built-in types, metadata); everything else stays.
      next = cloneObject(current);
      if (this.statusStrategy.metadata === 'request') {
        next.metadata = cloneObject(desired.metadata ?? {});
        for (const field of this.statusStrategy.keep ?? []) {
          if (curMeta[field] === undefined) delete next.metadata[field];
          else (next.metadata as Record<string, unknown>)[field] = cloneObject(curMeta[field]);
        }
      } else {
        // Only managedFields follow the request: they track the status write itself.
        const managedFields = desired.metadata?.managedFields;
        if (managedFields === undefined) delete metaOf(next).managedFields;
        else metaOf(next).managedFields = cloneObject(managedFields);
      }
      next.status = cloneObject(desired.status);
      if (desired.status === undefined) delete next.status;
    } else if (mode === 'approval') {
      next = approvalUpdate(desired, current);
    } else {
      next = cloneObject(desired);
      if (mode === '' && this.strategy.hasStatusSubresource) {
        if (current.status === undefined) delete next.status;
        else next.status = cloneObject(current.status);
      }
    }
    const meta = metaOf(next);
    if (!meta.uid) meta.uid = curMeta.uid;
    if (meta.uid !== curMeta.uid) {
      throw conflict(this.groupResource, curMeta.name!, `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${curMeta.uid}`);
    }
    if (!meta.namespace && this.desc.namespaced) meta.namespace = curMeta.namespace;
    // Server-owned timestamps cannot be changed by clients; kube resets them.
    meta.creationTimestamp = curMeta.creationTimestamp;
    if (curMeta.deletionTimestamp) meta.deletionTimestamp = curMeta.deletionTimestamp;
    else delete meta.deletionTimestamp;
    if (curMeta.deletionGracePeriodSeconds !== undefined) meta.deletionGracePeriodSeconds = curMeta.deletionGracePeriodSeconds;
    else delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    dropEmptyMeta(meta);
    if (this.strategy.tracksGeneration) {
      const gen = curMeta.generation ?? 1;
      meta.generation = mode !== 'status' && specChanged(next, current) ? gen + 1 : gen;
    } else if (curMeta.generation !== undefined) {
      meta.generation = curMeta.generation;
    } else delete meta.generation;
    if (mode === '') this.strategy.prepareForUpdate?.(next, current);
    if (mode === 'status') this.strategy.prepareForStatusUpdate?.(next, current);
    mutateSystemFields?.(next);
    const errs: FieldError[] = [
      ...validateObjectMetaUpdate(meta, curMeta),
      ...validateObjectMeta(meta, { namespaced: this.desc.namespaced, nameRule: this.strategy.nameRule, genericFinalizerNames: this.strategy.genericMetaValidation === true }),
      // Trusted server-side writes (binding, finalize) skip the type's update rules, as kube's raw storage updates do.
      ...(mode === 'internal' ? [] : this.typeUpdateErrors(next, current, mode, warn, ctx)),
    ];
    if (errs.length > 0) throw invalid({ group: this.desc.group, kind: this.desc.kind }, curMeta.name ?? '', errs);
    return next;
  }

  /** The type's rules for an update: its status strategy's for /status writes where it has them. */
  private typeUpdateErrors(next: KubeObject, current: KubeObject, mode: UpdateMode, warn: ((text: string) => void) | undefined, ctx: ValidationContext): FieldError[] {
    if (mode === 'status' && this.strategy.validateStatusUpdate) return this.strategy.validateStatusUpdate(next, current, warn);
    return this.strategy.validateUpdate?.(next, current, warn, ctx) ?? this.strategy.validate?.(next, ctx) ?? [];
  }

  /**
   * Delete with kube's two phases: objects with finalizers (or a grace period)
   * become Terminating; others are removed in this request.
   */
  delete(namespace: string | undefined, name: string, opts: DeleteOptions = {}): Promise<DeleteResult> {
    const hook = this.hooks.delete;
    if (!hook) return this.deleteGeneric(namespace, name, opts);
    return hook(this, namespace, name, opts, () => this.deleteGeneric(namespace, name, opts));
  }

  private async deleteGeneric(namespace: string | undefined, name: string, opts: DeleteOptions): Promise<DeleteResult> {
    const key = this.key(namespace, name);
    for (let attempt = 0; attempt < UPDATE_RETRIES; attempt++) {
      const kv = await this.store.get(key);
      if (!kv) throw notFound(this.groupResource, name);
      const current = this.decode(kv);
      const meta = current.metadata!;
      this.checkDeletePreconditions(current, opts);
      await opts.validate?.(current);
      const grace = this.strategy.gracePeriodSeconds?.(current, opts.gracePeriodSeconds) ?? 0;
      // The garbage collector's finalizers follow the options, except once a
      // graceful deletion is pending (kube's pendingGraceful).
      const gracefulPending = !!meta.deletionTimestamp && (meta.deletionGracePeriodSeconds ?? 0) > 0;
      const gc = gracefulPending ? { changed: false, finalizers: [] } : deletionFinalizers(this.strategy.garbageCollectionPolicy ?? 'DeleteDependents', current, opts);
      const pendingFinalizers = gc.changed ? gc.finalizers.length > 0 || this.hooks.pendingFinalizers?.(current) === true : this.hasPendingFinalizers(current);
      if (pendingFinalizers || grace > 0) {
        if (!gc.changed && meta.deletionTimestamp && (meta.deletionGracePeriodSeconds ?? 0) <= grace) {
          return { object: current, deleted: false };
        }
        const next = cloneObject(current);
        const nmeta = metaOf(next);
        if (gc.changed) nmeta.finalizers = gc.finalizers;
        delete nmeta.resourceVersion;
        const now = new Date();
        if (!nmeta.deletionTimestamp) {
          nmeta.deletionTimestamp = nowTimestamp(new Date(now.getTime() + grace * 1000));
          // The first delete bumps generation where it is tracked (BeforeDelete, markAsDeleting).
          if ((nmeta.generation ?? 0) > 0) nmeta.generation = nmeta.generation! + 1;
        } else if (grace < (nmeta.deletionGracePeriodSeconds ?? 0)) {
          // A shorter grace period moves the deadline back by the difference.
          const old = Date.parse(nmeta.deletionTimestamp);
          nmeta.deletionTimestamp = nowTimestamp(new Date(old + (grace - (nmeta.deletionGracePeriodSeconds ?? 0)) * 1000));
        }
        nmeta.deletionGracePeriodSeconds = grace;
        if (opts.dryRun) {
          nmeta.resourceVersion = meta.resourceVersion;
          return { object: next, deleted: false };
        }
        try {
          const written = await this.store.update(key, this.encode(next), kv.modRevision);
          return { object: this.decode(written), deleted: false };
        } catch (err) {
          if (isStoreError(err, 'Conflict') || isStoreError(err, 'NotFound')) continue;
          throw err;
        }
      }
      if (opts.dryRun) return { object: current, deleted: true };
      try {
        await this.store.delete(key, kv.modRevision);
        return { object: current, deleted: true };
      } catch (err) {
        if (isStoreError(err, 'Conflict')) continue;
        if (isStoreError(err, 'NotFound')) throw notFound(this.groupResource, name);
        throw err;
      }
    }
    throw conflict(this.groupResource, name, 'too many concurrent updates, please retry');
  }

  /**
   * Unsafe deletion of a corrupt object (kube's corruptObjectDeleter, for
   * ignoreStoreReadErrorWithClusterBreakingPotential): the key goes without
   * being decoded, so finalizers, preconditions, grace periods and admission
   * are all skipped. An object that decodes, or none at all, is a 422: the
   * option is only for objects that cannot be read.
   */
  async deleteCorrupt(namespace: string | undefined, name: string): Promise<void> {
    const key = this.key(namespace, name);
    for (let attempt = 0; attempt < UPDATE_RETRIES; attempt++) {
      const kv = await this.store.get(key);
      if (!kv || !this.isCorrupt(kv)) {
        // kube names the resource where the kind goes here (its TODO for #18526).
        throw invalid({ group: this.desc.group, kind: this.desc.resource }, name, [
          {
            type: 'FieldValueInvalid',
            field: 'ignoreStoreReadErrorWithClusterBreakingPotential',
            value: true,
            detail: 'is exclusively used to delete corrupt object(s), try again by removing this option',
          },
        ]);
      }
      try {
        // Only the value found corrupt: one written meanwhile is checked again.
        await this.store.delete(key, kv.modRevision);
        return;
      } catch (err) {
        if (isStoreError(err, 'Conflict')) continue;
        // Gone meanwhile: kube reports the delete as done.
        if (isStoreError(err, 'NotFound')) return;
        throw err;
      }
    }
    throw conflict(this.groupResource, name, 'too many concurrent updates, please retry');
  }

  private isCorrupt(kv: KeyValue): boolean {
    try {
      this.decode(kv);
      return false;
    } catch (err) {
      if (err instanceof CorruptObjectError) return true;
      throw err;
    }
  }

  async currentRevision(): Promise<number> {
    return this.store.currentRevision();
  }
}

/**
 * ObjectMeta's optional fields are `omitempty` in Go: kube never stores an
 * empty label map, finalizer list or generateName, so neither do we.
 */
function dropEmptyMeta(meta: ObjectMeta): void {
  for (const f of ['labels', 'annotations'] as const) {
    const v = meta[f];
    if (v !== undefined && (v === null || (typeof v === 'object' && Object.keys(v).length === 0))) delete meta[f];
  }
  for (const f of ['finalizers', 'ownerReferences', 'managedFields'] as const) {
    const v = meta[f];
    if (v !== undefined && (v === null || (Array.isArray(v) && v.length === 0))) delete meta[f];
  }
  if (meta.generateName === '' || meta.generateName === null) delete meta.generateName;
}

/** True when anything outside metadata and status differs (what bumps generation). */
function specChanged(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject): Record<string, unknown> => {
    const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
    return rest;
  };
  return !jsonEqual(strip(a), strip(b));
}
