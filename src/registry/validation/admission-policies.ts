import { admissionPolicyEnvironment, compileConstruction, mutatingAdmissionPolicyEnvironment, PolicyExpressions, type Compiled } from '../../cel/index.js';
import type { FieldError } from '../../machinery/errors.js';
import { isDns1035Label, isDns1123Subdomain, isPathSegmentName, isQualifiedName } from '../../machinery/name-validation.js';
import { duplicate, forbidden, invalid, isObj, list, notSupported, obj, objs, required, str, tooMany, type Obj } from './field.js';
import { validateResources } from './admissionregistration.js';
import { validateLabelSelector } from './selector.js';

/**
 * kube's pkg/apis/admissionregistration/validation for
 * ValidatingAdmissionPolicy, MutatingAdmissionPolicy and their bindings:
 * the rules, selectors, params, actions, and every CEL expression compiled
 * in the policy's environment (variables in order), with kube's messages.
 */

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
/** kube's supportedMutatingOperations: a DELETE has no object to mutate. */
const MUTATING_OPERATIONS = ['*', 'CONNECT', 'CREATE', 'UPDATE'];
const PATCH_TYPES = ['ApplyConfiguration', 'JSONPatch'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge', 'Unauthorized'];
const VALIDATION_ACTIONS = ['Audit', 'Deny', 'Warn'];
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH = 5 * 1024;
const MAX_MATCH_CONDITIONS = 64;
const CEL_RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let',
  'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

const strings = (v: unknown): string[] => list(v).map((x) => str(x));
const hasWildcard = (l: readonly string[]): boolean => l.includes('*');


function validateRuleWithOperations(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const operations = strings(rule.operations);
  if (operations.length === 0) errs.push(required(`${path}.operations`));
  if (operations.length > 1 && hasWildcard(operations)) errs.push(invalid(`${path}.operations`, operations, "if '*' is present, must not specify other operations"));
  operations.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(notSupported(`${path}.operations[${i}]`, op, OPERATIONS));
  });
  const groups = strings(rule.apiGroups);
  if (groups.length === 0) errs.push(required(`${path}.apiGroups`));
  if (groups.length > 1 && hasWildcard(groups)) errs.push(invalid(`${path}.apiGroups`, groups, "if '*' is present, must not specify other API groups"));
  const versions = strings(rule.apiVersions);
  if (versions.length === 0) errs.push(required(`${path}.apiVersions`));
  if (versions.length > 1 && hasWildcard(versions)) errs.push(invalid(`${path}.apiVersions`, versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(required(`${path}.apiVersions[${i}]`));
  });
  errs.push(...validateResources(strings(rule.resources), `${path}.resources`));
  if (rule.scope !== undefined && rule.scope !== null && !SCOPES.includes(str(rule.scope))) errs.push(notSupported(`${path}.scope`, rule.scope, SCOPES));
  return errs;
}

function validateNamedRule(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  strings(rule.resourceNames).forEach((name, i) => {
    for (const m of isPathSegmentName(name)) errs.push(invalid(`${path}.resourceNames[${i}]`, name, m));
    if (seen.has(name)) errs.push(duplicate(`${path}.resourceNames[${i}]`, name));
    seen.add(name);
  });
  return [...errs, ...validateRuleWithOperations(rule, path)];
}

function validateMatchResources(mr: unknown, path: string): FieldError[] {
  if (!isObj(mr)) return [];
  const errs: FieldError[] = [];
  if (mr.matchPolicy === undefined || mr.matchPolicy === null) errs.push(required(`${path}.matchPolicy`));
  else if (!MATCH_POLICIES.includes(str(mr.matchPolicy))) errs.push(notSupported(`${path}.matchPolicy`, mr.matchPolicy, MATCH_POLICIES));
  for (const key of ['namespaceSelector', 'objectSelector']) {
    if (!isObj(mr[key])) errs.push(required(`${path}.${key}`));
    else errs.push(...validateLabelSelector(mr[key], `${path}.${key}`));
  }
  objs(mr.resourceRules).forEach((r, i) => errs.push(...validateNamedRule(r, `${path}.resourceRules[${i}]`)));
  objs(mr.excludeResourceRules).forEach((r, i) => errs.push(...validateNamedRule(r, `${path}.excludeResourceRules[${i}]`)));
  return errs;
}

function validateParamKind(pk: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = str(pk.apiVersion);
  if (apiVersion === '') errs.push(required(`${path}.apiVersion`));
  else {
    const slashes = apiVersion.split('/').length - 1;
    if (slashes > 1) errs.push(invalid(`${path}.apiVersion`, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
    else if (apiVersion !== '/') {
      const [group, version] = slashes === 0 ? ['', apiVersion] : apiVersion.split('/') as [string, string];
      if (group) {
        const m = isDns1123Subdomain(group);
        if (m.length > 0) errs.push(invalid(`${path}.apiVersion`, group, m.join(',')));
      }
      if (!version) errs.push(invalid(`${path}.apiVersion`, apiVersion, 'version must be specified'));
      else {
        const m = isDns1035Label(version);
        if (m.length > 0) errs.push(invalid(`${path}.apiVersion`, version, m.join(',')));
      }
    }
  }
  const kind = str(pk.kind);
  if (kind === '') errs.push(required(`${path}.kind`));
  else {
    const m = isDns1035Label(kind.toLowerCase());
    if (m.length > 0) errs.push(invalid(`${path}.kind`, kind, `may have mixed case, but should otherwise match: ${m.join(',')}`));
  }
  return errs;
}

function celError(compiled: Compiled, path: string, value: string): FieldError[] {
  return 'error' in compiled ? [invalid(path, value, compiled.error)] : [];
}

function validateMatchConditions(conditions: Obj[], expressions: PolicyExpressions, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (conditions.length > MAX_MATCH_CONDITIONS) errs.push(tooMany(path, conditions.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  conditions.forEach((c, i) => {
    const expression = str(c.expression).trim();
    if (expression === '') errs.push(required(`${path}[${i}].expression`));
    else errs.push(...celError(expressions.compile(expression, ['bool']), `${path}[${i}].expression`, expression));
    const name = str(c.name);
    if (name === '') errs.push(required(`${path}[${i}].name`));
    else for (const m of isQualifiedName(name)) errs.push(invalid(`${path}[${i}].name`, name, m));
    if (name !== '') {
      if (names.has(name)) errs.push(duplicate(`${path}[${i}].name`, name));
      names.add(name);
    }
  });
  return errs;
}

function validateVariables(variables: Obj[], expressions: PolicyExpressions, path: string): FieldError[] {
  const errs: FieldError[] = [];
  variables.forEach((v, i) => {
    const name = str(v.name);
    if (name.trim() === '') errs.push(required(`${path}[${i}].name`, 'name is not specified'));
    else if (!/^[_a-zA-Z][_a-zA-Z0-9]*$/.test(name) || CEL_RESERVED.has(name)) errs.push(invalid(`${path}[${i}].name`, name, 'name is not a valid CEL identifier'));
    const expression = str(v.expression);
    if (expression.trim() === '') errs.push(required(`${path}[${i}].expression`, 'expression is not specified'));
    else errs.push(...celError(expressions.variables[i]!.compiled, `${path}[${i}].expression`, expression));
  });
  return errs;
}

function policyExpressions(spec: Obj, mutating = false): PolicyExpressions {
  const params = isObj(spec.paramKind);
  const environment = mutating ? mutatingAdmissionPolicyEnvironment : admissionPolicyEnvironment;
  return new PolicyExpressions(objs(spec.variables).map((v) => ({ name: str(v.name), expression: str(v.expression) })),
    (variables) => environment({ ...(variables ? { variables } : {}), params }));
}

function validateFailurePolicy(spec: Obj): FieldError[] {
  if (spec.failurePolicy === undefined || spec.failurePolicy === null) return [required('spec.failurePolicy')];
  return FAILURE_POLICIES.includes(str(spec.failurePolicy)) ? [] : [notSupported('spec.failurePolicy', spec.failurePolicy, FAILURE_POLICIES)];
}

/** A policy's matchConstraints: required, with at least one resourceRule (it gives the expressions their types). */
function validateMatchConstraints(spec: Obj): FieldError[] {
  if (!isObj(spec.matchConstraints)) return [required('spec.matchConstraints')];
  const errs = validateMatchResources(spec.matchConstraints, 'spec.matchConstraints');
  if (list(spec.matchConstraints.resourceRules).length === 0) errs.push(required('spec.matchConstraints.resourceRules'));
  return errs;
}

const hasNewlines = (s: string): boolean => /[\n\r]/.test(s);

/** kube's validateValidatingAdmissionPolicySpec. */
export function validateValidatingAdmissionPolicy(policy: Obj): FieldError[] {
  const spec = obj(policy.spec);
  const errs: FieldError[] = [];
  const expressions = policyExpressions(spec);
  errs.push(...validateFailurePolicy(spec));
  if (isObj(spec.paramKind)) errs.push(...validateParamKind(spec.paramKind, 'spec.paramKind'));
  errs.push(...validateMatchConstraints(spec));
  errs.push(...validateMatchConditions(objs(spec.matchConditions), expressions, 'spec.matchConditions'));
  errs.push(...validateVariables(objs(spec.variables), expressions, 'spec.variables'));
  const validations = objs(spec.validations);
  const auditAnnotations = objs(spec.auditAnnotations);
  if (validations.length === 0 && auditAnnotations.length === 0) {
    errs.push(required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
    errs.push(required('spec.auditAnnotations', 'validations or auditAnnotations must contain at least one item'));
    return errs;
  }
  validations.forEach((v, i) => {
    const path = `spec.validations[${i}]`;
    const expression = str(v.expression);
    if (expression.trim() === '') errs.push(required(`${path}.expression`, 'expression is not specified'));
    else errs.push(...celError(expressions.compile(expression, ['bool']), `${path}.expression`, expression));
    const messageExpression = str(v.messageExpression);
    if (messageExpression.length > 0 && messageExpression.trim() === '') errs.push(invalid(`${path}.messageExpression`, messageExpression, 'must be non-empty if specified'));
    else if (messageExpression.trim() !== '') errs.push(...celError(expressions.compile(messageExpression, ['string']), `${path}.messageExpression`, messageExpression));
    const message = str(v.message);
    if (message.length > 0 && message.trim() === '') errs.push(invalid(`${path}.message`, message, 'message must be non-empty if specified'));
    else if (hasNewlines(message.trim())) errs.push(invalid(`${path}.message`, message, 'message must not contain line breaks'));
    if (v.reason !== undefined && v.reason !== null && !REASONS.includes(str(v.reason))) errs.push(notSupported(`${path}.reason`, v.reason, REASONS));
  });
  if (auditAnnotations.length > MAX_AUDIT_ANNOTATIONS) {
    errs.push(invalid('spec.auditAnnotations', spec.auditAnnotations, `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`));
  }
  const keys = new Set<string>();
  const policyName = str(obj(policy.metadata).name);
  auditAnnotations.forEach((a, i) => {
    const path = `spec.auditAnnotations[${i}]`;
    const key = str(a.key);
    if (policyName) for (const m of isQualifiedName(`${policyName}/${key}`)) errs.push(invalid(`${path}.key`, `${policyName}/${key}`, m));
    else errs.push(invalid(`${path}.key`, key, 'requires metadata.name be non-empty'));
    const valueExpression = str(a.valueExpression).trim();
    if (valueExpression === '') errs.push(required(`${path}.valueExpression`, 'valueExpression is not specified'));
    else if (valueExpression.length > MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH) {
      errs.push(required(`${path}.valueExpression`, `must not exceed ${MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH} bytes in length`));
    } else errs.push(...celError(expressions.compile(valueExpression, ['string', 'null']), `${path}.valueExpression`, str(a.valueExpression)));
    if (keys.has(key)) errs.push(duplicate(`${path}.key`, key));
    keys.add(key);
  });
  return errs;
}

function validateParamRef(pr: unknown, path: string): FieldError[] {
  if (!isObj(pr)) return [];
  const errs: FieldError[] = [];
  const name = str(pr.name);
  const hasSelector = isObj(pr.selector);
  if (name) {
    for (const m of isPathSegmentName(name)) errs.push(invalid(`${path}.name`, name, m));
    if (hasSelector) errs.push(forbidden(`${path}.name`, 'name and selector are mutually exclusive'));
  }
  if (hasSelector) {
    errs.push(...validateLabelSelector(pr.selector, `${path}.selector`));
    if (name) errs.push(forbidden(`${path}.selector`, 'name and selector are mutually exclusive'));
  }
  if (!name && !hasSelector) errs.push(required(path, 'one of name or selector must be specified'));
  const action = str(pr.parameterNotFoundAction);
  if (action === '') errs.push(required(`${path}.parameterNotFoundAction`));
  else if (action !== 'Deny' && action !== 'Allow') errs.push(notSupported(`${path}.parameterNotFoundAction`, action, ['Deny', 'Allow']));
  return errs;
}

function validateBindingCommon(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const policyName = str(spec.policyName);
  if (policyName === '') errs.push(required('spec.policyName'));
  else for (const m of isDns1123Subdomain(policyName)) errs.push(invalid('spec.policyName', policyName, m));
  errs.push(...validateParamRef(spec.paramRef, 'spec.paramRef'));
  errs.push(...validateMatchResources(spec.matchResources, 'spec.matchResources'));
  return errs;
}

/** kube's validateValidatingAdmissionPolicyBindingSpec. */
export function validateValidatingAdmissionPolicyBinding(binding: Obj): FieldError[] {
  const spec = obj(binding.spec);
  const errs = validateBindingCommon(spec);
  const actions = strings(spec.validationActions);
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (!VALIDATION_ACTIONS.includes(a)) errs.push(notSupported(`spec.validationActions[${i}]`, a, VALIDATION_ACTIONS));
    if (seen.has(a)) errs.push(duplicate(`spec.validationActions[${i}]`, a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(invalid('spec.validationActions', actions, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  if (seen.size === 0) errs.push(required('spec.validationActions', 'at least one validation action is required'));
  return errs;
}

/**
 * kube's supportedMutatingOperations check: every rule's operations, one
 * error per offending operation, at a path without the rule's index (as kube reports it).
 */
function validateMutatingOperations(mr: unknown, path: string): FieldError[] {
  if (!isObj(mr)) return [];
  return objs(mr.resourceRules).flatMap((rule) => strings(rule.operations)
    .filter((op) => !MUTATING_OPERATIONS.includes(op))
    .map((op) => notSupported(path, op, MUTATING_OPERATIONS)));
}

/** kube's validateMutation: the patchType union; only the selected member's expression is compiled. */
function validateMutation(mutation: Obj, expressions: PolicyExpressions, path: string): FieldError[] {
  const patchType = str(mutation.patchType);
  if (patchType === '') return [required(`${path}.patchType`)];
  if (!PATCH_TYPES.includes(patchType)) return [notSupported(`${path}.patchType`, patchType, PATCH_TYPES)];
  const [member, other] = patchType === 'JSONPatch' ? ['jsonPatch', 'applyConfiguration'] : ['applyConfiguration', 'jsonPatch'];
  const errs: FieldError[] = [];
  if (!isObj(mutation[member])) errs.push(required(`${path}.${member}`, `must be specified when patchType is ${patchType}`));
  else {
    const expression = str(mutation[member].expression).trim();
    if (expression === '') errs.push(required(`${path}.${member}.expression`));
    else errs.push(...celError(compileConstruction(expressions, expression), `${path}.${member}.expression`, expression));
  }
  if (mutation[other] !== undefined && mutation[other] !== null) {
    errs.push(invalid(`${path}.${other}`, `{${other}}`, `must not be specified when patchType is ${patchType}`));
  }
  return errs;
}

/** kube's validateMutatingAdmissionPolicySpec. */
export function validateMutatingAdmissionPolicy(policy: Obj): FieldError[] {
  const spec = obj(policy.spec);
  const errs: FieldError[] = [];
  const expressions = policyExpressions(spec, true);
  errs.push(...validateFailurePolicy(spec));
  if (isObj(spec.paramKind)) errs.push(...validateParamKind(spec.paramKind, 'spec.paramKind'));
  errs.push(...validateMatchConstraints(spec));
  errs.push(...validateMutatingOperations(spec.matchConstraints, 'spec.matchConstraints.resourceRules.operations'));
  errs.push(...validateMatchConditions(objs(spec.matchConditions), expressions, 'spec.matchConditions'));
  errs.push(...validateVariables(objs(spec.variables), expressions, 'spec.variables'));
  const mutations = objs(spec.mutations);
  if (mutations.length === 0) errs.push(required('spec.mutations', 'mutations must contain at least one item'));
  mutations.forEach((m, i) => errs.push(...validateMutation(m, expressions, `spec.mutations[${i}]`)));
  const reinvocation = str(spec.reinvocationPolicy);
  if (reinvocation === '') errs.push(required('spec.reinvocationPolicy'));
  else if (!REINVOCATION_POLICIES.includes(reinvocation)) errs.push(notSupported('spec.reinvocationPolicy', reinvocation, REINVOCATION_POLICIES));
  return errs;
}

/** kube's validateMutatingAdmissionPolicyBindingSpec. */
export function validateMutatingAdmissionPolicyBinding(binding: Obj): FieldError[] {
  const spec = obj(binding.spec);
  return [...validateBindingCommon(spec), ...validateMutatingOperations(spec.matchResources, 'spec.matchResources.resourceRules.operations')];
}
