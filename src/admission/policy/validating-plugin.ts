import type { Authorizer } from '../../authz/authorizer.js';
import type { KubeObject } from '../../machinery/object.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../admission.js';
import type { AdmissionPluginContext } from '../plugin-context.js';
import { AdmissionMatcher, VersionedObjects } from '../matching/matcher.js';
import { isExemptAdmissionConfigurationResource } from '../matching/rules.js';
import { ConfigurationError, ParamSource } from './params.js';
import { PolicySource } from './policy-source.js';
import { cachingAuthorizerBinding, policyDenial } from './request-support.js';
import type { PolicyBinding, ValidatingAdmissionPolicy, ValidatingAdmissionPolicySpec, ValidationAction } from './types.js';
import { ValidatingPolicyEvaluator, type PolicyDecision } from './validator.js';

/**
 * The ValidatingAdmissionPolicy plugin (kube's validating.Plugin and its
 * dispatcher): every policy whose matchConstraints match the request is
 * evaluated for each of its matching bindings and each of the binding's
 * params; a denial is enforced as the binding's validationActions say
 * (Deny fails the request, Warn adds a Warning header, Audit an audit
 * annotation), configuration errors as the policy's failurePolicy says.
 */

const MAX_AUDIT_ANNOTATION_VALUE_LENGTH = 10 * 1024;
export const VALIDATION_FAILURE_ANNOTATION = 'validation.policy.admission.k8s.io/validation_failure';

interface Denied {
  readonly policy: string;
  readonly binding: string | undefined;
  readonly message: string;
  readonly reason: string;
}

export class ValidatingAdmissionPolicyPlugin implements AdmissionPlugin {
  readonly name = 'ValidatingAdmissionPolicy';
  private readonly source: PolicySource<ValidatingAdmissionPolicySpec, ValidatingPolicyEvaluator>;
  private readonly params: ParamSource;
  private readonly namespaces: (name: string) => Promise<KubeObject | undefined>;
  private readonly authorizer: Authorizer;
  private readonly matcher: AdmissionMatcher;

  constructor(private readonly ctx: AdmissionPluginContext) {
    this.authorizer = ctx.authorizer;
    this.source = new PolicySource(ctx.registry, ctx.catalog, { policies: 'validatingadmissionpolicies', bindings: 'validatingadmissionpolicybindings' },
      (p) => new ValidatingPolicyEvaluator(p.spec ?? {}, this.authorizer));
    this.params = new ParamSource(ctx.registry, ctx.catalog);
    const lookup = ctx.lookup('', 'v1', 'namespaces');
    this.namespaces = (name) => lookup(undefined, name);
    this.matcher = new AdmissionMatcher(ctx.catalog, this.namespaces);
  }

  start(): Promise<void> {
    return this.source.start(this.ctx.shutdown);
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (isExemptAdmissionConfigurationResource(attrs)) return;
    const hooks = this.source.hooks();
    if (hooks.length === 0) return;
    let namespace: Promise<KubeObject | undefined> | undefined;
    // kube reads the namespace of a Namespace request as none ("the namespace object has the namespace of itself")
    const namespaceName = attrs.resource.group === '' && attrs.resource.kind === 'Namespace' ? '' : attrs.namespace;
    const getNamespace = (): Promise<KubeObject | undefined> => (namespace ??= namespaceName ? this.namespaces(namespaceName) : Promise.resolve(undefined));
    const versioned = new VersionedObjects(attrs);
    const authorizer = cachingAuthorizerBinding(this.authorizer);
    const denied: Denied[] = [];

    for (const { policy, evaluator, bindings } of hooks) {
      const spec = policy.spec ?? {};
      const policyName = policy.metadata?.name ?? '';
      if (!spec.matchConstraints) continue;
      // kube's dispatcher drops the error of a policy's own match (its namespace could not be read): no match
      const match = await this.matcher.matchResources(spec.matchConstraints, attrs).catch(() => undefined);
      if (!match) continue;
      const matched = versioned.of(match);
      const configError = (err: unknown, binding: PolicyBinding | undefined): void => {
        if (evaluator.failurePolicy === 'Ignore') return;
        const text = err instanceof Error ? err.message : String(err);
        denied.push({ policy: policyName, binding: binding?.metadata?.name, reason: '', message: binding ? `failed to configure binding: ${text}` : `failed to configure policy: ${text}` });
      };
      if (spec.paramKind) {
        try {
          this.params.resourceFor(spec.paramKind);
        } catch (err) {
          configError(err, undefined);
          continue;
        }
      }
      const annotations = new Map<string, string[]>();
      for (const binding of bindings) {
        const bindingResources = binding.spec?.matchResources;
        if (bindingResources) {
          try {
            if (!(await this.matcher.matchResources(bindingResources, attrs))) continue;
          } catch (err) {
            configError(err, binding);
            continue;
          }
        }
        let params: (KubeObject | undefined)[];
        try {
          params = await this.params.collect(spec.paramKind, binding.spec?.paramRef, attrs.namespace);
        } catch (err) {
          if (!(err instanceof ConfigurationError)) throw err;
          configError(err, binding);
          continue;
        }
        const ns = params.length > 0 ? await getNamespace() : undefined;
        const bindingName = binding.metadata?.name ?? '';
        const actions = binding.spec?.validationActions ?? [];
        for (const param of params) {
          const result = await evaluator.validate({ attrs, matched, params: param, namespace: ns, authorizer });
          result.decisions.forEach((d, i) => {
            if (d.action !== 'deny') return;
            for (const action of actions) this.enforce(action, attrs, policyName, binding, i, d, denied);
          });
          for (const a of result.auditAnnotations) {
            if (a.action === 'publish') {
              const values = annotations.get(a.key) ?? [];
              const value = a.value.slice(0, MAX_AUDIT_ANNOTATION_VALUE_LENGTH);
              if (!values.includes(value)) values.push(value);
              annotations.set(a.key, values);
            } else if (a.action === 'error') {
              denied.push({ policy: policyName, binding: bindingName, message: a.error, reason: '' });
            }
          }
        }
      }
      for (const [key, values] of annotations) attrs.addAuditAnnotation?.(`${policyName}/${key}`, values.join(', '));
    }

    const first = denied[0];
    if (!first) return;
    const message = first.binding !== undefined
      ? `ValidatingAdmissionPolicy '${first.policy}' with binding '${first.binding}' denied request: ${first.message}`
      : `ValidatingAdmissionPolicy '${first.policy}' denied request: ${first.message}`;
    throw policyDenial(attrs, message, first.reason || 'Invalid');
  }

  private enforce(action: ValidationAction, attrs: AdmissionAttributes, policy: string, binding: PolicyBinding, index: number, d: PolicyDecision, denied: Denied[]): void {
    const bindingName = binding.metadata?.name ?? '';
    switch (action) {
      case 'Deny':
        denied.push({ policy, binding: bindingName, message: d.message, reason: d.reason });
        break;
      case 'Warn':
        attrs.addWarning?.(`Validation failed for ValidatingAdmissionPolicy '${policy}' with binding '${bindingName}': ${d.message}`);
        break;
      case 'Audit':
        // Go's json.Marshal of []ValidationFailureValue, fields in declaration order
        attrs.addAuditAnnotation?.(VALIDATION_FAILURE_ANNOTATION, JSON.stringify([{
          message: d.message, policy: binding.spec?.policyName ?? '', binding: bindingName, expressionIndex: index,
          validationActions: binding.spec?.validationActions ?? [],
        }]));
        break;
    }
  }
}

export function validatingAdmissionPolicy(ctx: AdmissionPluginContext): AdmissionPlugin {
  return new ValidatingAdmissionPolicyPlugin(ctx);
}

export type { ValidatingAdmissionPolicy };
