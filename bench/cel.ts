import { celEnv, parse as bufParse, plan as bufPlan } from '@bufbuild/cel';
import {
  admissionPolicyEnvironment, compile, crdRuleEnvironment, dynToCel, evaluate, toCel, type OpenApiSchema, type Program,
} from '../src/cel/index.js';
import { opsPerSecond, type OpsResult } from './field-validation.js';

/**
 * CEL in-process (src/cel/ over cel-js): compile time and evaluations per
 * second of a CRD rule over a list with all() and of an admission-policy
 * rule, each beside a plain JavaScript function doing the same check and,
 * for the library choice, @bufbuild/cel on the same rule. Best of three
 * 300 ms runs per row.
 */

export interface CelBenchResult {
  rows: OpsResult[];
}

const CRD_SCHEMA: OpenApiSchema = {
  type: 'object',
  properties: {
    ports: {
      type: 'array',
      maxItems: 64,
      items: { type: 'object', properties: { name: { type: 'string', maxLength: 15 }, port: { type: 'integer' } } },
    },
  },
};
const CRD_RULE = 'self.ports.all(p, p.port > 0 && p.port < 65536 && p.name.startsWith("p"))';
const crdObject = { ports: Array.from({ length: 20 }, (_, i) => ({ name: `p${i}`, port: 8000 + i })) };
const crdPlain = (o: typeof crdObject): boolean => o.ports.every((p) => p.port > 0 && p.port < 65536 && p.name.startsWith('p'));

const POLICY_RULE =
  'object.spec.replicas <= params.maxReplicas && !request.userInfo.username.startsWith("system:") && object.metadata.labels.all(k, k.size() < 64)';
const policyObject = { metadata: { name: 'web', labels: { app: 'web', tier: 'frontend', team: 'a' } }, spec: { replicas: 3 } };
const policyParams = { maxReplicas: 5 };
const policyRequest = { userInfo: { username: 'alice', groups: ['dev'] }, operation: 'CREATE' };
const policyPlain = (o: typeof policyObject, p: typeof policyParams, r: typeof policyRequest): boolean =>
  o.spec.replicas <= p.maxReplicas && !r.userInfo.username.startsWith('system:') && Object.keys(o.metadata.labels).every((k) => k.length < 64);

function must(r: ReturnType<typeof compile>): Program {
  if (!r.ok) throw new Error(r.error.detail);
  return r.program;
}

export function celSection(): CelBenchResult {
  const rows: OpsResult[] = [];
  const row = (name: string, fn: () => void): void => void rows.push({ name, opsPerSec: opsPerSecond(fn) });

  const crd = crdRuleEnvironment(CRD_SCHEMA)!;
  let k = 0;
  row('compile a CRD rule (uncached: new text each time; parse, check, cost estimate)', () => {
    must(compile(`${CRD_RULE} && ${k++} >= 0`, crd.environment));
  });
  row('compile a CRD rule (cache hit)', () => void must(compile(CRD_RULE, crd.environment)));
  const crdProgram = must(compile(CRD_RULE, crd.environment));
  const self = toCel(crd.environment, crdObject, crd.selfType);
  row(`CRD rule, 20 list items: ${CRD_RULE}`, () => {
    const r = evaluate(crdProgram, { self, oldSelf: self });
    if (!r.ok || r.value !== true) throw new Error('unexpected');
  });
  row('CRD rule, with JSON → CEL conversion of self each time', () => {
    const s = toCel(crd.environment, crdObject, crd.selfType);
    if (!evaluate(crdProgram, { self: s, oldSelf: s }).ok) throw new Error('unexpected');
  });
  row('baseline: plain JS function, same check', () => {
    if (!crdPlain(crdObject)) throw new Error('unexpected');
  });

  const policyEnv = admissionPolicyEnvironment();
  row('compile a policy rule (uncached)', () => void must(compile(`${POLICY_RULE} && ${k++} >= 0`, policyEnv)));
  const policyProgram = must(compile(POLICY_RULE, policyEnv));
  const activation = {
    object: dynToCel(policyObject),
    oldObject: null,
    params: dynToCel(policyParams),
    request: toCel(policyEnv, policyRequest, policyEnv.variables.get('request')!),
    namespaceObject: null,
  };
  row(`policy rule: ${POLICY_RULE}`, () => {
    const r = evaluate(policyProgram, activation);
    if (!r.ok || r.value !== true) throw new Error(`unexpected ${r.ok ? String(r.value) : r.message}`);
  });
  row('baseline: plain JS function, same check', () => {
    if (!policyPlain(policyObject, policyParams, policyRequest)) throw new Error('unexpected');
  });

  // The alternative library on the same CRD rule (untyped: it has no schema types).
  const env = celEnv();
  row('@bufbuild/cel: parse + plan the CRD rule', () => void bufPlan(env, bufParse(`${CRD_RULE} && ${k++} >= 0`)));
  const bufProgram = bufPlan(env, bufParse(CRD_RULE));
  const bufSelf = toMaps(crdObject);
  row('@bufbuild/cel: CRD rule, 20 list items', () => {
    if (bufProgram({ self: bufSelf } as never) !== true) throw new Error('unexpected');
  });
  return { rows };
}

/** @bufbuild/cel takes Maps for CEL maps and bigint for ints. */
function toMaps(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(toMaps);
  if (v !== null && typeof v === 'object') return new Map(Object.entries(v).map(([k, x]) => [k, toMaps(x)]));
  return v;
}
