import { compile, webhookMatchConditionEnvironment, type CelEnvironment } from '../../cel/index.js';
import type { FieldError } from '../../machinery/errors.js';
import { isDns1035Label, isDns1123Subdomain, isQualifiedName } from '../../machinery/name-validation.js';
import { duplicate, has, invalid, list, notSupported, obj, objs, required, str, tooMany, type Obj } from './field.js';
import { validateLabelSelector } from './selector.js';

/**
 * kube's pkg/apis/admissionregistration/validation for Validating- and
 * MutatingWebhookConfiguration, with its update leniencies (a rule an old
 * object already broke is not held against an update of it), and the
 * matchConditions checks webhooks and admission policies share.
 */

export const MAX_MATCH_CONDITIONS = 64;

/** kube's validateMatchConditions: at most 64, names qualified and unique, expressions that compile to bool. */
export function validateMatchConditions(
  conditions: readonly { name?: string; expression?: string }[],
  path: string,
  environment: CelEnvironment = webhookMatchConditionEnvironment(),
): FieldError[] {
  const errs: FieldError[] = [];
  if (conditions.length > MAX_MATCH_CONDITIONS) errs.push(tooMany(path, conditions.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  conditions.forEach((c, i) => {
    const at = `${path}[${i}]`;
    const expression = (c.expression ?? '').trim();
    if (expression === '') errs.push(required(`${at}.expression`));
    else {
      const r = compile(expression, environment, { returnTypes: ['bool'] });
      if (!r.ok) errs.push(r.error.type === 'invalid' ? invalid(`${at}.expression`, c.expression ?? '', r.error.detail) : { type: 'InternalError', field: `${at}.expression`, detail: r.error.detail });
    }
    const name = c.name ?? '';
    if (name === '') errs.push(required(`${at}.name`));
    else for (const m of isQualifiedName(name)) errs.push(invalid(`${at}.name`, name, m));
    if (name !== '') {
      if (names.has(name)) errs.push(duplicate(`${at}.name`, name));
      else names.add(name);
    }
  });
  return errs;
}

interface Options {
  ignoreMatchConditions: boolean;
  requireNoSideEffects: boolean;
  requireRecognizedAdmissionReviewVersion: boolean;
  requireUniqueWebhookNames: boolean;
  allowInvalidLabelValueInSelector: boolean;
}

const CREATE_OPTIONS: Options = {
  ignoreMatchConditions: false,
  requireNoSideEffects: true,
  requireRecognizedAdmissionReviewVersion: true,
  requireUniqueWebhookNames: true,
  allowInvalidLabelValueInSelector: false,
};

const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const ALL_SIDE_EFFECTS = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const NO_SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];

export function validateValidatingWebhookConfiguration(o: Obj): FieldError[] {
  return validateConfiguration(o, false, CREATE_OPTIONS);
}

export function validateMutatingWebhookConfiguration(o: Obj): FieldError[] {
  return validateConfiguration(o, true, CREATE_OPTIONS);
}

export function validateValidatingWebhookConfigurationUpdate(o: Obj, old: Obj): FieldError[] {
  return validateConfiguration(o, false, updateOptions(o, old));
}

export function validateMutatingWebhookConfigurationUpdate(o: Obj, old: Obj): FieldError[] {
  return validateConfiguration(o, true, updateOptions(o, old));
}

function updateOptions(o: Obj, old: Obj): Options {
  const hooks = objs(o.webhooks);
  const oldHooks = objs(old.webhooks);
  const names = oldHooks.map((h) => str(h.name));
  return {
    ignoreMatchConditions: hooks.length === oldHooks.length && hooks.every((h, i) => JSON.stringify(h.matchConditions ?? null) === JSON.stringify(oldHooks[i]!.matchConditions ?? null)),
    requireNoSideEffects: oldHooks.every((h) => NO_SIDE_EFFECTS.includes(str(h.sideEffects))),
    requireRecognizedAdmissionReviewVersion: oldHooks.every((h) => list(h.admissionReviewVersions).length === 0 || list(h.admissionReviewVersions).some((v) => ACCEPTED_REVIEW_VERSIONS.includes(str(v)))),
    requireUniqueWebhookNames: new Set(names).size === names.length,
    allowInvalidLabelValueInSelector: oldHooks.some((h) => (has(h.namespaceSelector) && validateLabelSelector(h.namespaceSelector, '').length > 0) || (has(h.objectSelector) && validateLabelSelector(h.objectSelector, '').length > 0)),
  };
}

function validateConfiguration(o: Obj, mutating: boolean, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objs(o.webhooks).forEach((hook, i) => {
    const path = `webhooks[${i}]`;
    errs.push(...validateWebhook(hook, mutating, opts, path));
    errs.push(...validateAdmissionReviewVersions(list(hook.admissionReviewVersions).map(str), opts.requireRecognizedAdmissionReviewVersion, `${path}.admissionReviewVersions`));
    const name = str(hook.name);
    if (opts.requireUniqueWebhookNames && name) {
      if (names.has(name)) errs.push(duplicate(`${path}.name`, name));
      else names.add(name);
    }
  });
  return errs;
}

function validateWebhook(hook: Obj, mutating: boolean, opts: Options, path: string): FieldError[] {
  const errs: FieldError[] = [...isFullyQualifiedName(str(hook.name), `${path}.name`)];
  objs(hook.rules).forEach((rule, i) => errs.push(...validateRuleWithOperations(rule, `${path}.rules[${i}]`)));
  if (has(hook.failurePolicy) && !FAILURE_POLICIES.includes(str(hook.failurePolicy))) errs.push(notSupported(`${path}.failurePolicy`, hook.failurePolicy, FAILURE_POLICIES));
  if (has(hook.matchPolicy) && !MATCH_POLICIES.includes(str(hook.matchPolicy))) errs.push(notSupported(`${path}.matchPolicy`, hook.matchPolicy, MATCH_POLICIES));
  const allowedSideEffects = opts.requireNoSideEffects ? NO_SIDE_EFFECTS : ALL_SIDE_EFFECTS;
  if (!has(hook.sideEffects)) errs.push(required(`${path}.sideEffects`, `must specify one of ${allowedSideEffects.join(', ')}`));
  else if (!allowedSideEffects.includes(str(hook.sideEffects))) errs.push(notSupported(`${path}.sideEffects`, hook.sideEffects, allowedSideEffects));
  if (typeof hook.timeoutSeconds === 'number' && (hook.timeoutSeconds > 30 || hook.timeoutSeconds < 1)) {
    errs.push(invalid(`${path}.timeoutSeconds`, hook.timeoutSeconds, 'the timeout value must be between 1 and 30 seconds'));
  }
  // invalid label values an existing object already holds stay allowed on its updates (AllowInvalidLabelValueInSelector)
  const selectorErrors = (s: unknown, field: string): FieldError[] => {
    if (!has(s)) return [];
    const found = validateLabelSelector(s, field);
    return opts.allowInvalidLabelValueInSelector ? found.filter((e) => !/\.matchExpressions\[\d+\]\.values\[\d+\]$/.test(e.field ?? '')) : found;
  };
  errs.push(...selectorErrors(hook.namespaceSelector, `${path}.namespaceSelector`), ...selectorErrors(hook.objectSelector, `${path}.objectSelector`));
  if (mutating && has(hook.reinvocationPolicy) && !REINVOCATION_POLICIES.includes(str(hook.reinvocationPolicy))) {
    errs.push(notSupported(`${path}.reinvocationPolicy`, hook.reinvocationPolicy, REINVOCATION_POLICIES));
  }
  const cc = obj(hook.clientConfig);
  if (has(cc.url) === has(cc.service)) errs.push(required(`${path}.clientConfig`, 'exactly one of url or service is required'));
  else if (has(cc.url)) errs.push(...validateWebhookUrl(str(cc.url), `${path}.clientConfig.url`));
  else {
    const svc = obj(cc.service);
    // kube 1.36 passes name and namespace in each other's place: an empty name is reported under namespace
    errs.push(...validateWebhookService(str(svc.name), str(svc.namespace), has(svc.path) ? str(svc.path) : undefined, typeof svc.port === 'number' ? svc.port : 443, `${path}.clientConfig.service`));
  }
  if (!opts.ignoreMatchConditions) {
    const conditions = objs(hook.matchConditions).map((c) => ({ name: str(c.name), expression: str(c.expression) }));
    errs.push(...validateMatchConditions(conditions, `${path}.matchConditions`));
  }
  return errs;
}

function isFullyQualifiedName(name: string, field: string): FieldError[] {
  if (name === '') return [required(field)];
  const dns = isDns1123Subdomain(name);
  if (dns.length > 0) return [invalid(field, name, dns.join(','))];
  if (name.split('.').length < 3) return [invalid(field, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

function validateRuleWithOperations(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const operations = list(rule.operations).map(str);
  if (operations.length === 0) errs.push(required(`${path}.operations`));
  if (operations.length > 1 && operations.includes('*')) {
    errs.push(invalid(`${path}.operations`, operations, "if '*' is present, must not specify other operations"));
  }
  operations.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(notSupported(`${path}.operations[${i}]`, op, OPERATIONS));
  });
  const groups = list(rule.apiGroups).map(str);
  if (groups.length === 0) errs.push(required(`${path}.apiGroups`));
  if (groups.length > 1 && groups.includes('*')) errs.push(invalid(`${path}.apiGroups`, groups, "if '*' is present, must not specify other API groups"));
  const versions = list(rule.apiVersions).map(str);
  if (versions.length === 0) errs.push(required(`${path}.apiVersions`));
  if (versions.length > 1 && versions.includes('*')) errs.push(invalid(`${path}.apiVersions`, versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(required(`${path}.apiVersions[${i}]`));
  });
  errs.push(...validateResources(list(rule.resources).map(str), `${path}.resources`));
  if (has(rule.scope) && !SCOPES.includes(str(rule.scope))) errs.push(notSupported(`${path}.scope`, rule.scope, SCOPES));
  return errs;
}

/** A rule's resources (kube's validateResources): required, and the wildcard combinations kube refuses. Shared with admission policies. */
export function validateResources(resources: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(required(path));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  resources.forEach((resSub, i) => {
    if (resSub === '') return void errs.push(required(`${path}[${i}]`));
    if (resSub === '*/*') doubleWildcard = true;
    if (resSub === '*') singleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      withoutSub = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (withWildcardSub.has(res)) errs.push(invalid(`${path}[${i}]`, resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subWithWildcardRes.has(sub)) errs.push(invalid(`${path}[${i}]`, resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') withWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(invalid(path, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSub) errs.push(invalid(path, resources, "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

function validateAdmissionReviewVersions(versions: string[], requireRecognized: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (versions.length < 1) return [required(path, `must specify one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`)];
  const seen = new Set<string>();
  let accepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) return void errs.push(invalid(`${path}[${i}]`, v, 'duplicate version'));
    seen.add(v);
    for (const m of isDns1035Label(v)) errs.push(invalid(`${path}[${i}]`, v, m));
    if (ACCEPTED_REVIEW_VERSIONS.includes(v)) accepted = true;
  });
  if (requireRecognized && !accepted) errs.push(invalid(path, versions, `must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`));
  return errs;
}

/** apiserver's webhook.ValidateWebhookURL (https only). */
function validateWebhookUrl(raw: string, field: string): FieldError[] {
  const form = '; desired format: https://host[/path]';
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    // Go's url.Parse accepts most strings; what WHATWG refuses reads as a missing host
    const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(raw)?.[1] ?? '';
    const errs: FieldError[] = [];
    if (scheme !== 'https') errs.push(invalid(field, scheme, `'https' is the only allowed URL scheme${form}`));
    errs.push(invalid(field, '', `host must be specified${form}`));
    return errs;
  }
  const errs: FieldError[] = [];
  const scheme = u.protocol.replace(/:$/, '');
  if (scheme !== 'https') errs.push(invalid(field, scheme, `'https' is the only allowed URL scheme${form}`));
  if (u.host === '') errs.push(invalid(field, u.host, `host must be specified${form}`));
  if (u.username || u.password) errs.push(invalid(field, u.password ? `${u.username}:${u.password}` : u.username, 'user information is not permitted in the URL'));
  if (u.hash.length > 1) errs.push(invalid(field, u.hash.slice(1), 'fragments are not permitted in the URL'));
  if (u.search.length > 1) errs.push(invalid(field, u.search.slice(1), 'query parameters are not permitted in the URL'));
  return errs;
}

/**
 * apiserver's webhook.ValidateWebhookService as kube 1.36 calls it: its
 * (namespace, name) parameters get (name, namespace).
 */
function validateWebhookService(namespaceParam: string, nameParam: string, path: string | undefined, port: number, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (nameParam === '') errs.push(required(`${field}.name`));
  if (namespaceParam === '') errs.push(required(`${field}.namespace`));
  if (!Number.isInteger(port) || port < 1 || port > 65535) errs.push(invalid(`${field}.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
  if (path === undefined || path === '/' || path === '') return errs;
  if (path === '//') return [...errs, invalid(`${field}.path`, path, 'segment[0] may not be empty')];
  if (!path.startsWith('/')) errs.push(invalid(`${field}.path`, path, "must start with a '/'"));
  let check = path.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (step === '') return void errs.push(invalid(`${field}.path`, path, `segment[${i}] may not be empty`));
    for (const m of isDns1123Subdomain(step)) errs.push(invalid(`${field}.path`, path, `segment[${i}]: ${m}`));
  });
  return errs;
}

