import type { ResourceInfo } from '../api/types.js';
import type { KubeObject } from '../machinery/object.js';
import type { UserInfo } from '../machinery/context.js';
import { ApiError } from '../machinery/errors.js';
import type { Logger } from '../machinery/logger.js';
import { isStoreError } from '../storage/store.js';
import type { AdmissionMetrics, AdmissionStepType } from './metrics.js';

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

export interface AdmissionChainOptions {
  /** Latencies per phase and per plugin (kube's step and controller histograms). */
  metrics?: AdmissionMetrics;
  /** Where an error that is not an ApiError is reported (kube logs it before answering 500). */
  logger?: Logger;
  /** The plugins whose latency the controller histogram records (kube's named plugins); all when absent. */
  namedPlugins?: ReadonlySet<AdmissionPlugin>;
}

export class AdmissionChain {
  constructor(
    private readonly plugins: readonly AdmissionPlugin[],
    private readonly options: AdmissionChainOptions = {},
  ) {}

  /** The mutating phase, in plugin order; once more when a plugin asked for reinvocation (kube's reinvoker: in-tree plugins run again too). */
  async admit(attrs: AdmissionAttributes): Promise<void> {
    await this.step('admit', attrs, async () => {
      const reinvocation: ReinvocationContext = attrs.reinvocation ?? { isReinvoke: false, shouldReinvoke: false, values: new Map() };
      attrs.reinvocation = reinvocation;
      await this.phase('admit', attrs);
      if (!reinvocation.shouldReinvoke) return;
      reinvocation.isReinvoke = true;
      await this.phase('admit', attrs);
    });
  }

  /** The validating phase, in plugin order. */
  async validate(attrs: AdmissionAttributes): Promise<void> {
    await this.step('validate', attrs, () => this.phase('validate', attrs));
  }

  /** Both phases at once, for writes with no strategy between them (subresources answered by their own handlers). */
  async run(attrs: AdmissionAttributes): Promise<void> {
    await this.admit(attrs);
    await this.validate(attrs);
  }

  private async phase(type: AdmissionStepType, attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) {
      const call = p[type];
      if (!call || !(p.handles?.(attrs.operation) ?? true)) continue;
      const started = performance.now();
      let rejected = true;
      try {
        await call.call(p, attrs);
        rejected = false;
      } finally {
        if (this.options.namedPlugins?.has(p) ?? true) this.options.metrics?.observeController(p.name, type, attrs.operation, rejected, (performance.now() - started) / 1000);
      }
    }
  }

  private async step(type: AdmissionStepType, attrs: AdmissionAttributes, run: () => Promise<void>): Promise<void> {
    const started = performance.now();
    let rejected = true;
    try {
      await run();
      rejected = false;
    } catch (err) {
      throw this.asStatusError(err);
    } finally {
      this.options.metrics?.observeStep(type, attrs.operation, rejected, (performance.now() - started) / 1000);
    }
  }

  /**
   * kube answers an admission error that is not a Status error as
   * ErrorToAPIStatus does: 500, no reason, the error's own text (and logs
   * it). A store that cannot be reached stays the 503 the handlers make of
   * it, and a bug (TypeError and the other built-in error types: Go's panics)
   * the 500 InternalError they log with its stack.
   */
  private asStatusError(err: unknown): unknown {
    if (err instanceof ApiError || isStoreError(err) || isProgrammingError(err)) return err;
    const text = err instanceof Error ? err.message : String(err);
    this.options.logger?.error(`apiserver received an error that is not an metav1.Status: ${text}`);
    return new ApiError({ message: text, code: 500 });
  }
}

function isProgrammingError(err: unknown): boolean {
  return err instanceof TypeError || err instanceof ReferenceError || err instanceof RangeError || err instanceof SyntaxError || err instanceof EvalError || err instanceof URIError;
}
