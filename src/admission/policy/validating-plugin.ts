import type { Authorizer } from '../../authz/authorizer.js';
import { goJsonString } from '../../machinery/go-compat.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../admission.js';
import { VersionedObjects } from '../matching/matcher.js';
import { isExemptAdmissionConfigurationResource } from '../matching/rules.js';
import type { AdmissionPluginContext } from '../plugin-context.js';
import { PolicyDispatcher } from './policy-dispatcher.js';
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
  private readonly dispatcher: PolicyDispatcher<ValidatingAdmissionPolicySpec, ValidatingPolicyEvaluator>;
  private readonly authorizer: Authorizer;

  constructor(ctx: AdmissionPluginContext) {
    this.authorizer = ctx.authorizer;
    this.dispatcher = new PolicyDispatcher(ctx, { policies: 'validatingadmissionpolicies', bindings: 'validatingadmissionpolicybindings' },
      (p) => new ValidatingPolicyEvaluator(p.spec ?? {}, this.authorizer));
  }

  start(): Promise<void> {
    return this.dispatcher.start();
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (isExemptAdmissionConfigurationResource(attrs)) return;
    const hooks = this.dispatcher.source.hooks();
    if (hooks.length === 0) return;
    const getNamespace = this.dispatcher.namespaceOf(attrs);
    const versioned = new VersionedObjects(attrs);
    const authorizer = cachingAuthorizerBinding(this.authorizer);
    const denied: Denied[] = [];

    for (const hook of hooks) {
      const { policy, evaluator } = hook;
      const policyName = policy.metadata?.name ?? '';
      const invocation = await this.dispatcher.resolve(hook, attrs, (binding, text) => {
        if (evaluator.failurePolicy === 'Ignore') return;
        denied.push({ policy: policyName, binding: binding?.metadata?.name, reason: '', message: binding ? `failed to configure binding: ${text}` : `failed to configure policy: ${text}` });
      });
      if (!invocation) continue;
      const matched = versioned.of(invocation.match);
      const annotations = new Map<string, string[]>();
      for (const { binding, params } of invocation.bindings) {
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
        attrs.addAuditAnnotation?.(VALIDATION_FAILURE_ANNOTATION, validationFailureValue(d.message, binding, index));
        break;
    }
  }
}

/** Go's json.Marshal of []ValidationFailureValue: fields in declaration order, HTML characters escaped. */
function validationFailureValue(message: string, binding: PolicyBinding, expressionIndex: number): string {
  const actions = (binding.spec?.validationActions ?? []).map(goJsonString).join(',');
  return `[{"message":${goJsonString(message)},"policy":${goJsonString(binding.spec?.policyName ?? '')},"binding":${goJsonString(binding.metadata?.name ?? '')},` +
    `"expressionIndex":${expressionIndex},"validationActions":[${actions}]}]`;
}

export function validatingAdmissionPolicy(ctx: AdmissionPluginContext): AdmissionPlugin {
  return new ValidatingAdmissionPolicyPlugin(ctx);
}

export type { ValidatingAdmissionPolicy };
