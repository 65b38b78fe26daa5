import {
  admissionPolicyEnvironment, compile, compositionType, Types, type CelEnvironment, type CompileOptions, type DeclType, type Program,
} from '../../cel/index.js';
import type { NamedExpression } from './types.js';

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
  readonly variablesType: ReturnType<typeof compositionType> | undefined;

  constructor(variables: readonly NamedExpression[] | undefined) {
    const compiled: CompiledVariable[] = [];
    const declared: { name: string; type: DeclType }[] = [];
    for (const v of variables ?? []) {
      const env = declared.length === 0 ? admissionPolicyEnvironment() : admissionPolicyEnvironment({ variables: compositionType(declared) });
      const name = v.name ?? '';
      const c = compileIn(env, v.expression ?? '');
      compiled.push({ name, compiled: c });
      declared.push({ name, type: 'program' in c ? c.program.outputDeclType : Types.dyn });
    }
    this.variablesType = declared.length > 0 ? compositionType(declared) : undefined;
    this.environment = this.variablesType ? admissionPolicyEnvironment({ variables: this.variablesType }) : admissionPolicyEnvironment();
    // Each variable was checked seeing only the ones before it; all run in the final environment, whose
    // `variables` object type is the one the evaluation builds.
    this.variables = compiled.map((v) => ('error' in v.compiled ? v : { name: v.name, compiled: compileIn(this.environment, v.compiled.expression) }));
  }

  compile(expression: string, returnTypes?: readonly string[]): Compiled {
    return compileIn(this.environment, expression, returnTypes ? { returnTypes } : {});
  }
}

function compileIn(env: CelEnvironment, expression: string, options: CompileOptions = {}): Compiled {
  const r = compile(expression, env, options);
  return r.ok ? { expression, program: r.program } : { expression, error: r.error.detail };
}
