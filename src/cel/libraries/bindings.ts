import type { Environment } from '@marcbachmann/cel-js';
import type { AstNode, Checker, MacroCall } from './macro-shapes.js';

/*
 * cel-js always has cel-go's ext.Bindings (`cel.bind(var, init, expr)`), as
 * a macro on its `cel` constant. kube-apiserver's base environment
 * (apiserver/pkg/cel/environment/base.go, 1.36) does not enable
 * ext.Bindings at any compatibility version (only the DRA device selector
 * environment adds it), so there `cel.bind(...)` is a call on an undeclared
 * identifier. cel-js expands macros by name and arity whatever the receiver,
 * so a macro registered here under the same name and arity takes the call
 * over and refuses it at type check with cel-go's first error.
 */

function refuseBind({ ast, receiver }: MacroCall): object {
  return {
    typeCheck(chk: Checker, _m: unknown, ctx: unknown): never {
      // cel-go sorts its errors by position: the receiver's comes first
      if (receiver.op === 'id' && receiver.args === 'cel') throw chk.createError('unknown_variable', 'Unknown variable: cel', receiver);
      chk.check(receiver, ctx);
      // then 'bind' itself, reported at the call, before its arguments' errors
      throw chk.createError('unknown_variable', 'Unknown variable: bind', ast);
    },
    evaluate(): never {
      throw new Error('cel.bind is not in the Kubernetes base environment');
    },
  };
}

/** Refuses `cel.bind(...)` (and any `x.bind(a, b, c)`) as kube's base environment does. */
export function refuseBindings(env: Environment): void {
  env.registerFunction('bytes.bind(ast, ast, ast): dyn', (call: MacroCall) => refuseBind(call));
}
