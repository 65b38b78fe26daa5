import { compositionType } from './activation.js';
import { compile, type CompileOptions, type Program } from './compile.js';
import type { CelEnvironment } from './environment.js';
import { admissionPolicyEnvironment } from './environments.js';
import { rewriteMessageLiterals } from './message-literals.js';
import { Types, type DeclType, type ObjectType } from './types.js';

/** A policy variable or named condition as the API has it. */
export interface NamedExpression {
  name?: string;
  expression?: string;
}

/**
 * A policy's CEL compiled once per policy generation (kube's
 * CompileAndStoreVariables + filter compilers): its variables in order,
 * each typed for the ones after it, then every other expression in the
 * environment that declares them all. A compile error is kept with the
 * expression and reported when it would run, as kube does.
 */

export type Compiled = { readonly expression: string; readonly program: Program } | { readonly expression: string; readonly error: string };

export interface CompiledVariable {
  readonly name: string;
  readonly compiled: Compiled;
}

export class PolicyExpressions {
  readonly variables: readonly CompiledVariable[];
  readonly environment: CelEnvironment;
  readonly variablesType: ObjectType | undefined;

  constructor(
    variables: readonly NamedExpression[] | undefined,
    /** The environment with the given `variables` type (the type checker's has typed object and params). */
    environmentFor: (variables: ObjectType | undefined) => CelEnvironment = (v) => admissionPolicyEnvironment(v ? { variables: v } : {}),
    private readonly errorPrefix?: string,
  ) {
    const compiled: CompiledVariable[] = [];
    const declared: { name: string; type: DeclType }[] = [];
    for (const v of variables ?? []) {
      const env = environmentFor(declared.length === 0 ? undefined : compositionType(declared));
      const name = v.name ?? '';
      const c = compileIn(env, v.expression ?? '', errorPrefix === undefined ? {} : { errorPrefix });
      compiled.push({ name, compiled: c });
      declared.push({ name, type: 'program' in c ? c.program.outputDeclType : Types.dyn });
    }
    this.variablesType = declared.length > 0 ? compositionType(declared) : undefined;
    this.environment = environmentFor(this.variablesType);
    // Each variable was checked seeing only the ones before it; all run in the final environment, whose
    // `variables` object type is the one the evaluation builds.
    this.variables = compiled.map((v) => ('error' in v.compiled ? v : { name: v.name, compiled: compileIn(this.environment, v.compiled.expression) }));
  }

  compile(expression: string, returnTypes?: readonly string[]): Compiled {
    return compileIn(this.environment, expression, {
      ...(returnTypes ? { returnTypes } : {}),
      ...(this.errorPrefix === undefined ? {} : { errorPrefix: this.errorPrefix }),
    });
  }
}

/** compile() for expressions that construct messages (`Object{...}`, `JSONPatch{...}`): see message-literals.ts. */
export function compileConstruction(expressions: PolicyExpressions, expression: string): Compiled {
  const r = compile(rewriteMessageLiterals(expression), expressions.environment);
  return r.ok ? { expression, program: r.program } : { expression, error: r.error.detail };
}

function compileIn(env: CelEnvironment, expression: string, options: CompileOptions = {}): Compiled {
  const r = compile(expression, env, options);
  return r.ok ? { expression, program: r.program } : { expression, error: r.error.detail };
}
