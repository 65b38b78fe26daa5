import { badRequest } from '../server/errors.js';
import type { KubeObject } from './object.js';

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

const LABEL_KEY_CHARS = /[A-Za-z0-9_.\-/]/;

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
      const n = Number(v);
      if (!Number.isInteger(n)) return false;
      const bound = Number(r.values[0]);
      return r.op === 'gt' ? n > bound : n < bound;
    }
  }
}

/** Parses a `labelSelector` query value; throws a 400 ApiError on bad syntax. */
export function parseLabelSelector(text: string | null | undefined): LabelSelector {
  const s = (text ?? '').trim();
  if (!s) return labelSelectorFrom([]);
  const reqs: LabelRequirement[] = [];
  let i = 0;
  const fail = (msg: string): never => {
    throw badRequest(`unable to parse requirement: ${msg}`);
  };
  const skipWs = (): void => {
    while (i < s.length && /\s/.test(s[i]!)) i++;
  };
  const readIdentifier = (): string => {
    skipWs();
    const start = i;
    while (i < s.length && LABEL_KEY_CHARS.test(s[i]!)) i++;
    return s.slice(start, i);
  };
  const readValue = (): string => {
    skipWs();
    const start = i;
    while (i < s.length && !/[\s,()!=<>]/.test(s[i]!)) i++;
    return s.slice(start, i);
  };
  while (i < s.length) {
    skipWs();
    let negate = false;
    if (s[i] === '!') {
      negate = true;
      i++;
    }
    const key = readIdentifier();
    if (!key) fail(`found '${s[i] ?? ''}', expected: !, identifier, or 'end of string'`);
    validateSelectorKey(key);
    skipWs();
    if (negate) {
      reqs.push({ key, op: '!exists', values: [] });
    } else if (i >= s.length || s[i] === ',') {
      reqs.push({ key, op: 'exists', values: [] });
    } else if (s.startsWith('==', i) || s[i] === '=') {
      i += s.startsWith('==', i) ? 2 : 1;
      const v = readValue();
      validateSelectorValue(v);
      reqs.push({ key, op: '=', values: [v] });
    } else if (s.startsWith('!=', i)) {
      i += 2;
      const v = readValue();
      validateSelectorValue(v);
      reqs.push({ key, op: '!=', values: [v] });
    } else if (s[i] === '>' || s[i] === '<') {
      const op = s[i] === '>' ? 'gt' : 'lt';
      i++;
      const v = readValue();
      if (!/^-?\d+$/.test(v)) fail(`for 'Gt', 'Lt' operators, the value must be an integer`);
      reqs.push({ key, op, values: [v] });
    } else {
      const word = readIdentifier();
      if (word !== 'in' && word !== 'notin') fail(`found '${word || s[i]}', expected: in, notin, =, ==, !=, gt, lt`);
      skipWs();
      if (s[i] !== '(') fail(`found '${s[i] ?? ''}', expected: '('`);
      i++;
      const values: string[] = [];
      for (;;) {
        const v = readValue();
        skipWs();
        validateSelectorValue(v);
        values.push(v);
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i] === ')') {
          i++;
          break;
        }
        fail(`found '${s[i] ?? ''}', expected: ',', ')' or identifier`);
      }
      reqs.push({ key, op: word as 'in' | 'notin', values });
    }
    skipWs();
    if (i < s.length) {
      if (s[i] !== ',') fail(`found '${s[i]}', expected: ',' or 'end of string'`);
      i++;
      skipWs();
      if (i >= s.length) fail("found '', expected: identifier after ','");
    }
  }
  return labelSelectorFrom(reqs);
}

function validateSelectorKey(key: string): void {
  // Label keys in selectors are qualified names; the detailed message comes
  // from the same rules as metadata.labels.
  if (key.length > 316 || key.split('/').length > 2) throw badRequest(`unable to parse requirement: invalid label key "${key}"`);
}

function validateSelectorValue(v: string): void {
  if (v.length > 63 || !/^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(v)) {
    throw badRequest(`unable to parse requirement: values[0][${v}]: Invalid value: "${v}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`);
  }
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
    const field = unescapeField(term.slice(0, m.index));
    const value = unescapeField(term.slice(m.index + m.op.length));
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

function findOperator(term: string): { index: number; op: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    const c = term[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (term.startsWith('!=', i)) return { index: i, op: '!=' };
    if (term.startsWith('==', i)) return { index: i, op: '==' };
    if (c === '=') return { index: i, op: '=' };
  }
  return undefined;
}

function unescapeField(s: string): string {
  return s.replace(/\\(.)/g, '$1');
}

/** Field values a resource exposes to field selectors, keyed by field label. */
export type FieldExtractor = (obj: KubeObject) => Record<string, string>;

function str(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : String(v);
}

function at(obj: KubeObject, ...path: string[]): unknown {
  let cur: unknown = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

/**
 * Field labels beyond metadata.name/namespace that kube-apiserver supports,
 * per `group/resource` (its GetAttrs and field label conversion functions).
 */
const EXTRA_FIELDS: Record<string, Record<string, (o: KubeObject) => string>> = {
  '/pods': {
    'spec.nodeName': (o) => str(at(o, 'spec', 'nodeName')),
    'spec.restartPolicy': (o) => str(at(o, 'spec', 'restartPolicy')),
    'spec.schedulerName': (o) => str(at(o, 'spec', 'schedulerName')),
    'spec.serviceAccountName': (o) => str(at(o, 'spec', 'serviceAccountName')),
    'spec.hostNetwork': (o) => String(at(o, 'spec', 'hostNetwork') === true),
    'status.phase': (o) => str(at(o, 'status', 'phase')),
    'status.podIP': (o) => str(at(o, 'status', 'podIP')),
    'status.nominatedNodeName': (o) => str(at(o, 'status', 'nominatedNodeName')),
  },
  '/events': {
    'involvedObject.kind': (o) => str(at(o, 'involvedObject', 'kind')),
    'involvedObject.namespace': (o) => str(at(o, 'involvedObject', 'namespace')),
    'involvedObject.name': (o) => str(at(o, 'involvedObject', 'name')),
    'involvedObject.uid': (o) => str(at(o, 'involvedObject', 'uid')),
    'involvedObject.apiVersion': (o) => str(at(o, 'involvedObject', 'apiVersion')),
    'involvedObject.resourceVersion': (o) => str(at(o, 'involvedObject', 'resourceVersion')),
    'involvedObject.fieldPath': (o) => str(at(o, 'involvedObject', 'fieldPath')),
    reason: (o) => str(at(o, 'reason')),
    reportingComponent: (o) => str(at(o, 'reportingComponent')),
    source: (o) => str(at(o, 'source', 'component')),
    type: (o) => str(at(o, 'type')),
  },
  '/secrets': { type: (o) => str(at(o, 'type')) },
  '/namespaces': { 'status.phase': (o) => str(at(o, 'status', 'phase')) },
  '/nodes': { 'spec.unschedulable': (o) => String(at(o, 'spec', 'unschedulable') === true) },
  '/replicationcontrollers': { 'status.replicas': (o) => str(at(o, 'status', 'replicas') ?? 0) },
  'apps/replicasets': { 'status.replicas': (o) => str(at(o, 'status', 'replicas') ?? 0) },
  'batch/jobs': { 'status.successful': (o) => str(at(o, 'status', 'succeeded') ?? 0) },
  'certificates.k8s.io/certificatesigningrequests': { 'spec.signerName': (o) => str(at(o, 'spec', 'signerName')) },
};

export function fieldExtractorFor(group: string, resource: string, namespaced: boolean): { fields: string[]; extract: FieldExtractor } {
  const extra = EXTRA_FIELDS[`${group}/${resource}`] ?? {};
  const fields = ['metadata.name', 'metadata.namespace', ...Object.keys(extra)];
  return {
    fields,
    extract(obj) {
      const out: Record<string, string> = {
        'metadata.name': str(obj.metadata?.name),
        'metadata.namespace': namespaced ? str(obj.metadata?.namespace) : '',
      };
      for (const [k, f] of Object.entries(extra)) out[k] = f(obj);
      return out;
    },
  };
}

/** 400 for field labels the resource does not support, as kube-apiserver answers. */
export function checkFieldSelectorSupported(sel: FieldSelector, supported: string[]): void {
  for (const r of sel.requirements) {
    if (!supported.includes(r.field)) throw badRequest(`field label not supported: ${r.field}`);
  }
}
