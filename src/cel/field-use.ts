/**
 * What a parsed expression uses: the declared variables it reads (a CRD
 * rule reading oldSelf is a transition rule), and whether it selects
 * `variable.field` or `variable.?field` (kube's hasSelectExp). Macros (has,
 * all, exists, ...) keep their operands among the node's arguments, so
 * walking every argument finds a select wherever it sits; an index
 * (`variable['field']`) does not count, as in kube.
 */
interface Node {
  readonly op: string;
  readonly args: unknown;
}

function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && 'op' in v && 'args' in v;
}

/**
 * Calls `visit` on every node of a parsed expression once, until it returns
 * true; plain objects and arrays between nodes (e.g. map literal entries)
 * are walked through.
 */
function someNode(ast: unknown, visit: (node: Node) => boolean): boolean {
  const seen = new Set<unknown>();
  const walk = (v: unknown): boolean => {
    if (typeof v !== 'object' || v === null || seen.has(v)) return false;
    seen.add(v);
    if (Array.isArray(v)) return v.some(walk);
    if (!isNode(v)) return Object.values(v).some(walk);
    return visit(v) || walk(v.args);
  };
  return walk(ast);
}

/** `variable` undefined: a select of `field` on anything. */
export function selectsField(ast: unknown, variable: string | undefined, field: string): boolean {
  return someNode(ast, (v) => {
    if ((v.op !== '.' && v.op !== '.?') || !Array.isArray(v.args)) return false;
    const [operand, name] = v.args as [unknown, unknown];
    return name === field && (variable === undefined || (isNode(operand) && operand.op === 'id' && operand.args === variable));
  });
}

/** The identifiers of a parsed expression that name declared variables. */
export function referencedVariables(ast: unknown, declared: ReadonlyMap<string, unknown>): ReadonlySet<string> {
  const found = new Set<string>();
  someNode(ast, (v) => {
    if (v.op === 'id' && typeof v.args === 'string' && declared.has(v.args)) found.add(v.args);
    return false;
  });
  return found;
}
