import type { Authorizer } from '../../authz/authorizer.js';
import type { KubeObject } from '../../machinery/object.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../admission.js';
import { convertForMatch } from '../matching/equivalents.js';
import { VersionedObjects } from '../matching/matcher.js';
import { isExemptAdmissionConfigurationResource } from '../matching/rules.js';
import type { AdmissionPluginContext } from '../plugin-context.js';
import { MutatingPolicyEvaluator } from './mutator.js';
import { PolicyDispatcher } from './policy-dispatcher.js';
import { cachingAuthorizerBinding, policyDenial } from './request-support.js';
import type { MutatingAdmissionPolicySpec, PolicyBinding } from './types.js';

/**
 * The MutatingAdmissionPolicy plugin (kube's policy/mutating and the generic
 * policy dispatcher; admissionregistration.k8s.io/v1, served by default in
 * 1.36): matching policies mutate the request's object in name order, per
 * matching binding and param. A policy that changed the object asks the
 * chain for a second mutating pass (earlier plugins see its change); in that
 * pass only policies with reinvocationPolicy IfNeeded run again, and only if
 * the object changed since this plugin last ran. Errors are decided by each
 * policy's failurePolicy; the first one left fails the request.
 */

const PLUGIN = 'MutatingAdmissionPolicy';

export class MutatingAdmissionPolicyPlugin implements AdmissionPlugin {
  readonly name = PLUGIN;
  private readonly dispatcher: PolicyDispatcher<MutatingAdmissionPolicySpec, MutatingPolicyEvaluator>;
  private readonly authorizer: Authorizer;

  constructor(private readonly ctx: AdmissionPluginContext) {
    this.authorizer = ctx.authorizer;
    this.dispatcher = new PolicyDispatcher(ctx, { policies: 'mutatingadmissionpolicies', bindings: 'mutatingadmissionpolicybindings' },
      (p) => new MutatingPolicyEvaluator(p.spec ?? {}, this.authorizer));
  }

  start(): Promise<void> {
    return this.dispatcher.start();
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (isExemptAdmissionConfigurationResource(attrs) || !attrs.object) return;
    const hooks = this.dispatcher.source.hooks();
    if (hooks.length === 0) return;
    const reinvocation = attrs.reinvocation;
    const isReinvoke = reinvocation?.isReinvoke === true;
    if (isReinvoke && JSON.stringify(attrs.object) === reinvocation?.values.get(PLUGIN)) return;
    const versioned = new VersionedObjects(attrs);
    const authorizer = cachingAuthorizerBinding(this.authorizer);
    const getNamespace = this.dispatcher.namespaceOf(attrs);
    const errors: string[] = [];
    let changedAny = false;

    for (const hook of hooks) {
      const { policy, evaluator } = hook;
      if (isReinvoke && evaluator.reinvocationPolicy !== 'IfNeeded') continue;
      const policyName = policy.metadata?.name ?? '';
      const fail = (binding: PolicyBinding | undefined, message: string): void => {
        if (evaluator.failurePolicy === 'Ignore') return;
        errors.push(binding ? `policy '${policyName}' with binding '${binding.metadata?.name ?? ''}' denied request: ${message}` : `policy ${JSON.stringify(policyName)} denied request: ${message}`);
      };
      const invocation = await this.dispatcher.resolve(hook, attrs, fail);
      if (!invocation) continue;
      const { match } = invocation;
      const schema = this.ctx.registry.descriptorFor(match.resource).schema.applySchema(match.resource.definition);
      for (const { binding, params } of invocation.bindings) {
        for (const param of params) {
          const r = await evaluator.mutate({ attrs, matched: versioned.of(match), params: param, namespace: await getNamespace(), authorizer }, schema);
          if (r.kind === 'error') fail(binding, r.message);
          if (r.kind !== 'mutated' || !r.changed) continue;
          replaceContents(attrs.object, convertForMatch(r.object, match.resource, attrs.resource, attrs.subresource));
          versioned.refresh();
          changedAny = true;
        }
      }
    }

    if (reinvocation) {
      reinvocation.values.set(PLUGIN, JSON.stringify(attrs.object));
      if (changedAny && !isReinvoke) reinvocation.shouldReinvoke = true;
    }
    const first = errors[0];
    if (first) throw policyDenial(attrs, first, 'Forbidden', errors, { replaceMessage: true });
  }
}

/** The handlers keep the object they passed in: a mutation changes it in place. */
function replaceContents(target: KubeObject, source: KubeObject): void {
  const next = structuredClone(source);
  for (const key of Object.keys(target)) delete (target as Record<string, unknown>)[key];
  Object.assign(target, next);
}

export function mutatingAdmissionPolicy(ctx: AdmissionPluginContext): AdmissionPlugin {
  return new MutatingAdmissionPolicyPlugin(ctx);
}
