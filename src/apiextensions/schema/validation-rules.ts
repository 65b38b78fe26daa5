/**
 * x-kubernetes-validations: the CEL rules of a structural schema (kube's
 * apiextensions-apiserver pkg/apiserver/schema/cel). Every rule (and
 * messageExpression) is compiled once per schema, typed against its node's
 * schema (`self`, `oldSelf`), with its static cost. `checkRules` reports
 * what kube's CRD validation reports about them; `ValidationRules.validate`
 * runs them over a custom resource with kube's runtime budget, messages,
 * reasons, field paths, transition rules and ratcheting.
 */

import { type FieldError, fieldErrorString } from '../../machinery/errors.js';
import { type JsonObject, type JsonValue, isJsonObject } from '../../machinery/json-value.js';
import { jsonEqual } from '../../machinery/object.js';
import {
  compile, CONTRIBUTED_TO_TOTAL_MESSAGE, costErrorMessage, CostBudget, crdRuleCost, crdRuleEnvironment, crdTotalCostError, evaluate,
  MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES, MESSAGE_EXPRESSION_COST_NAME, MESSAGE_EXPRESSION_MUST_BE_STRING, OUT_OF_BUDGET_MESSAGE,
  pathCardinality, RULE_COST_NAME, RULE_MUST_BE_BOOL, RUNTIME_CEL_COST_BUDGET, STATIC_ESTIMATED_COST_LIMIT, toCel,
  type CelValue, type OpenApiSchema, type Program, type RuleEnvironment,
} from '../../cel/index.js';
import { validationRuleJson } from './internal-json.js';
import { childPath, indexPath, keyPath } from './paths.js';
import { type Structural, parseStructural } from './structural.js';

/** One entry of x-kubernetes-validations. */
interface RawRule {
  readonly rule: string;
  readonly message: string;
  readonly messageExpression: string;
  readonly reason?: string;
  readonly fieldPath: string;
  readonly optionalOldSelf?: boolean;
}

/** A compiled rule at one schema node; errors are relative to the rule (`rule`, `messageExpression`, `optionalOldSelf`). */
interface CompiledRule {
  readonly raw: RawRule;
  readonly program?: Program;
  readonly messageProgram?: Program;
  readonly env?: RuleEnvironment;
  readonly usesOldSelf: boolean;
  /** max cost × cardinality (kube's getExpressionCost) of the rule and of its messageExpression. */
  readonly cost: number;
  readonly messageCost: number;
  readonly ruleError?: string;
  readonly messageError?: string;
}

/** The rules at one node, with the node's path in the CRD (for CRD validation). */
interface NodeRules {
  readonly rules: CompiledRule[];
  readonly schemaPath: string;
  /** The list whose items are not correlatable (kube forbids oldSelf under it). */
  readonly uncorrelatable?: string;
}

function rawRules(node: Structural): RawRule[] {
  const list = node.raw['x-kubernetes-validations'];
  if (!Array.isArray(list)) return [];
  return list.filter(isJsonObject).map((r) => ({
    rule: typeof r.rule === 'string' ? r.rule : '',
    message: typeof r.message === 'string' ? r.message : '',
    messageExpression: typeof r.messageExpression === 'string' ? r.messageExpression : '',
    ...(typeof r.reason === 'string' ? { reason: r.reason } : {}),
    fieldPath: typeof r.fieldPath === 'string' ? r.fieldPath : '',
    ...(typeof r.optionalOldSelf === 'boolean' ? { optionalOldSelf: r.optionalOldSelf } : {}),
  }));
}

/** A node's rule environments (plain, and with an optional oldSelf), built on first use and shared by its rules. */
type EnvironmentOf = (optionalOldSelf: boolean) => RuleEnvironment | undefined;

function nodeEnvironments(node: Structural, isRoot: boolean): EnvironmentOf {
  const envs = new Map<boolean, RuleEnvironment | undefined>();
  return (optionalOldSelf) => {
    if (!envs.has(optionalOldSelf)) {
      envs.set(optionalOldSelf, crdRuleEnvironment(node.raw as OpenApiSchema, { isResourceRoot: isRoot || node.embeddedResource, optionalOldSelf }));
    }
    return envs.get(optionalOldSelf);
  };
}

function compileRule(raw: RawRule, envOf: EnvironmentOf, bounds: readonly (number | undefined)[]): CompiledRule {
  // kube compiles rules with optionalOldSelf where oldSelf is optional(self's type)
  const env = envOf(raw.optionalOldSelf === true);
  if (!env) return { raw, usesOldSelf: false, cost: 0, messageCost: 0 };
  const cardinality = pathCardinality(bounds);
  if (raw.rule.trim() === '') return { raw, env, usesOldSelf: false, cost: 0, messageCost: 0, ruleError: 'rule is not specified' };
  const r = compile(raw.rule, env.environment, { returnTypes: ['bool'], wrongTypeDetail: RULE_MUST_BE_BOOL });
  const usesOldSelf = r.ok && r.program.references.has('oldSelf');
  const base = { raw, env, usesOldSelf };
  const program = r.ok ? r.program : undefined;
  const cost = program ? crdRuleCost(program.cost.max, cardinality, env.selfType) : 0;
  let messageProgram: Program | undefined;
  let messageError: string | undefined;
  let messageCost = 0;
  if (raw.messageExpression.trim() !== '') {
    const m = compile(raw.messageExpression, env.environment, {
      returnTypes: ['string'], wrongTypeDetail: MESSAGE_EXPRESSION_MUST_BE_STRING, errorPrefix: 'messageExpression compilation failed: ',
    });
    if (m.ok) {
      messageProgram = m.program;
      messageCost = crdRuleCost(m.program.cost.max, cardinality, env.selfType);
    } else messageError = m.error.detail;
  }
  return {
    ...base,
    ...(program ? { program } : {}),
    ...(messageProgram ? { messageProgram } : {}),
    cost,
    messageCost,
    ...(r.ok ? {} : { ruleError: r.error.detail }),
    ...(messageError !== undefined ? { messageError } : {}),
  };
}

/** The compiled rules of a whole schema, by node. */
function compileSchema(root: Structural, rootPath: string): Map<Structural, NodeRules> {
  const out = new Map<Structural, NodeRules>();
  const walk = (node: Structural, path: string, isRoot: boolean, bounds: (number | undefined)[], uncorrelatable: string | undefined): void => {
    const raws = rawRules(node);
    if (raws.length > 0) {
      const envOf = nodeEnvironments(node, isRoot);
      out.set(node, { rules: raws.map((r) => compileRule(r, envOf, bounds)), schemaPath: path, ...(uncorrelatable !== undefined ? { uncorrelatable } : {}) });
    }
    for (const [k, p] of node.properties) walk(p, keyPath(`${path}.properties`, k), false, bounds, uncorrelatable);
    if (node.items) {
      const bound = typeof node.raw.maxItems === 'number' ? node.raw.maxItems : undefined;
      walk(node.items, `${path}.items`, false, [...bounds, bound], uncorrelatable ?? (node.listType === 'map' ? undefined : path));
    }
    if (node.additionalProperties && node.additionalProperties !== true) {
      const bound = typeof node.raw.maxProperties === 'number' ? node.raw.maxProperties : undefined;
      walk(node.additionalProperties, `${path}.additionalProperties`, false, [...bounds, bound], uncorrelatable);
    }
  };
  walk(root, rootPath, true, [], undefined);
  return out;
}

const MAX_REPORTED_EXPENSIVE = 4;

/**
 * kube's CEL checks of a CRD schema's x-kubernetes-validations at
 * `fldPath` (…openAPIV3Schema): compile and type errors, per-expression
 * cost over StaticEstimatedCostLimit, oldSelf where items are not
 * correlatable, optionalOldSelf without oldSelf, and the schema's total
 * cost over StaticEstimatedCRDCostLimit. `suppressPerExpressionCost`: a
 * CRD update that leaves this schema as it was (kube does not refuse it
 * for a per-expression limit it passed before).
 */
export function checkValidationRules(schema: JsonObject, fldPath: string, opts: { suppressPerExpressionCost?: boolean } = {}): FieldError[] {
  const perExpressionCost = opts.suppressPerExpressionCost !== true;
  const errs: FieldError[] = [];
  let total = 0;
  const expensive: { path: string; cost: number }[] = [];
  const observe = (path: string, cost: number): void => {
    total += cost;
    if (cost < STATIC_ESTIMATED_COST_LIMIT / 100) return;
    expensive.push({ path, cost });
    expensive.sort((a, b) => b.cost - a.cost);
    if (expensive.length > MAX_REPORTED_EXPENSIVE) expensive.pop();
  };
  for (const node of compileSchema(parseStructural(schema), fldPath).values()) {
    node.rules.forEach((r, i) => {
      const p = indexPath(`${node.schemaPath}.x-kubernetes-validations`, i);
      if (perExpressionCost && r.cost > STATIC_ESTIMATED_COST_LIMIT) errs.push({ type: 'FieldValueForbidden', field: `${p}.rule`, detail: costErrorMessage(RULE_COST_NAME, r.cost, STATIC_ESTIMATED_COST_LIMIT) });
      observe(`${p}.rule`, r.cost);
      if (r.ruleError !== undefined) {
        errs.push(r.raw.rule.trim() === ''
          ? { type: 'FieldValueRequired', field: `${p}.rule`, detail: r.ruleError }
          : { type: 'FieldValueInvalid', field: `${p}.rule`, value: validationRuleJson(r.raw), detail: r.ruleError });
      }
      if (r.messageError !== undefined) errs.push({ type: 'FieldValueInvalid', field: `${p}.messageExpression`, value: validationRuleJson(r.raw), detail: r.messageError });
      else if (r.messageProgram) {
        if (perExpressionCost && r.messageCost > STATIC_ESTIMATED_COST_LIMIT) {
          errs.push({ type: 'FieldValueForbidden', field: `${p}.messageExpression`, detail: costErrorMessage(MESSAGE_EXPRESSION_COST_NAME, r.messageCost, STATIC_ESTIMATED_COST_LIMIT) });
        }
        observe(`${p}.messageExpression`, r.messageCost);
      }
      if (r.usesOldSelf) {
        if (node.uncorrelatable !== undefined) {
          errs.push({ type: 'FieldValueInvalid', field: `${p}.rule`, value: r.raw.rule, detail: `oldSelf cannot be used on the uncorrelatable portion of the schema within ${node.uncorrelatable}` });
        }
      } else if (r.raw.optionalOldSelf !== undefined) {
        errs.push({ type: 'FieldValueInvalid', field: `${p}.optionalOldSelf`, value: r.raw.optionalOldSelf, detail: 'may not be set if oldSelf is not used in rule' });
      }
    });
  }
  const totalError = crdTotalCostError(total);
  if (totalError !== undefined) {
    for (const e of expensive) errs.push({ type: 'FieldValueForbidden', field: e.path, detail: CONTRIBUTED_TO_TOTAL_MESSAGE });
    errs.push({ type: 'FieldValueForbidden', field: fldPath, detail: totalError });
  }
  return errs;
}

/** kube's ruleErrorString: the message when there is one, else the rule. */
function ruleErrorString(r: RawRule): string {
  return r.message.length > 0 ? r.message.trim() : r.rule.trim();
}

function ruleMessageOrDefault(r: RawRule): string {
  return r.message.length === 0 ? `failed rule: ${ruleErrorString(r)}` : r.message.trim();
}

/** kube's fieldErrorForReason. */
function errorForReason(field: string, value: unknown, detail: string, reason: string | undefined): FieldError {
  switch (reason) {
    case 'FieldValueForbidden': return { type: 'FieldValueForbidden', field, detail };
    case 'FieldValueRequired': return { type: 'FieldValueRequired', field, detail };
    case 'FieldValueDuplicate': return { type: 'FieldValueDuplicate', field, value };
    default: return { type: 'FieldValueInvalid', field, value, detail };
  }
}

/** A rule's fieldPath (`.a.b`, `['a.b']`, `[0]`) as a relative field path (kube's ValidFieldPath's normalized path). */
function normalizedFieldPath(fieldPath: string): string {
  let out = '';
  const step = /^\.([a-zA-Z_][a-zA-Z0-9_]*)|^\['((?:[^'\\]|\\.)*)'\]|^\[(\d+)\]/;
  let rest = fieldPath.trim();
  while (rest.length > 0) {
    const m = step.exec(rest);
    if (!m) return out;
    if (m[1] !== undefined) out = childPath(out, m[1]);
    else if (m[2] !== undefined) out = childPath(out, m[2].replace(/\\(.)/g, '$1'));
    else out = indexPath(out, Number(m[3]));
    rest = rest.slice(m[0].length);
  }
  return out;
}

/** kube's root path is a nil field.Path, which prints as this. */
const NIL_PATH = '<nil>';

class Stop extends Error {}

/** One validation's state: its errors, the runtime budget, where ratcheted errors go. */
interface Run {
  readonly errs: FieldError[];
  readonly budget: CostBudget;
  readonly warn: (text: string) => void;
}

/** The x-kubernetes-validations of one schema, compiled once; run them with validate(). */
export class ValidationRules {
  private readonly nodes: Map<Structural, NodeRules>;

  constructor(private readonly root: Structural) {
    this.nodes = compileSchema(root, '');
  }

  /** Whether the schema has any rule. */
  get empty(): boolean {
    return this.nodes.size === 0;
  }

  /**
   * kube's CEL validator over an object (and, on update, its old version):
   * rules run with `self` (and `oldSelf` where an old value correlates, or
   * optional with optionalOldSelf), one runtime budget for the whole object;
   * errors of values unchanged from their old value are ratcheted: given
   * to `warn` (kube's warnings), not returned, unless the rule reads oldSelf.
   */
  validate(obj: JsonValue, old: JsonValue | undefined, warn?: (text: string) => void): FieldError[] {
    if (this.nodes.size === 0) return [];
    const errs: FieldError[] = [];
    const budget = new CostBudget(RUNTIME_CEL_COST_BUDGET);
    const run: Run = { errs, budget, warn: warn ?? (() => undefined) };
    try {
      this.walk(this.root, '', obj, old, run);
    } catch (e) {
      if (!(e instanceof Stop)) throw e;
    }
    return errs;
  }

  private walk(node: Structural, path: string, obj: JsonValue | undefined, old: JsonValue | undefined, run: Run): void {
    if (obj === undefined || obj === null) return;
    const rules = this.nodes.get(node);
    if (rules) this.runRules(node, rules.rules, path, obj, old, run);
    if (isJsonObject(obj)) {
      const oldObj = old !== undefined && isJsonObject(old) ? old : undefined;
      for (const [k, p] of node.properties) if (k in obj) this.walk(p, path === '' ? k : `${path}.${k}`, obj[k], oldObj?.[k], run);
      const ap = node.additionalProperties;
      if (ap && ap !== true) for (const [k, v] of Object.entries(obj)) this.walk(ap, keyPath(path, k), v, oldObj?.[k], run);
    } else if (Array.isArray(obj) && node.items) {
      const oldItems = node.listType === 'map' && Array.isArray(old) ? old : undefined;
      obj.forEach((item, i) => {
        const prev = oldItems ? correlatedItem(item, oldItems, node.listMapKeys) : undefined;
        this.walk(node.items!, indexPath(path, i), item, prev, run);
      });
    }
  }

  private runRules(node: Structural, rules: CompiledRule[], path: string, obj: JsonValue, old: JsonValue | undefined, run: Run): void {
    const { errs, budget } = run;
    const field = path === '' ? NIL_PATH : path;
    const type = node.type;
    const unchanged = old !== undefined && jsonEqual(obj, old);
    const selves = new Map<RuleEnvironment, { self: CelValue; old?: CelValue }>();
    for (const r of rules) {
      if (!r.env) continue;
      if (!r.program) {
        errs.push({ type: 'FieldValueInvalid', field, value: type, detail: `rule compile error: ${r.ruleError ?? ''}` });
        continue;
      }
      const optionalOld = r.raw.optionalOldSelf === true;
      if (r.usesOldSelf && old === undefined && !optionalOld) continue;
      let values = selves.get(r.env);
      if (!values) selves.set(r.env, (values = { self: toCel(r.env.environment, obj, r.env.selfType) }));
      if (values.old === undefined) values.old = toCel(r.env.environment, old, r.env.oldSelfType);
      const activation = { self: values.self, oldSelf: values.old };
      const result = evaluate(r.program, activation, { budget });
      if (!result.ok) {
        if (result.kind === 'outOfBudget') {
          errs.push({ type: 'FieldValueInvalid', field, value: type, detail: OUT_OF_BUDGET_MESSAGE });
          throw new Stop();
        }
        if (result.kind === 'costLimit') {
          errs.push({ type: 'FieldValueInvalid', field, value: type, detail: `'${result.message}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(r.raw)}` });
          throw new Stop();
        }
        const detail = result.message.startsWith('no such overload')
          ? `'${result.message}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(r.raw)}`
          : `${result.message} evaluating rule: ${ruleErrorString(r.raw)}`;
        errs.push({ type: 'FieldValueInvalid', field, value: type, detail });
        continue;
      }
      if (result.value === true) continue;
      const at = r.raw.fieldPath ? childPath(path, normalizedFieldPath(r.raw.fieldPath)) || field : field;
      const ratcheted = unchanged && !r.usesOldSelf;
      const add = (e: FieldError): void => {
        if (ratcheted) run.warn(fieldErrorString(e));
        else errs.push(e);
      };
      if (!r.messageProgram) {
        add(errorForReason(at, type, ruleMessageOrDefault(r.raw), r.raw.reason));
        continue;
      }
      const m = evaluate(r.messageProgram, activation, { budget });
      if (!m.ok && m.kind === 'outOfBudget') {
        add({ type: 'FieldValueInvalid', field: at, value: type, detail: 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run' });
        throw new Stop();
      }
      if (!m.ok && m.kind === 'costLimit') {
        add({ type: 'FieldValueInvalid', field: at, value: type, detail: `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${r.raw.messageExpression}` });
        throw new Stop();
      }
      const text = m.ok && typeof m.value === 'string' ? m.value.trim() : '';
      const usable = text !== '' && Buffer.byteLength(text) <= MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES && !/[\n\r]/.test(text);
      add(errorForReason(at, type, usable ? text : ruleMessageOrDefault(r.raw), r.raw.reason));
    }
  }
}

/** The old item of a map list with the same keys as `item` (kube correlates map-list items by their keys). */
function correlatedItem(item: JsonValue, old: readonly JsonValue[], keys: readonly string[]): JsonValue | undefined {
  if (!isJsonObject(item) || keys.length === 0) return undefined;
  return old.find((o) => isJsonObject(o) && keys.every((k) => jsonEqual(o[k] ?? null, item[k] ?? null)));
}
