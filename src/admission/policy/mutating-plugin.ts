import type { Authorizer } from '../../authz/authorizer.js';
import type { KubeObject } from '../../machinery/object.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../admission.js';
import { convertForMatch } from '../matching/equivalents.js';
import { AdmissionMatcher, VersionedObjects } from '../matching/matcher.js';
import { isExemptAdmissionConfigurationResource } from '../matching/rules.js';
import type { AdmissionPluginContext } from '../plugin-context.js';
import { MutatingPolicyEvaluator } from './mutator.js';
import { ConfigurationError, ParamSource } from './params.js';
import { PolicySource } from './policy-source.js';
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

interface PolicyError {
  readonly message: string;
}

export class MutatingAdmissionPolicyPlugin implements AdmissionPlugin {
  readonly name = PLUGIN;
  private readonly source: PolicySource<MutatingAdmissionPolicySpec, MutatingPolicyEvaluator>;
  private readonly params: ParamSource;
  private readonly namespaces: (name: string) => Promise<KubeObject | undefined>;
  private readonly authorizer: Authorizer;
  private readonly matcher: AdmissionMatcher;

  constructor(private readonly ctx: AdmissionPluginContext) {
    this.authorizer = ctx.authorizer;
    this.source = new PolicySource(ctx.registry, ctx.catalog, { policies: 'mutatingadmissionpolicies', bindings: 'mutatingadmissionpolicybindings' },
      (p) => new MutatingPolicyEvaluator(p.spec ?? {}, this.authorizer));
    this.params = new ParamSource(ctx.registry, ctx.catalog);
    const lookup = ctx.lookup('', 'v1', 'namespaces');
    this.namespaces = (name) => lookup(undefined, name);
    this.matcher = new AdmissionMatcher(ctx.catalog, this.namespaces);
  }

  start(): Promise<void> {
    return this.source.start(this.ctx.shutdown);
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (isExemptAdmissionConfigurationResource(attrs) || !attrs.object) return;
    const hooks = this.source.hooks();
    if (hooks.length === 0) return;
    const reinvocation = attrs.reinvocation;
    const isReinvoke = reinvocation?.isReinvoke === true;
    if (isReinvoke && JSON.stringify(attrs.object) === reinvocation?.values.get(PLUGIN)) return;
    const versioned = new VersionedObjects(attrs);
    const authorizer = cachingAuthorizerBinding(this.authorizer);
    const namespaceName = attrs.resource.group === '' && attrs.resource.kind === 'Namespace' ? '' : attrs.namespace;
    let namespace: Promise<KubeObject | undefined> | undefined;
    const getNamespace = (): Promise<KubeObject | undefined> => (namespace ??= namespaceName ? this.namespaces(namespaceName) : Promise.resolve(undefined));
    const errors: PolicyError[] = [];
    let changedAny = false;

    for (const { policy, evaluator, bindings } of hooks) {
      if (isReinvoke && evaluator.reinvocationPolicy !== 'IfNeeded') continue;
      const spec = policy.spec ?? {};
      const policyName = policy.metadata?.name ?? '';
      if (!spec.matchConstraints) continue;
      const match = await this.matcher.matchResources(spec.matchConstraints, attrs).catch(() => undefined);
      if (!match) continue;
      const fail = (binding: PolicyBinding | undefined, message: string): void => {
        if (evaluator.failurePolicy === 'Ignore') return;
        errors.push({ message: binding ? `policy '${policyName}' with binding '${binding.metadata?.name ?? ''}' denied request: ${message}` : `policy ${JSON.stringify(policyName)} denied request: ${message}` });
      };
      if (spec.paramKind) {
        try {
          this.params.resourceFor(spec.paramKind);
        } catch (err) {
          fail(undefined, (err as Error).message);
          continue;
        }
      }
      const schema = this.ctx.registry.descriptorFor(match.resource).schema.applySchema(match.resource.definition);
      for (const binding of bindings) {
        const bindingResources = binding.spec?.matchResources;
        try {
          if (bindingResources && !(await this.matcher.matchResources(bindingResources, attrs))) continue;
        } catch (err) {
          fail(binding, (err as Error).message);
          continue;
        }
        let params: (KubeObject | undefined)[];
        try {
          params = await this.params.collect(spec.paramKind, binding.spec?.paramRef, attrs.namespace);
        } catch (err) {
          if (!(err instanceof ConfigurationError)) throw err;
          fail(binding, err.message);
          continue;
        }
        for (const param of params) {
          const matched = versioned.of(match);
          const r = await evaluator.mutate({ attrs, matched, params: param, namespace: await getNamespace(), authorizer }, schema);
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
    if (first) throw policyDenial(attrs, first.message, 'Forbidden', errors.map((e) => e.message), { replaceMessage: true });
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
