/**
 * Whether a parsed expression selects `variable.field` or `variable.?field`
 * (kube's hasSelectExp). Macros (has, all, exists, ...) keep their
 * operands among the node's arguments, so walking every argument finds the
 * select wherever it sits; an index (`variable['field']`) does not count,
 * as in kube.
 */
interface Node {
  readonly op: string;
  readonly args: unknown;
}

function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && 'op' in v && 'args' in v;
}

/** `variable` undefined: a select of `field` on anything. */
export function selectsField(ast: unknown, variable: string | undefined, field: string): boolean {
  const seen = new Set<unknown>();
  const walk = (v: unknown): boolean => {
    if (typeof v !== 'object' || v === null || seen.has(v)) return false;
    seen.add(v);
    if (Array.isArray(v)) return v.some(walk);
    if (!isNode(v)) return false;
    if ((v.op === '.' || v.op === '.?') && Array.isArray(v.args)) {
      const [operand, name] = v.args as [unknown, unknown];
      if (name === field && (variable === undefined || (isNode(operand) && operand.op === 'id' && operand.args === variable))) return true;
    }
    return walk(v.args);
  };
  return walk(ast);
}
