import {
  claimsEnvironment, compile, evaluate, mapOf, toCel, Types, UserInfoType, userEnvironment, type CelValue, type Program,
} from '../cel/index.js';
import type { UserInfo } from '../machinery/context.js';
import type { FieldError } from '../machinery/errors.js';

/**
 * The CEL side of a JWT authenticator (kube's authentication/cel): its
 * expressions compiled over `claims` (map(string, dyn)) or `user`
 * (kubernetes.UserInfo), evaluated per verified token. Rules must be bool
 * at compile time; mappings may be anything (their type is checked on
 * evaluation, as kube does: claims are dyn).
 */

export type ExpressionInput = 'claims' | 'user';
export type ExpressionResult = 'bool' | 'any';

export type Compiled = { readonly program: Program } | { readonly error: FieldError };

/** Compiles one expression; a failure is the FieldError kube reports at `field`. */
export function compileAuthnExpression(expression: string, over: ExpressionInput, returns: ExpressionResult, field: string): Compiled {
  const environment = over === 'claims' ? claimsEnvironment() : userEnvironment();
  const result = compile(expression, environment, returns === 'bool' ? { returnTypes: ['bool'] } : {});
  if (result.ok) return { program: result.program };
  return {
    error: result.error.type === 'invalid'
      ? { type: 'FieldValueInvalid', field, value: expression, detail: result.error.detail }
      : { type: 'InternalError', field, detail: result.error.detail },
  };
}

/** The program of an expression that validation accepted. */
export function compiledProgram(expression: string, over: ExpressionInput, returns: ExpressionResult): Program {
  const compiled = compileAuthnExpression(expression, over, returns, '');
  if ('error' in compiled) throw new Error(`expression ${JSON.stringify(expression)} does not compile: ${compiled.error.detail ?? ''}`);
  return compiled.program;
}

/** The `claims` variable: the token's claims as CEL values (convert once per token). */
export function claimsValue(claims: Record<string, unknown>): CelValue {
  return toCel(claimsEnvironment(), claims, mapOf(Types.string, Types.dyn));
}

/** The `user` variable: absent fields are empty, as kube fills them. */
export function userValue(user: UserInfo): CelValue {
  return toCel(userEnvironment(), { username: user.username, uid: user.uid ?? '', groups: user.groups ?? [], extra: user.extra ?? {} }, UserInfoType);
}

/** An evaluation: the value, or kube's "expression '<text>' resulted in error: <cause>". */
export function evaluateExpression(program: Program, name: ExpressionInput, value: CelValue): { ok: true; value: unknown } | { ok: false; message: string } {
  const result = evaluate(program, { [name]: value });
  if (result.ok) return { ok: true, value: result.value };
  return { ok: false, message: `expression '${program.expression}' resulted in error: ${result.message}` };
}

/**
 * kube's convertCELValueToStringList: a string or a list of strings; '' and
 * [] (and null) are no values, '' inside a list is dropped. Undefined when
 * the value is neither.
 */
export function stringList(value: unknown): string[] | undefined {
  if (value === null) return [];
  if (typeof value === 'string') return value === '' ? [] : [value];
  if (!Array.isArray(value)) return undefined;
  if (!value.every((v) => typeof v === 'string')) return undefined;
  return (value as string[]).filter((v) => v !== '');
}
