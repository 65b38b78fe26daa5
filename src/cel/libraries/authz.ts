import type { Environment } from '@marcbachmann/cel-js';

import { validateNameByRule } from '../../machinery/name-validation.js';
import {
  type FieldRequirement,
  type LabelRequirement,
  parseFieldSelector,
  parseLabelSelector,
} from '../../machinery/selectors.js';
import { libraryError } from './errors.js';

/** The user an authorization check is made for (user.Info). */
export interface AuthorizerUser {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** A selector a check carries: its requirements, or the parse error (kube passes both to the authorizer). */
export interface SelectorAttribute<R> {
  readonly requirements?: readonly R[];
  readonly error?: string;
}

/** authorizer.AttributesRecord as the authorizer library fills it. */
export interface AuthorizationAttributes {
  readonly user: AuthorizerUser;
  readonly verb: string;
  readonly resourceRequest: boolean;
  /** Non-resource checks (authorizer.path(...)). */
  readonly path?: string;
  readonly apiGroup?: string;
  /** Always "*" for resource checks. */
  readonly apiVersion?: string;
  readonly resource?: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly fieldSelector?: SelectorAttribute<FieldRequirement>;
  readonly labelSelector?: SelectorAttribute<LabelRequirement>;
}

/** An authorizer's answer; `error` set makes `errored()` true. */
export interface AuthorizerDecision {
  readonly decision: 'Allow' | 'Deny' | 'NoOpinion';
  readonly reason: string;
  readonly error?: string;
}

/**
 * What the `authorizer` variable asks: implemented by the authorization
 * layer for admission policies and webhook match conditions.
 *
 * cel-js evaluates synchronously unless a function returns a Promise; a
 * binding that answers synchronously (from a pre-resolved or in-process
 * authorizer) keeps `evaluate` synchronous, one that returns a Promise makes
 * `evaluate` return a Promise that cel-js resolves through the rest of the
 * expression, and the caller must await it.
 */
export interface AuthorizerBinding {
  authorize(attributes: AuthorizationAttributes): AuthorizerDecision | Promise<AuthorizerDecision>;
}

export const AUTHORIZER_TYPE = 'kubernetes.authorization.Authorizer';
export const PATH_CHECK_TYPE = 'kubernetes.authorization.PathCheck';
export const GROUP_CHECK_TYPE = 'kubernetes.authorization.GroupCheck';
export const RESOURCE_CHECK_TYPE = 'kubernetes.authorization.ResourceCheck';
export const DECISION_TYPE = 'kubernetes.authorization.Decision';

/** A `kubernetes.authorization.Authorizer` value: the value of the `authorizer` variable. */
export class CelAuthorizer {
  readonly celTypeName = AUTHORIZER_TYPE;
  constructor(
    readonly user: AuthorizerUser,
    readonly binding: AuthorizerBinding,
    /** `authorizer.requestResource`: a check for the resource of the request being admitted, where there is one. */
    readonly requestResource?: CelResourceCheck,
  ) {}
}

export class CelPathCheck {
  readonly celTypeName = PATH_CHECK_TYPE;
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly path: string,
  ) {}
}

export class CelGroupCheck {
  readonly celTypeName = GROUP_CHECK_TYPE;
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly group: string,
  ) {}
}

export interface ResourceCheckFields {
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  readonly fieldSelector: string;
  readonly labelSelector: string;
}

export class CelResourceCheck {
  readonly celTypeName = RESOURCE_CHECK_TYPE;
  constructor(
    readonly groupCheck: CelGroupCheck,
    readonly fields: ResourceCheckFields,
  ) {}
  with(change: Partial<ResourceCheckFields>): CelResourceCheck {
    return new CelResourceCheck(this.groupCheck, { ...this.fields, ...change });
  }
}

export class CelDecision {
  readonly celTypeName = DECISION_TYPE;
  constructor(readonly decision: AuthorizerDecision) {}
}

/** The resource of the request being admitted (kube's Resource interface). */
export interface RequestResource {
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

/** NewAuthorizerVal, with `authorizer.requestResource` when the request is for a resource (NewResourceAuthorizerVal). */
export function newAuthorizer(user: AuthorizerUser, binding: AuthorizerBinding, request?: RequestResource): CelAuthorizer {
  if (request === undefined) return new CelAuthorizer(user, binding);
  const self = new CelAuthorizer(user, binding);
  const check = new CelResourceCheck(new CelGroupCheck(self, request.group), {
    resource: request.resource,
    subresource: request.subresource,
    namespace: request.namespace,
    name: request.name,
    fieldSelector: '',
    labelSelector: '',
  });
  return new CelAuthorizer(user, binding, check);
}

function toDecision(d: AuthorizerDecision | Promise<AuthorizerDecision>): CelDecision | Promise<CelDecision> {
  return d instanceof Promise ? d.then((x) => new CelDecision(x)) : new CelDecision(d);
}

function selector<R>(text: string, parse: (s: string) => { requirements: R[] }): SelectorAttribute<R> | undefined {
  if (text === '') return undefined;
  try {
    return { requirements: parse(text).requirements };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

function serviceAccountUser(namespace: string, name: string): AuthorizerUser {
  return {
    username: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
  };
}

/**
 * kube's library.Authz (from 1.27) and, with `selectors`, AuthzSelectors
 * (fieldSelector, labelSelector; from 1.31).
 */
export function registerAuthz(env: Environment, selectors: boolean): void {
  env.registerType(DECISION_TYPE, CelDecision);
  env.registerType(PATH_CHECK_TYPE, CelPathCheck);
  env.registerType(GROUP_CHECK_TYPE, CelGroupCheck);
  env.registerType(RESOURCE_CHECK_TYPE, CelResourceCheck);
  env.registerType(AUTHORIZER_TYPE, { ctor: CelAuthorizer, fields: { requestResource: RESOURCE_CHECK_TYPE } });
  const A = AUTHORIZER_TYPE;
  const R = RESOURCE_CHECK_TYPE;
  env.registerFunction(`${A}.path(string): ${PATH_CHECK_TYPE}`, (a: CelAuthorizer, path: string) => {
    if (path.trim() === '') throw libraryError('path must not be empty');
    return new CelPathCheck(a, path);
  });
  env.registerFunction(`${A}.group(string): ${GROUP_CHECK_TYPE}`, (a: CelAuthorizer, g: string) => new CelGroupCheck(a, g));
  env.registerFunction(`${A}.serviceAccount(string, string): ${A}`, (a: CelAuthorizer, ns: string, name: string) => {
    if (validateNameByRule('dns1123Subdomain', name).length > 0) throw libraryError('Invalid service account name');
    if (validateNameByRule('dns1123Label', ns).length > 0) throw libraryError('Invalid service account namespace');
    return new CelAuthorizer(serviceAccountUser(ns, name), a.binding);
  });
  env.registerFunction(`${GROUP_CHECK_TYPE}.resource(string): ${R}`, (g: CelGroupCheck, resource: string) => {
    if (resource.trim() === '') throw libraryError('resource must not be empty');
    return new CelResourceCheck(g, { resource, subresource: '', namespace: '', name: '', fieldSelector: '', labelSelector: '' });
  });
  env.registerFunction(`${R}.subresource(string): ${R}`, (r: CelResourceCheck, s: string) => r.with({ subresource: s }));
  env.registerFunction(`${R}.namespace(string): ${R}`, (r: CelResourceCheck, s: string) => r.with({ namespace: s }));
  env.registerFunction(`${R}.name(string): ${R}`, (r: CelResourceCheck, s: string) => r.with({ name: s }));
  if (selectors) {
    env.registerFunction(`${R}.fieldSelector(string): ${R}`, (r: CelResourceCheck, s: string) => r.with({ fieldSelector: s }));
    env.registerFunction(`${R}.labelSelector(string): ${R}`, (r: CelResourceCheck, s: string) => r.with({ labelSelector: s }));
  }
  env.registerFunction(
    `${PATH_CHECK_TYPE}.check(string): ${DECISION_TYPE}`,
    (p: CelPathCheck, verb: string) =>
      toDecision(p.authorizer.binding.authorize({ user: p.authorizer.user, verb, resourceRequest: false, path: p.path })),
    { async: true },
  );
  env.registerFunction(
    `${R}.check(string): ${DECISION_TYPE}`,
    (r: CelResourceCheck, verb: string) => {
      const a = r.groupCheck.authorizer;
      const f = r.fields;
      const attributes: AuthorizationAttributes = {
        user: a.user,
        verb,
        resourceRequest: true,
        apiGroup: r.groupCheck.group,
        apiVersion: '*',
        resource: f.resource,
        subresource: f.subresource,
        namespace: f.namespace,
        name: f.name,
        fieldSelector: selector(f.fieldSelector, parseFieldSelector),
        labelSelector: selector(f.labelSelector, parseLabelSelector),
      };
      return toDecision(a.binding.authorize(attributes));
    },
    { async: true },
  );
  env.registerFunction(`${DECISION_TYPE}.allowed(): bool`, (d: CelDecision) => d.decision.decision === 'Allow');
  env.registerFunction(`${DECISION_TYPE}.reason(): string`, (d: CelDecision) => d.decision.reason);
  env.registerFunction(`${DECISION_TYPE}.errored(): bool`, (d: CelDecision) => d.decision.error !== undefined);
  env.registerFunction(`${DECISION_TYPE}.error(): string`, (d: CelDecision) => d.decision.error ?? '');
}
