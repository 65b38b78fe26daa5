import type { ApiCatalog } from '../../api/catalog.js';
import { definition } from '../../api/definitions.js';
import { PolicyExpressions, schemaDeclType, typedAdmissionPolicyEnvironment, type DeclType, type OpenApiSchema } from '../../cel/index.js';
import { parseApiVersion } from '../../machinery/object.js';
import type { ValidatingAdmissionPolicySpec } from './types.js';

/**
 * kube's validating.TypeChecker: a policy's validation expressions and
 * messageExpressions compiled with object/oldObject typed from the schema
 * of each kind its matchConstraints name (at most 10, no wildcards), and
 * params from its paramKind's; every compile error is an expression warning
 * ("<group>/<version>, Kind=<kind>: <issues>").
 */

const MAX_TYPES_TO_CHECK = 10;
/** How deep $refs are followed; a recursive schema (JSONSchemaProps) is dyn below it. */
const MAX_REF_DEPTH = 32;

export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

interface Gvk {
  group: string;
  version: string;
  kind: string;
  definition: string;
}

const gvkText = (g: Gvk): string => `${g.group}/${g.version}, Kind=${g.kind}`;

/** The kinds to check, sorted by group, version and kind (kube's typesToCheck). */
function typesToCheck(spec: ValidatingAdmissionPolicySpec, catalog: ApiCatalog): Gvk[] {
  const found = new Map<string, Gvk>();
  for (const rule of spec.matchConstraints?.resourceRules ?? []) {
    const groups = rule.apiGroups ?? [];
    const versions = rule.apiVersions ?? [];
    if (groups.length === 0 || groups.some((g) => g.includes('*'))) continue;
    if (versions.length === 0 || versions.some((v) => v.includes('*'))) continue;
    const resources = (rule.resources ?? []).filter((r) => !/[*/]/.test(r));
    for (const group of [...groups].sort()) {
      for (const version of [...versions].sort()) {
        for (const resource of [...resources].sort()) {
          const info = catalog.resource(group, version, resource);
          if (!info) continue;
          const g = { group, version, kind: info.kind, definition: info.definition };
          found.set(gvkText(g), g);
          if (found.size === MAX_TYPES_TO_CHECK) return sortGvks([...found.values()]);
        }
      }
    }
  }
  return sortGvks([...found.values()]);
}

function sortGvks(list: Gvk[]): Gvk[] {
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return list.sort((a, b) => cmp(a.group, b.group) || cmp(a.version, b.version) || cmp(a.kind, b.kind));
}

type Definitions = (name: string) => Record<string, unknown> | undefined;

/** An OpenAPI v2 definition with its $refs inlined, as the structural schema CEL typing reads. */
function resolveSchema(name: string, lookup: Definitions, depth = 0, seen: readonly string[] = []): OpenApiSchema | undefined {
  const def = lookup(name);
  if (!def) return undefined;
  if (depth > MAX_REF_DEPTH || seen.includes(name)) return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  return inline(def, lookup, depth, [...seen, name]);
}

function inline(node: Record<string, unknown>, lookup: Definitions, depth: number, seen: readonly string[]): OpenApiSchema {
  const ref = typeof node.$ref === 'string' ? node.$ref.replace(/^#\/definitions\//, '') : undefined;
  if (ref) return resolveSchema(ref, lookup, depth + 1, seen) ?? {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'description') continue;
    if (k === 'properties' && v && typeof v === 'object') {
      out.properties = Object.fromEntries(Object.entries(v as Record<string, Record<string, unknown>>).map(([p, s]) => [p, inline(s, lookup, depth, seen)]));
    } else if ((k === 'items' || k === 'additionalProperties') && v && typeof v === 'object') {
      out[k] = inline(v as Record<string, unknown>, lookup, depth, seen);
    } else {
      out[k] = v;
    }
  }
  if (out.format === 'int-or-string') out['x-kubernetes-int-or-string'] = true;
  if (out.type === undefined && out.properties) out.type = 'object';
  return out as OpenApiSchema;
}

export class TypeChecker {
  constructor(private readonly catalog: ApiCatalog) {}

  private lookup: Definitions = (name) => (definition(name) as Record<string, unknown> | undefined) ??
    (this.catalog.definitionsAdded()[name] as Record<string, unknown> | undefined);

  /** Built-in kinds' types, which never change (custom resources' are resolved each time: their CRD may have changed). */
  private readonly builtinTypes = new Map<string, DeclType | undefined>();

  private declType(gvk: Gvk | undefined): DeclType | undefined {
    if (!gvk) return undefined;
    const builtin = definition(gvk.definition) !== undefined;
    if (builtin && this.builtinTypes.has(gvk.definition)) return this.builtinTypes.get(gvk.definition);
    const schema = resolveSchema(gvk.definition, this.lookup);
    const type = schema ? schemaDeclType(schema, `${gvk.kind}TypeCheck`, true) : undefined;
    if (builtin) this.builtinTypes.set(gvk.definition, type);
    return type;
  }

  private paramsGvk(spec: ValidatingAdmissionPolicySpec): Gvk | undefined {
    if (!spec.paramKind) return undefined;
    const { group, version } = parseApiVersion(spec.paramKind.apiVersion ?? '');
    const info = this.catalog.resourceForKind(group, version, spec.paramKind.kind ?? '');
    return info ? { group, version, kind: info.kind, definition: info.definition } : undefined;
  }

  /** kube's TypeChecker.Check: warnings for spec.validations[i].expression and .messageExpression. */
  check(spec: ValidatingAdmissionPolicySpec): ExpressionWarning[] {
    const params = this.declType(this.paramsGvk(spec));
    const contexts = typesToCheck(spec, this.catalog).flatMap((gvk) => {
      const object = this.declType(gvk);
      if (!object) return [];
      return [{ gvk, expressions: new PolicyExpressions(spec.variables, (variables) => typedAdmissionPolicyEnvironment({ object, params, variables }), '') }];
    });
    const warnings: ExpressionWarning[] = [];
    const checkOne = (expression: string, fieldRef: string): void => {
      const issues: string[] = [];
      for (const c of contexts) {
        const r = c.expressions.compile(expression);
        if ('error' in r) issues.push(`${gvkText(c.gvk)}: ${r.error}\n`);
      }
      if (issues.length > 0) warnings.push({ fieldRef, warning: issues.join('\n') });
    };
    (spec.validations ?? []).forEach((v, i) => {
      checkOne(v.expression ?? '', `spec.validations[${i}].expression`);
      if (v.messageExpression) checkOne(v.messageExpression, `spec.validations[${i}].messageExpression`);
    });
    return warnings;
  }
}
