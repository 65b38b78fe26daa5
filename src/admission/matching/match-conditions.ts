import type { Authorizer } from '../../authz/authorizer.js';
import {
  AdmissionRequestType, compile, CostBudget, dynToCel, evaluate, toCel, webhookMatchConditionEnvironment,
  RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS, type CelEnvironment, type CelValue, type Program,
} from '../../cel/index.js';
import { newAuthorizer, type AuthorizerBinding } from '../../cel/libraries/authz.js';
import type { AdmissionAttributes } from '../admission.js';
import type { AdmissionRequestJson } from './admission-request.js';

/**
 * CEL matchConditions of admission webhooks and policies (kube's
 * admission/plugin/webhook/matchconditions): compiled once per
 * configuration, evaluated after the rules and selectors matched. Any false
 * condition skips the webhook or policy; otherwise evaluation errors are the
 * failure policy's to decide (Fail: the request fails, Ignore: skipped).
 */

export interface MatchConditionSpec {
  name: string;
  expression: string;
}

/** Validation of matchConditions lives with the other admissionregistration validation (registry/validation), which cannot import from here. */
export { MAX_MATCH_CONDITIONS as MAX_ADMISSION_MATCH_CONDITIONS, validateMatchConditions } from '../../registry/validation/admissionregistration.js';

/** matches, or the name of the condition that was false; or the errors for the failure policy to decide. */
export type ConditionsResult =
  | { readonly matches: true }
  | { readonly matches: false; readonly failedCondition?: string }
  | { readonly matches: false; readonly error: Error };

/** What the conditions are evaluated against. */
export interface ConditionInput {
  attrs: AdmissionAttributes;
  /** The AdmissionRequest for the matched version (its object and oldObject are the variables of those names). */
  request: AdmissionRequestJson;
  /** Variables beyond object/oldObject/request/authorizer (policies: params, namespaceObject). */
  extra?: Record<string, CelValue>;
}

/** The compiled conditions of one webhook or policy. */
export class MatchConditions {
  private readonly programs: { name: string; program: Program | { compileError: string } }[];

  /**
   * Validation refuses conditions that do not compile; one stored anyway (by
   * an older server) is, as in kube, an evaluation error on every request.
   */
  constructor(
    conditions: readonly MatchConditionSpec[],
    private readonly failurePolicy: 'Fail' | 'Ignore',
    private readonly authorizer: Authorizer | undefined,
    private readonly environment: CelEnvironment = webhookMatchConditionEnvironment(),
  ) {
    this.programs = conditions.map((c) => {
      const r = compile(c.expression.trim(), environment, { returnTypes: ['bool'] });
      return { name: c.name, program: r.ok ? r.program : { compileError: r.error.detail } };
    });
  }

  get empty(): boolean {
    return this.programs.length === 0;
  }

  async evaluate(input: ConditionInput): Promise<ConditionsResult> {
    if (this.programs.length === 0) return { matches: true };
    const activation = this.activation(input);
    const budget = new CostBudget(RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS);
    const errors: string[] = [];
    for (const { name, program } of this.programs) {
      if ('compileError' in program) {
        errors.push(`compilation error: ${program.compileError}`);
        continue;
      }
      const r = evaluate(program, activation, { budget });
      let value: unknown;
      if (!r.ok) {
        if (r.kind === 'outOfBudget') return this.failed([r.message]);
        errors.push(`expression '${program.expression}' resulted in error: ${r.message}`);
        continue;
      }
      try {
        // an authorizer check answers asynchronously: the value is then a Promise
        value = await (r.value as unknown);
      } catch (e) {
        errors.push(`expression '${program.expression}' resulted in error: ${e instanceof Error ? e.message : String(e)}`);
        continue;
      }
      if (value === false) return { matches: false, failedCondition: name };
    }
    if (errors.length > 0) return this.failed(errors);
    return { matches: true };
  }

  private failed(errors: string[]): ConditionsResult {
    if (this.failurePolicy === 'Ignore') return { matches: false };
    // utilerrors.NewAggregate: one error reads as itself, several as a list
    return { matches: false, error: new Error(errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`) };
  }

  private activation(input: ConditionInput): Record<string, CelValue> {
    const env = this.environment;
    const { attrs, request } = input;
    const { object, oldObject, ...rest } = request;
    const activation: Record<string, CelValue> = {
      object: dynToCel(object ?? null),
      oldObject: dynToCel(oldObject ?? null),
      request: toCel(env, rest, AdmissionRequestType),
      ...input.extra,
    };
    if (this.authorizer && attrs.user) {
      const authorizer = celAuthorizer(this.authorizer, attrs, request);
      activation.authorizer = authorizer as unknown as CelValue;
      if (authorizer.requestResource) activation['authorizer.requestResource'] = authorizer.requestResource as unknown as CelValue;
    }
    return activation;
  }
}

/** The `authorizer` variable over the server's authorizer, for the request's user and (as requestResource) resource. */
function celAuthorizer(authorizer: Authorizer, attrs: AdmissionAttributes, request: AdmissionRequestJson): ReturnType<typeof newAuthorizer> {
  const user = attrs.user!;
  const binding: AuthorizerBinding = {
    authorize: async (a) => {
      const d = await authorizer.authorize({
        user: { username: a.user.username, ...(a.user.uid ? { uid: a.user.uid } : {}), groups: [...a.user.groups], ...(a.user.extra ? { extra: Object.fromEntries(Object.entries(a.user.extra).map(([k, v]) => [k, [...v]])) } : {}) },
        verb: a.verb,
        resourceRequest: a.resourceRequest,
        ...(a.path !== undefined ? { path: a.path } : {}),
        ...(a.resourceRequest
          ? { group: a.apiGroup ?? '', version: a.apiVersion ?? '*', resource: a.resource ?? '', subresource: a.subresource ?? '', namespace: a.namespace ?? '', name: a.name ?? '' }
          : {}),
      });
      return { decision: d.decision, reason: d.reason, ...(d.error ? { error: d.error } : {}) };
    },
  };
  return newAuthorizer(user, binding, {
    group: request.requestResource.group,
    resource: request.requestResource.resource,
    subresource: request.requestSubResource ?? '',
    namespace: request.namespace ?? '',
    name: request.name ?? '',
  });
}
