/**
 * The parts of cel-js's (untyped) macro interface that the macros of this
 * folder use: a macro's handler gets the call's AST at parse time and
 * returns hooks that the type checker and the evaluator call.
 */

export interface AstNode {
  readonly op: string;
  readonly args: unknown;
  readonly maybeAsync: boolean;
  setMeta(key: string, value: unknown): unknown;
}

export interface TypeDecl {
  readonly kind: string;
  readonly name: string;
  readonly valueType?: TypeDecl;
  readonly keyType?: TypeDecl;
  unify(registry: unknown, other: TypeDecl): TypeDecl | null;
}

/** Type-check and evaluation contexts alike fork a context with one more variable. */
export interface Context {
  forkWithVariable(name: string, type: TypeDecl): Context;
  setIterValue(v: unknown, ev: Evaluator): Context;
}

export interface Checker {
  check(node: AstNode, ctx: unknown): TypeDecl;
  getType(name: string): TypeDecl;
  registry: { getListType(t: TypeDecl): TypeDecl; getMapType(k: TypeDecl, v: TypeDecl): TypeDecl };
  createError(code: string, message: string, node: AstNode): Error;
}

export interface Evaluator {
  run(node: AstNode, ctx: unknown): unknown;
}

export interface MacroCall {
  readonly ast: AstNode;
  readonly args: readonly AstNode[];
  readonly receiver: AstNode;
}
