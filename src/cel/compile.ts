import { engineOf, type CelEnvironment } from './environment.js';
import { formatIssue, formatIssueAt, type CelError } from './errors.js';
import { validateLiterals } from './validators.js';
import { aliasOf, rewriteQualifiedNames } from './qualified-names.js';

/** The activation with dotted variable names under their aliases. */
function aliased(activation: Record<string, unknown>, dotted: readonly string[]): Record<string, unknown> {
  const out = { ...activation };
  for (const name of dotted) if (name in activation) out[aliasOf(name)] = activation[name];
  return out;
}
import { estimateCost, type AstNodeLike } from './cost-estimate.js';
import type { CostEstimate } from './libraries/cost.js';
import { instrument } from './runtime-cost.js';
import { listOf, mapOf, namedType, optionalOf, Types, type DeclType } from './types.js';
import { referencedVariables, selectsField } from './field-use.js';

/** A checked, compiled expression: evaluate it with evaluate(). */
export interface Program {
  readonly expression: string;
  readonly environment: CelEnvironment;
  /** The result type in kube's spelling (bool, string, list(string), map(string, dyn), ...). */
  readonly outputType: string;
  /** The result type as a declared type (e.g. to declare a policy variable from it). */
  readonly outputDeclType: DeclType;
  /** Static worst-case cost (cel-go's estimate with the environment's size bounds). */
  readonly cost: CostEstimate;
  /** The declared variables the expression reads (e.g. whether a CRD rule is a transition rule: it reads oldSelf). */
  readonly references: ReadonlySet<string>;
  /**
   * Whether the expression selects `variable.field` (or `variable.?field`;
   * `field` of anything when variable is undefined) anywhere, as kube's
   * hasSelectExp does on the checked AST (authentication requires
   * claims.email_verified beside claims.email; authorization passes
   * selectors to expressions that read them).
   */
  readonly selects: (variable: string | undefined, field: string) => boolean;
  /** @internal runs the compiled expression against an activation of CEL values. */
  readonly run: (activation: Record<string, unknown>) => unknown;
}

export type CompileResult = { readonly ok: true; readonly program: Program } | { readonly ok: false; readonly error: CelError };

/** Options of compile(). */
export interface CompileOptions {
  /**
   * Result types the use accepts (kube spelling, e.g. ['bool']); another
   * result type is the error "must evaluate to bool" (kube's text).
   */
  readonly returnTypes?: readonly string[];
  /** The error when the result type is not one of returnTypes, if not kube's policy wording (e.g. RULE_MUST_BE_BOOL). */
  readonly wrongTypeDetail?: string;
  /** Prefix of syntax and type errors (kube: "compilation failed: "; CRD messageExpressions: "messageExpression compilation failed: "). */
  readonly errorPrefix?: string;
}

/** kube's error for a CRD validation rule that is not a bool. */
export const RULE_MUST_BE_BOOL = 'cel expression must evaluate to a bool';
/** kube's error for a CRD rule's messageExpression that is not a string. */
export const MESSAGE_EXPRESSION_MUST_BE_STRING = 'messageExpression must evaluate to a string';

interface EngineType {
  readonly kind: string;
  readonly name: string;
  readonly valueType?: EngineType;
  readonly keyType?: EngineType;
}

const SCALARS: Record<string, DeclType> = {
  bool: Types.bool, int: Types.int, uint: Types.uint, double: Types.double, string: Types.string, bytes: Types.bytes,
  null_type: Types.null, dyn: Types.dyn,
};

function declTypeOf(t: EngineType | undefined, env: CelEnvironment): DeclType {
  if (!t) return Types.dyn;
  switch (t.kind) {
    case 'list': return listOf(declTypeOf(t.valueType, env));
    case 'map': return mapOf(declTypeOf(t.keyType, env), declTypeOf(t.valueType, env));
    case 'dyn': return Types.dyn;
    case 'optional': return optionalOf(declTypeOf(t.valueType, env));
  }
  if (t.name === 'google.protobuf.Timestamp') return Types.timestamp;
  if (t.name === 'google.protobuf.Duration') return Types.duration;
  const scalar = SCALARS[t.name];
  if (scalar) return scalar;
  return env.objectTypeNamed(t.name) ?? namedType(t.name);
}

/** kube's spelling of an engine type. */
function kubeTypeName(t: EngineType | undefined): string {
  if (!t) return 'dyn';
  switch (t.kind) {
    case 'list': return `list(${kubeTypeName(t.valueType)})`;
    case 'map': return `map(${kubeTypeName(t.keyType)}, ${kubeTypeName(t.valueType)})`;
    case 'optional': return `optional_type(${kubeTypeName(t.valueType)})`;
  }
  if (t.name === 'google.protobuf.Timestamp') return 'timestamp';
  if (t.name === 'google.protobuf.Duration') return 'duration';
  return t.name;
}

/** Programs per environment, so that they go with it; the oldest go first past the bound. */
const MAX_CACHED_PER_ENVIRONMENT = 4096;
const caches = new WeakMap<CelEnvironment, Map<string, CompileResult>>();

/** Number of compiled programs (and compile errors) cached for an environment. */
export function compiledProgramCount(environment: CelEnvironment): number {
  return caches.get(environment)?.size ?? 0;
}

/**
 * Parses and type-checks an expression in an environment. Programs are
 * cached by (environment, expression, options): compiling the
 * same text again in the same environment returns the same Program. Errors
 * are kube's: "compilation failed: ERROR: <input>:L:C: ..." for syntax and
 * type errors.
 */
export function compile(expression: string, environment: CelEnvironment, options: CompileOptions = {}): CompileResult {
  let cache = caches.get(environment);
  if (!cache) caches.set(environment, (cache = new Map()));
  const key = options.returnTypes || options.wrongTypeDetail || options.errorPrefix
    ? `${(options.returnTypes ?? []).join(',')}\u0000${options.wrongTypeDetail ?? ''}\u0000${options.errorPrefix ?? ''}\u0000${expression}`
    : expression;
  const hit = cache.get(key);
  if (hit) return hit;
  const result = compileUncached(expression, environment, options);
  if (cache.size >= MAX_CACHED_PER_ENVIRONMENT) cache.delete(cache.keys().next().value!);
  cache.set(key, result);
  return result;
}

function compileUncached(expression: string, environment: CelEnvironment, options: CompileOptions): CompileResult {
  const engine = engineOf(environment);
  const prefix = options.errorPrefix ?? 'compilation failed: ';
  let parsed: ReturnType<typeof engine.parse>;
  const dotted = environment.dottedNames;
  try {
    parsed = engine.parse(rewriteQualifiedNames(expression, dotted));
  } catch (e) {
    return { ok: false, error: { type: 'invalid', detail: `${prefix}${formatIssue(expression, e, environment.functionNames())}` } };
  }
  const checked = parsed.check();
  if (!checked.valid) {
    return { ok: false, error: { type: 'invalid', detail: `${prefix}${formatIssue(expression, checked.error, environment.functionNames())}` } };
  }
  const literalIssue = validateLiterals(parsed.ast);
  if (literalIssue) {
    return { ok: false, error: { type: 'invalid', detail: `${prefix}${formatIssueAt(expression, literalIssue.offset, literalIssue.message)}` } };
  }
  const ast = parsed.ast as unknown as AstNodeLike & { checkedType?: EngineType };
  const outputType = kubeTypeName(ast.checkedType);
  const returnTypes = options.returnTypes;
  if (returnTypes && returnTypes.length > 0 && !returnTypes.includes(outputType) && !returnTypes.includes('any')) {
    const reason = options.wrongTypeDetail ??
      (returnTypes.length === 1 ? `must evaluate to ${returnTypes[0]}` : `must evaluate to one of [${returnTypes.join(' ')}]`);
    return { ok: false, error: { type: 'invalid', detail: reason } };
  }
  let cost: CostEstimate;
  try {
    cost = estimateCost(ast, environment.variables, environment.pathSizes);
  } catch (e) {
    return { ok: false, error: { type: 'internal', detail: `cost estimation failed: ${(e as Error).message}` } };
  }
  instrument(parsed.ast);
  return {
    ok: true,
    program: {
      expression,
      environment,
      outputType,
      outputDeclType: declTypeOf(ast.checkedType, environment),
      cost,
      references: referencedVariables(parsed.ast, environment.variables),
      selects: (variable, field) => selectsField(parsed.ast, variable, field),
      run: dotted.length === 0 ? (activation) => parsed(activation) : (activation) => parsed(aliased(activation, dotted)),
    },
  };
}
