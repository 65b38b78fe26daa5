import { isRecord } from './json.js';
import { badRequest } from './errors.js';
import { isQualifiedName, isValidLabelValue } from './name-validation.js';
import { valueAt, type KubeObject } from './object.js';

/**
 * Label and field selectors with kube-apiserver's grammar
 * (k8s.io/apimachinery/pkg/labels and pkg/fields).
 */

export type LabelOperator = 'exists' | '!exists' | '=' | '!=' | 'in' | 'notin' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  op: LabelOperator;
  values: string[];
}

export interface LabelSelector {
  requirements: LabelRequirement[];
  matches(labels: Record<string, string> | undefined): boolean;
  empty: boolean;
}


function labelSelectorFrom(requirements: LabelRequirement[]): LabelSelector {
  return {
    requirements,
    empty: requirements.length === 0,
    matches(labels) {
      const l = labels ?? {};
      return requirements.every((r) => requirementMatches(r, l));
    },
  };
}

function requirementMatches(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const v = labels[r.key];
  switch (r.op) {
    case 'exists':
      return has;
    case '!exists':
      return !has;
    case '=':
    case 'in':
      return has && r.values.includes(v!);
    case '!=':
    case 'notin':
      return !has || !r.values.includes(v!);
    case 'gt':
    case 'lt': {
      if (!has) return false;
      const n = parseInt64(v!);
      const bound = parseInt64(r.values[0] ?? '');
      if (n === undefined || bound === undefined) return false;
      return r.op === 'gt' ? n > bound : n < bound;
    }
  }
}

/** strconv.ParseInt(s, 10, 64): an optional sign and decimal digits, in int64 range. */
function parseInt64(text: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const n = BigInt(text);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

/** The label selector lexer's whitespace and operator characters (labels/selector.go). */
const isWhitespace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string | undefined): boolean => c !== undefined && '=!(),><'.includes(c);

const BINARY_OPERATORS = new Map<string, LabelOperator>([
  ['=', '='],
  ['==', '='],
  ['!=', '!='],
  ['in', 'in'],
  ['notin', 'notin'],
  ['>', 'gt'],
  ['<', 'lt'],
]);

/**
 * Parses a `labelSelector` query value; throws a 400 ApiError on bad syntax,
 * with labels.Parse's messages: errors inside a requirement are prefixed with
 * `unable to parse requirement: `, errors between requirements are not.
 */
export function parseLabelSelector(text: string | null | undefined): LabelSelector {
  const s = text ?? '';
  const reqs: LabelRequirement[] = [];
  let i = 0;
  const fail = (msg: string): never => {
    throw badRequest(`unable to parse requirement: ${msg}`);
  };
  const failBetween = (msg: string): never => {
    throw badRequest(msg);
  };
  const skipWs = (): void => {
    while (i < s.length && isWhitespace(s[i])) i++;
  };
  /** The next token's literal, as the lexer would scan it ('' at the end). */
  const peek = (): string => {
    skipWs();
    if (i >= s.length) return '';
    if (isSpecial(s[i])) return s.startsWith('!=', i) || s.startsWith('==', i) ? s.slice(i, i + 2) : s[i]!;
    let j = i;
    while (j < s.length && !isWhitespace(s[j]) && !isSpecial(s[j])) j++;
    return s.slice(i, j);
  };
  const next = (): string => {
    const lit = peek();
    i += lit.length;
    return lit;
  };
  const isIdentifier = (lit: string): boolean => lit !== '' && !isSpecial(lit[0]);
  for (;;) {
    const first = peek();
    if (first === '') break;
    if (!isIdentifier(first) && first !== '!') failBetween(`found '${first}', expected: !, identifier, or 'end of string'`);
    const negate = first === '!';
    if (negate) next();
    const key = next();
    if (!isIdentifier(key)) fail(`found '${key}', expected: identifier`);
    const keyErrs = isQualifiedName(key);
    if (keyErrs.length > 0) fail(`<nil>: Invalid value: ${JSON.stringify(key)}: ${keyErrs.join('; ')}`);
    const after = peek();
    if (negate) {
      reqs.push({ key, op: '!exists', values: [] });
    } else if (after === '' || after === ',') {
      reqs.push({ key, op: 'exists', values: [] });
    } else {
      const opLit = next();
      const op = BINARY_OPERATORS.get(opLit);
      if (!op) return fail(`found '${opLit}', expected: in, notin, =, ==, !=, gt, lt`);
      let values: string[];
      if (op === 'in' || op === 'notin') {
        const open = next();
        if (open !== '(') fail(`found '${open}' expected: '('`);
        const set = new Set<string>();
        const la = peek();
        if (la === ')') {
          next();
          set.add('');
        } else if (!isIdentifier(la) && la !== ',') {
          fail(`found '${la}', expected: ',', ')' or identifier`);
        } else {
          for (;;) {
            const lit = next();
            if (isIdentifier(lit)) {
              set.add(lit);
              const la2 = peek();
              if (la2 === ',') continue;
              if (la2 === ')') break;
              fail(`found '${la2}', expected: ',' or ')'`);
            } else if (lit === ',') {
              if (set.size === 0) set.add('');
              const la2 = peek();
              if (la2 === ')') {
                set.add('');
                break;
              }
              if (la2 === ',') {
                next();
                set.add('');
              }
            } else {
              fail(`found '${lit}', expected: ',', or identifier`);
            }
          }
          next(); // ')'
        }
        values = [...set].sort();
      } else {
        const la = peek();
        if (la === '' || la === ',') values = [''];
        else {
          const lit = next();
          if (!isIdentifier(lit)) fail(`found '${lit}', expected: identifier`);
          values = [lit];
        }
      }
      const errs = requirementValueErrors(key, op, values);
      if (errs.length > 0) fail(errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`);
      reqs.push({ key, op, values });
    }
    const sep = next();
    if (sep === '') break;
    if (sep !== ',') failBetween(`found '${sep}', expected: ',' or 'end of string'`);
    const la = peek();
    if (!isIdentifier(la) && la !== '!') failBetween(`found '${la}', expected: identifier after ','`);
  }
  return labelSelectorFrom(reqs);
}

/** labels.NewRequirement's value checks, as its aggregated field errors read (duplicates once). */
function requirementValueErrors(key: string, op: LabelOperator, values: string[]): string[] {
  const errs: string[] = [];
  if (op === 'gt' || op === 'lt') {
    values.forEach((v, i) => {
      if (parseInt64(v) === undefined) errs.push(`values[${i}]: Invalid value: ${JSON.stringify(v)}: for 'Gt', 'Lt' operators, the value must be an integer`);
    });
  }
  values.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length > 0) errs.push(`values[${i}][${key}]: Invalid value: ${JSON.stringify(v)}: ${msgs.join('; ')}`);
  });
  return [...new Set(errs)];
}

export interface FieldRequirement {
  field: string;
  op: '=' | '!=';
  value: string;
}

export interface FieldSelector {
  requirements: FieldRequirement[];
  empty: boolean;
  matches(fields: Record<string, string>): boolean;
  /** The value a requirement pins `field` to with `=`, if any (for e.g. metadata.name watches). */
  exactValue(field: string): string | undefined;
}

/** Parses a `fieldSelector` query value (`a=b,c!=d`, with `\` escapes). */
export function parseFieldSelector(text: string | null | undefined): FieldSelector {
  const s = text ?? '';
  const reqs: FieldRequirement[] = [];
  for (const term of splitEscaped(s, ',')) {
    if (term === '') continue;
    const m = findOperator(term);
    if (!m) throw badRequest(`invalid selector: '${s}'; can't understand '${term}'`);
    // As fields.ParseSelector: the label is taken literally, the value unescaped.
    const field = term.slice(0, m.index);
    const value = unescapeFieldValue(term.slice(m.index + m.op.length));
    reqs.push({ field, op: m.op === '!=' ? '!=' : '=', value });
  }
  return {
    requirements: reqs,
    empty: reqs.length === 0,
    matches(fields) {
      return reqs.every((r) => {
        const v = fields[r.field] ?? '';
        return r.op === '=' ? v === r.value : v !== r.value;
      });
    },
    exactValue(field) {
      return reqs.find((r) => r.field === field && r.op === '=')?.value;
    },
  };
}

function splitEscaped(s: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\' && i + 1 < s.length) {
      cur += c + s[i + 1];
      i++;
    } else if (c === sep) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/** fields.splitTerm: the first `!=`, `==` or `=` (escapes are not looked at). */
function findOperator(term: string): { index: number; op: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    if (term.startsWith('!=', i)) return { index: i, op: '!=' };
    if (term.startsWith('==', i)) return { index: i, op: '==' };
    if (term[i] === '=') return { index: i, op: '=' };
  }
  return undefined;
}

/** fields.UnescapeValue: `\\`, `\,` and `\=` only; a bare `,` or `=` is an error. */
function unescapeFieldValue(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\') {
      const n = s[i + 1];
      if (n === undefined) throw badRequest('invalid field selector: invalid escape sequence: \\');
      if (n !== '\\' && n !== ',' && n !== '=') throw badRequest(`invalid field selector: invalid escape sequence: \\${n}`);
      out += n;
      i++;
    } else if (c === ',' || c === '=') {
      throw badRequest(`invalid field selector: unescaped character in value: ${c}`);
    } else out += c;
  }
  return out;
}

/**
 * Whether a metav1.LabelSelector (matchLabels + matchExpressions, as stored)
 * selects `labels`. A missing selector selects nothing; an empty one
 * everything (policy/v1 semantics).
 */
export function labelSelectorMatches(selector: unknown, labels: Record<string, string> | undefined): boolean {
  if (selector === undefined || selector === null || typeof selector !== 'object') return false;
  const s = selector as { matchLabels?: unknown; matchExpressions?: unknown };
  const l = labels ?? {};
  for (const [k, v] of Object.entries(isRecord(s.matchLabels) ? s.matchLabels : {})) if (l[k] !== v) return false;
  for (const item of Array.isArray(s.matchExpressions) ? s.matchExpressions : []) {
    // A null element decodes as Go's zero requirement, whose empty operator selects nothing.
    const e = (isRecord(item) ? item : {}) as { key?: string; operator?: string; values?: string[] };
    const key = e.key ?? '';
    const has = Object.prototype.hasOwnProperty.call(l, key);
    const values = Array.isArray(e.values) ? e.values : [];
    switch (e.operator) {
      case 'In':
        if (!has || !values.includes(l[key]!)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(l[key]!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}
