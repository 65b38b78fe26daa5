import type { Authorizer } from '../../authz/authorizer.js';
import {
  AdmissionRequestType, compile, CostBudget, dynToCel, evaluate, toCel, webhookMatchConditionEnvironment,
  RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS, type CelEnvironment, type CelValue, type Program,
} from '../../cel/index.js';
import { newAuthorizer, type AuthorizerBinding } from '../../cel/libraries/authz.js';
import type { FieldError } from '../../machinery/errors.js';
import type { AdmissionAttributes } from '../admission.js';
import type { AdmissionRequestJson } from './admission-request.js';

/**
 * CEL matchConditions of admission webhooks and policies (kube's
 * admission/plugin/webhook/matchconditions): compiled once per
 * configuration, evaluated after the rules and selectors matched. Any false
 * condition skips the webhook or policy; otherwise evaluation errors are the
 * failure policy's to decide (Fail: the request fails, Ignore: skipped).
 */

export const MAX_ADMISSION_MATCH_CONDITIONS = 64;

export interface MatchConditionSpec {
  name: string;
  expression: string;
}

/** kube's validateMatchConditionsExpression: the compile error's detail, or undefined. */
export function matchConditionCompileError(expression: string, environment: CelEnvironment = webhookMatchConditionEnvironment()): string | undefined {
  const r = compile(expression, environment, { returnTypes: ['bool'] });
  return r.ok ? undefined : r.error.detail;
}

/** kube's validateMatchConditions (names are qualified names, checked by the caller's name validation through `validateName`). */
export function validateMatchConditions(
  conditions: readonly MatchConditionSpec[],
  path: string,
  validateName: (name: string, field: string) => FieldError[],
  environment: CelEnvironment = webhookMatchConditionEnvironment(),
): FieldError[] {
  const errs: FieldError[] = [];
  if (conditions.length > MAX_ADMISSION_MATCH_CONDITIONS) {
    errs.push({ type: 'FieldValueTooMany', field: path, value: conditions.length, detail: `must have at most ${MAX_ADMISSION_MATCH_CONDITIONS} items` });
  }
  const names = new Set<string>();
  conditions.forEach((c, i) => {
    const at = `${path}[${i}]`;
    const expression = (c.expression ?? '').trim();
    if (expression === '') errs.push({ type: 'FieldValueRequired', field: `${at}.expression` });
    else {
      const detail = matchConditionCompileError(expression, environment);
      if (detail !== undefined) errs.push({ type: 'FieldValueInvalid', field: `${at}.expression`, value: c.expression, detail });
    }
    if (!c.name) errs.push({ type: 'FieldValueRequired', field: `${at}.name` });
    else errs.push(...validateName(c.name, `${at}.name`));
    if (c.name) {
      if (names.has(c.name)) errs.push({ type: 'FieldValueDuplicate', field: `${at}.name`, value: c.name });
      else names.add(c.name);
    }
  });
  return errs;
}

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
  private readonly programs: { name: string; program: Program }[];

  /** Conditions that validation accepted; one that does not compile throws. */
  constructor(
    conditions: readonly MatchConditionSpec[],
    private readonly failurePolicy: 'Fail' | 'Ignore',
    private readonly authorizer: Authorizer | undefined,
    private readonly environment: CelEnvironment = webhookMatchConditionEnvironment(),
  ) {
    this.programs = conditions.map((c) => {
      const r = compile(c.expression.trim(), environment, { returnTypes: ['bool'] });
      if (!r.ok) throw new Error(`matchCondition ${JSON.stringify(c.name)} does not compile: ${r.error.detail}`);
      return { name: c.name, program: r.program };
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
