import type { ResourceInfo } from '../api/types.js';
import type { KubeObject } from '../machinery/object.js';
import type { UserInfo } from '../machinery/context.js';

/**
 * Admission where kube-apiserver runs it: mutating plugins see the request's
 * object before the resource's strategy (no uid, creationTimestamp or
 * generated name yet on create), validating plugins see the fully formed
 * object right before it is stored (the registry's createValidation /
 * updateValidation / deleteValidation). Reads never pass admission. A plugin
 * rejects by throwing an ApiError.
 */

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  /** The served resource (group, version, kind, resource name). */
  resource: ResourceInfo;
  subresource: string;
  namespace: string;
  name: string;
  /** The incoming object (served version), for CREATE and UPDATE. */
  object?: KubeObject;
  /** The stored object (served version), for UPDATE and DELETE. */
  oldObject?: KubeObject;
  /** The request's CreateOptions, UpdateOptions or DeleteOptions (as kube's admission.Attributes.GetOperationOptions). */
  options?: Record<string, unknown>;
  dryRun: boolean;
  user?: UserInfo;
  /** Adds a warning to the response's Warning header. */
  addWarning?(text: string): void;
  /** Records an audit annotation for the request (key → value; the first value of a key stays). */
  addAuditAnnotation?(key: string, value: string): void;
  /**
   * Registers how to undo a side effect of admitting this write (a quota
   * charge) should the write not land: the handlers run what was registered
   * when the storage write fails or is retried. kube leaves this to the quota
   * controller's next resync.
   */
  onWriteFailed?(undo: () => Promise<void>): void;
  /** kube's ReinvocationContext, set by the chain for its mutating phase. */
  reinvocation?: ReinvocationContext;
}

/**
 * kube's admission.ReinvocationContext: a mutating plugin that wants to see
 * later plugins' changes (a webhook with reinvocationPolicy IfNeeded, a
 * mutating policy) asks for a second pass with `shouldReinvoke`; the chain
 * then runs the whole mutating phase once more with `isReinvoke` set, and
 * plugins keep what they need between the passes in `values` (by their name).
 */
export interface ReinvocationContext {
  isReinvoke: boolean;
  shouldReinvoke: boolean;
  readonly values: Map<string, unknown>;
}

export interface AdmissionPlugin {
  readonly name: string;
  /** The operations the plugin takes part in (kube's Handles); every operation when absent. */
  handles?(operation: AdmissionOperation): boolean;
  /** Mutating phase; may change attrs.object. */
  admit?(attrs: AdmissionAttributes): Promise<void>;
  /** Validating phase; must not change anything. */
  validate?(attrs: AdmissionAttributes): Promise<void>;
  /** Loads what the plugin reads (its informers synced) before the server serves; stops at the context's shutdown signal. */
  start?(): Promise<void>;
}

export class AdmissionChain {
  constructor(private readonly plugins: readonly AdmissionPlugin[]) {}

  /** The mutating phase, in plugin order; once more when a plugin asked for reinvocation (kube's reinvoker: in-tree plugins run again too). */
  async admit(attrs: AdmissionAttributes): Promise<void> {
    const reinvocation: ReinvocationContext = attrs.reinvocation ?? { isReinvoke: false, shouldReinvoke: false, values: new Map() };
    attrs.reinvocation = reinvocation;
    await this.admitOnce(attrs);
    if (!reinvocation.shouldReinvoke) return;
    reinvocation.isReinvoke = true;
    await this.admitOnce(attrs);
  }

  private async admitOnce(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) if (p.admit && (p.handles?.(attrs.operation) ?? true)) await p.admit(attrs);
  }

  /** The validating phase, in plugin order. */
  async validate(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) if (p.validate && (p.handles?.(attrs.operation) ?? true)) await p.validate(attrs);
  }

  /** Both phases at once, for writes with no strategy between them (subresources answered by their own handlers). */
  async run(attrs: AdmissionAttributes): Promise<void> {
    await this.admit(attrs);
    await this.validate(attrs);
  }
}
