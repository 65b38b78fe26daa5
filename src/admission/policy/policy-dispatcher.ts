import type { KubeObject } from '../../machinery/object.js';
import type { AdmissionAttributes } from '../admission.js';
import { AdmissionMatcher, type Match } from '../matching/matcher.js';
import type { AdmissionPluginContext } from '../plugin-context.js';
import { ConfigurationError, ParamSource } from './params.js';
import { PolicySource, type PolicyHook } from './policy-source.js';
import type { MatchResources, ParamKind, PolicyBinding, PolicyObject } from './types.js';

/**
 * What both policy plugins do before evaluating (kube's generic policy
 * dispatcher): follow the policies and bindings, match a policy's
 * matchConstraints, then each binding's matchResources, and collect the
 * binding's params. Configuration errors go to a callback with kube's text.
 */

interface PolicySpec {
  matchConstraints?: MatchResources;
  paramKind?: ParamKind;
}

export interface BindingInvocation {
  readonly binding: PolicyBinding;
  /** The params to evaluate with: [undefined] without params, [] when none was found and that is allowed. */
  readonly params: readonly (KubeObject | undefined)[];
}

export interface PolicyInvocation {
  readonly match: Match;
  readonly bindings: readonly BindingInvocation[];
}

/** A configuration error of a policy (binding undefined) or a binding, with kube's message. */
export type ConfigurationErrorSink = (binding: PolicyBinding | undefined, message: string) => void;

export class PolicyDispatcher<S extends PolicySpec, E> {
  readonly source: PolicySource<S, E>;
  /** Namespaces through the watch cache. */
  readonly namespaces: (name: string) => Promise<KubeObject | undefined>;
  private readonly params: ParamSource;
  private readonly matcher: AdmissionMatcher;

  constructor(
    private readonly ctx: AdmissionPluginContext,
    kinds: { readonly policies: string; readonly bindings: string },
    compile: (policy: PolicyObject<S>) => E,
  ) {
    this.source = new PolicySource(ctx.registry, ctx.catalog, kinds, compile);
    this.params = new ParamSource(ctx.registry, ctx.catalog);
    const lookup = ctx.lookup('', 'v1', 'namespaces');
    this.namespaces = (name) => lookup(undefined, name);
    this.matcher = new AdmissionMatcher(ctx.catalog, this.namespaces);
  }

  start(): Promise<void> {
    return this.source.start(this.ctx.shutdown);
  }

  /** The request's namespace object for `namespaceObject`, read once per request (none for a Namespace itself, as in kube). */
  namespaceOf(attrs: AdmissionAttributes): () => Promise<KubeObject | undefined> {
    const name = attrs.resource.group === '' && attrs.resource.kind === 'Namespace' ? '' : attrs.namespace;
    let namespace: Promise<KubeObject | undefined> | undefined;
    return () => (namespace ??= name ? this.namespaces(name) : Promise.resolve(undefined));
  }

  /** The policy's match, its matching bindings and their params; undefined when the policy does not apply. */
  async resolve(hook: PolicyHook<S, E>, attrs: AdmissionAttributes, configError: ConfigurationErrorSink): Promise<PolicyInvocation | undefined> {
    const spec = hook.policy.spec;
    // kube's DefinitionMatches needs matchConstraints, and its dispatcher drops the error of a policy's own match
    if (!spec?.matchConstraints) return undefined;
    const match = await this.matcher.matchResources(spec.matchConstraints, attrs).catch(() => undefined);
    if (!match) return undefined;
    if (spec.paramKind) {
      try {
        this.params.resourceFor(spec.paramKind);
      } catch (err) {
        configError(undefined, (err as Error).message);
        return undefined;
      }
    }
    const bindings: BindingInvocation[] = [];
    for (const binding of hook.bindings) {
      const resources = binding.spec?.matchResources;
      try {
        if (resources && !(await this.matcher.matchResources(resources, attrs))) continue;
      } catch (err) {
        configError(binding, (err as Error).message);
        continue;
      }
      try {
        bindings.push({ binding, params: await this.params.collect(spec.paramKind, binding.spec?.paramRef, attrs.namespace) });
      } catch (err) {
        if (!(err instanceof ConfigurationError)) throw err;
        configError(binding, err.message);
      }
    }
    return { match, bindings };
  }
}
