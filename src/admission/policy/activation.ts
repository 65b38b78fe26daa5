import {
  dynToCel, evaluate, evaluateAsync, lazyObject, NamespaceType, AdmissionRequestType, newAuthorizer, toCel,
  type AuthorizerBinding, type CelValue, type Compiled, type CostBudget, type PolicyExpressions,
} from '../../cel/index.js';
import type { KubeObject } from '../../machinery/object.js';
import type { AdmissionAttributes } from '../admission.js';
import { admissionRequest, type MatchedVersion } from '../matching/admission-request.js';
import { kindOf } from '../matching/equivalents.js';

/**
 * One policy evaluation's inputs as CEL sees them (kube's
 * evaluationActivation): object, oldObject, params, request,
 * namespaceObject, authorizer (validations and matchConditions only) and
 * the policy's lazily computed `variables`.
 */

export interface PolicyInputs {
  readonly attrs: AdmissionAttributes;
  /** The resource and kind the policy matched, with the request's objects in that version. */
  readonly matched: MatchedVersion;
  readonly params: KubeObject | undefined;
  readonly namespace: KubeObject | undefined;
  readonly authorizer: AuthorizerBinding;
}

/** kube's CreateNamespaceObject: the namespace's metadata, spec and status only. */
function namespaceObject(ns: KubeObject): Record<string, unknown> {
  const m = ns.metadata ?? {};
  return {
    metadata: {
      name: m.name, generateName: m.generateName, namespace: m.namespace, labels: m.labels, annotations: m.annotations, UID: m.uid,
      creationTimestamp: m.creationTimestamp, deletionGracePeriodSeconds: m.deletionGracePeriodSeconds, deletionTimestamp: m.deletionTimestamp,
      generation: m.generation, resourceVersion: m.resourceVersion, finalizers: m.finalizers,
    },
    spec: ns.spec ?? {},
    status: ns.status ?? {},
  };
}

export type ExpressionResult =
  | { readonly ok: true; readonly value: CelValue }
  | { readonly ok: false; readonly error: string; readonly outOfBudget?: boolean };

export class PolicyActivation {
  private readonly base: Record<string, CelValue>;
  private readonly withAuthorizer: Record<string, CelValue>;

  constructor(private readonly expressions: PolicyExpressions, inputs: PolicyInputs) {
    const env = expressions.environment;
    const a = inputs.attrs;
    const m = inputs.matched;
    const { object: _object, oldObject: _oldObject, ...request } = admissionRequest(a, m, kindOf(a.resource, a.subresource), '');
    this.base = {
      object: a.operation === 'DELETE' || !m.object ? null : dynToCel(m.object),
      oldObject: m.oldObject ? dynToCel(m.oldObject) : null,
      params: inputs.params ? dynToCel(inputs.params) : null,
      request: toCel(env, request, AdmissionRequestType),
      namespaceObject: inputs.namespace ? toCel(env, namespaceObject(inputs.namespace), NamespaceType) : null,
    };
    if (expressions.variablesType) {
      const thunks = new Map<string, () => CelValue>();
      for (const v of expressions.variables) thunks.set(v.name, () => this.variable(v.name, v.compiled));
      this.base.variables = lazyObject(env, expressions.variablesType, thunks);
    }
    const user = a.user ?? { username: '', groups: [] };
    const requestResource = { group: a.resource.group, resource: a.resource.name, subresource: a.subresource, namespace: request.namespace ?? '', name: a.name };
    const authorizer = newAuthorizer(user, inputs.authorizer, requestResource);
    this.withAuthorizer = { ...this.base, authorizer, 'authorizer.requestResource': authorizer.requestResource ?? null };
  }

  /** The variables besides object, oldObject, request and authorizer (for matchConditions). */
  get extraVariables(): Record<string, CelValue> {
    const { params, namespaceObject, variables } = this.base;
    return { params: params ?? null, namespaceObject: namespaceObject ?? null, ...(variables !== undefined ? { variables } : {}) };
  }

  /** Variables run synchronously: kube's lazy map has no way to wait either. */
  private variable(name: string, compiled: Compiled): CelValue {
    if ('error' in compiled) throw new Error(`composited variable ${JSON.stringify(name)} fails to compile: ${compiled.error}`);
    // its cost goes to the expression that reads it first (src/cel's cost tracking nests)
    const r = evaluate(compiled.program, this.base);
    if (!r.ok) throw new Error(`composited variable ${JSON.stringify(name)} fails to evaluate: ${r.message}`);
    return r.value;
  }

  /** Runs one expression, charging `budget`; kube's error texts ("compilation error: ...", "expression '...' resulted in error: ..."). */
  async run(compiled: Compiled, budget: CostBudget, authorizer: boolean): Promise<ExpressionResult> {
    if ('error' in compiled) return { ok: false, error: `compilation error: ${compiled.error}` };
    const r = await evaluateAsync(compiled.program, authorizer ? this.withAuthorizer : this.base, { budget });
    if (r.ok) return { ok: true, value: r.value };
    if (r.kind === 'outOfBudget') return { ok: false, error: r.message, outOfBudget: true };
    return { ok: false, error: `expression '${compiled.expression}' resulted in error: ${r.message}` };
  }
}
