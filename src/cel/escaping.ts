/**
 * Property-name escaping of kube's CEL (k8s.io/apiserver/pkg/cel/escaping.go):
 * a schema property is reachable from CEL under an identifier.
 */

const RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

const EXPAND = /__|[-./]|[^a-zA-Z0-9\-./_]/g;
const PLAIN = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * The CEL identifier for a property name, or undefined when the name is not
 * of the form `[a-zA-Z_.-/][a-zA-Z0-9_.-/]*` (such properties are not
 * reachable). `__` → `__underscores__`, `.` → `__dot__`, `-` → `__dash__`,
 * `/` → `__slash__`, a reserved word `w` → `__w__`.
 */
export function escapeProperty(name: string): string | undefined {
  if (name.length === 0 || (name[0]! >= '0' && name[0]! <= '9')) return undefined;
  if (RESERVED.has(name)) return `__${name}__`;
  if (PLAIN.test(name) && !name.includes('__')) return name;
  let ok = true;
  const out = name.replace(EXPAND, (s) => {
    switch (s) {
      case '__': return '__underscores__';
      case '.': return '__dot__';
      case '-': return '__dash__';
      case '/': return '__slash__';
      default: ok = false; return '';
    }
  });
  return ok ? out : undefined;
}

const UNEXPAND = /__[^_]+__/g;

/** The property name behind an escaped identifier, or undefined if it holds an unknown escape. */
export function unescapeProperty(escaped: string): string | undefined {
  let ok = true;
  const out = escaped.replace(UNEXPAND, (s) => {
    const inner = s.slice(2, -2);
    switch (inner) {
      case 'underscores': return '__';
      case 'dot': return '.';
      case 'dash': return '-';
      case 'slash': return '/';
    }
    if (RESERVED.has(inner)) {
      if (s.length !== escaped.length) ok = false;
      return inner;
    }
    ok = false;
    return '';
  });
  return ok ? out : undefined;
}
