import type { FieldError } from '../machinery/errors.js';
import type { KubeObject } from '../machinery/object.js';
import type { NameRule } from '../machinery/name-validation.js';
import type { GarbageCollectionPolicy } from './gc-finalizers.js';

/**
 * Per-resource behaviour of the generic store (kube-apiserver's
 * RESTCreateStrategy / RESTUpdateStrategy / RESTDeleteStrategy): how names are
 * validated, whether status is a separate subresource, how generation moves,
 * type-specific preparation and validation, and graceful deletion.
 */
/** What a type's rules may know of the request, as kube's strategies read it from the context. */
export interface ValidationContext {
  /** The API version the request came through (`v1`, `events.k8s.io/v1`); unset for the server's own writes. */
  requestVersion?: string;
}

export interface Strategy {
  nameRule: NameRule;
  /** Set metadata.generation to 1 on create and bump it when anything but metadata/status changes. */
  tracksGeneration: boolean;
  /** Status is written only through the status subresource (and dropped from main-resource writes). */
  hasStatusSubresource: boolean;
  /** A PUT on a missing object creates it. */
  allowCreateOnUpdate: boolean;
  /** A PUT without metadata.resourceVersion overwrites unconditionally. */
  allowUnconditionalUpdate: boolean;
  /** ObjectMeta checked by apimachinery's rules only (apiextensions types): finalizer names need not be domain-qualified. */
  genericMetaValidation?: boolean;
  /** DELETE answers with the deleted object rather than a Status. */
  returnDeletedObject: boolean;
  /** Status given to new objects of types with a status subresource. */
  initialStatus?(obj: KubeObject): unknown;
  prepareForCreate?(obj: KubeObject): void;
  /** Called on main-resource updates after the status split. */
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
  /** Called on /status writes, once status is the request's and the rest as stored. */
  prepareForStatusUpdate?(obj: KubeObject, old: KubeObject): void;
  validate?(obj: KubeObject, ctx?: ValidationContext): FieldError[];
  /** `warn`: kube's warning.AddWarning (e.g. CRD rule errors ratcheted away on values the update left unchanged). */
  validateUpdate?(obj: KubeObject, old: KubeObject, warn?: (text: string) => void, ctx?: ValidationContext): FieldError[];
  /** Validation of a write through /status, where the type's status strategy has its own (default: validateUpdate). */
  validateStatusUpdate?(obj: KubeObject, old: KubeObject, warn?: (text: string) => void): FieldError[];
  /**
   * Seconds a deletion waits before the object is removed (graceful deletion,
   * e.g. pods bound to a node); 0 removes as soon as no finalizer is left.
   */
  gracePeriodSeconds?(obj: KubeObject, requested: number | undefined): number;
  /** What a DELETE without propagation options does to dependents (DefaultGarbageCollectionPolicy; default DeleteDependents). */
  garbageCollectionPolicy?: GarbageCollectionPolicy;
}

export const DEFAULT_STRATEGY: Strategy = {
  nameRule: 'dns1123Subdomain',
  tracksGeneration: false,
  hasStatusSubresource: false,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
};
