import { CelEnvironment, type VariableDeclaration } from './environment.js';
import {
  AdmissionRequestType, AuthorizerType, NamespaceType, ResourceCheckType, SubjectAccessReviewSpecType, UserInfoType,
} from './kube-types.js';
import { schemaDeclType, type OpenApiSchema } from './schema-types.js';
import { mapOf, namedType, objectOf, optionalOf, sized, Types, type DeclType, type ObjectType } from './types.js';

/**
 * The environments of each use of CEL in the server, with the variables kube
 * declares. Environments that depend on nothing (match conditions, claims,
 * a policy without variables) are built once and shared, so that the same
 * expression compiles once for every object that holds it; the others
 * (a CRD schema node, a policy's variables) are built per call: keep them
 * as long as their expressions (programs are cached per environment).
 */

const shared = new Map<string, CelEnvironment>();

function once(key: string, build: () => CelEnvironment): CelEnvironment {
  let env = shared.get(key);
  if (!env) shared.set(key, (env = build()));
  return env;
}

/** What a CRD rule environment knows: the environment and self's type. */
export interface RuleEnvironment {
  readonly environment: CelEnvironment;
  readonly selfType: DeclType;
  /** oldSelf's type: self's, or optional(self's) for rules with optionalOldSelf (convert an absent old value to optional.none()). */
  readonly oldSelfType: DeclType;
}

/**
 * x-kubernetes-validations rules at one schema node: `self` and `oldSelf`
 * typed from the node's structural schema. Undefined when the node is not
 * exposed to CEL (kube refuses rules there).
 */
export function crdRuleEnvironment(
  schema: OpenApiSchema,
  options: { isResourceRoot?: boolean; typeName?: string; optionalOldSelf?: boolean } = {},
): RuleEnvironment | undefined {
  const selfType = schemaDeclType(schema, options.typeName ?? 'selfType', options.isResourceRoot === true);
  if (!selfType) return undefined;
  const oldSelfType = options.optionalOldSelf ? optionalOf(selfType) : selfType;
  return {
    environment: new CelEnvironment([{ name: 'self', type: selfType }, { name: 'oldSelf', type: oldSelfType }], { pathSizes: true }),
    selfType,
    oldSelfType,
  };
}

/**
 * Declares `authorizer` and `authorizer.requestResource` when the library
 * registered their types (it does with { authorizer: true }).
 */
function withAuthorizer(vars: VariableDeclaration[], jsonPatch = false): CelEnvironment {
  return new CelEnvironment(vars, {
    authorizer: true,
    jsonPatch,
    optionalVariables: [
      { name: 'authorizer', type: AuthorizerType },
      { name: 'authorizer.requestResource', type: ResourceCheckType },
    ],
  });
}

/**
 * ValidatingAdmissionPolicy / MutatingAdmissionPolicy expressions: object,
 * oldObject, params (dyn), request, namespaceObject, authorizer and, when
 * the policy has variables, `variables` typed from their compiled output
 * types (see compositionType).
 */
export function admissionPolicyEnvironment(options: { variables?: ObjectType; params?: boolean } = {}): CelEnvironment {
  // kube declares `params` only for a policy with a paramKind
  const params = options.params === false ? undefined : Types.dyn;
  if (!options.variables) return once(params ? 'policy' : 'policyNoParams', () => policyEnvironment(undefined, Types.dyn, params));
  return policyEnvironment(options.variables, Types.dyn, params);
}

/**
 * The environment kube's policy TypeChecker compiles in: object and
 * oldObject typed from a matched kind's schema, params from the paramKind's
 * (dyn where there is no schema).
 */
export function typedAdmissionPolicyEnvironment(types: { object?: DeclType | undefined; params?: DeclType | undefined; variables?: ObjectType | undefined }): CelEnvironment {
  return policyEnvironment(types.variables, types.object ?? Types.dyn, types.params);
}

/** MutatingAdmissionPolicy expressions: the policy variables plus `jsonpatch.escapeKey`. */
export function mutatingAdmissionPolicyEnvironment(options: { variables?: ObjectType; params?: boolean } = {}): CelEnvironment {
  const params = options.params === false ? undefined : Types.dyn;
  if (!options.variables) return once(params ? 'mutatingPolicy' : 'mutatingPolicyNoParams', () => policyEnvironment(undefined, Types.dyn, params, true));
  return policyEnvironment(options.variables, Types.dyn, params, true);
}

/** `params` undefined: not declared (a policy without paramKind). */
function policyEnvironment(variables: ObjectType | undefined, object: DeclType, params: DeclType | undefined, jsonPatch = false): CelEnvironment {
  const vars: VariableDeclaration[] = [
    { name: 'object', type: object },
    { name: 'oldObject', type: object },
    ...(params ? [{ name: 'params', type: params }] : []),
    { name: 'request', type: AdmissionRequestType },
    { name: 'namespaceObject', type: NamespaceType },
  ];
  if (variables) vars.push({ name: 'variables', type: variables });
  return withAuthorizer(vars, jsonPatch);
}

/** Admission webhooks' matchConditions: object, oldObject, request, authorizer. */
export function webhookMatchConditionEnvironment(): CelEnvironment {
  return once('webhookMatch', () => withAuthorizer([
    { name: 'object', type: Types.dyn },
    { name: 'oldObject', type: Types.dyn },
    { name: 'request', type: AdmissionRequestType },
  ]));
}

/** Authorization webhooks' matchConditions: `request` is the SubjectAccessReviewSpec. */
export function authorizationMatchConditionEnvironment(): CelEnvironment {
  return once('authorizationMatch', () => new CelEnvironment([{ name: 'request', type: SubjectAccessReviewSpecType }]));
}

/** Authentication configuration's claimValidationRules and claimMappings: `claims`. */
export function claimsEnvironment(): CelEnvironment {
  return once('claims', () => new CelEnvironment([{ name: 'claims', type: mapOf(Types.string, Types.dyn) }]));
}

/** Authentication configuration's userValidationRules: `user`. */
export function userEnvironment(): CelEnvironment {
  return once('user', () => new CelEnvironment([{ name: 'user', type: UserInfoType }]));
}

/**
 * DRA device selectors (resource.k8s.io DeviceClass and ResourceClaim
 * `selectors[].cel.expression`): `device`, kube's kubernetes.DRADevice with
 * driver, attributes (domain → name → value of any attribute type) and
 * capacity (domain → name → quantity), as dynamic-resource-allocation/cel
 * declares it.
 */
export function deviceSelectorEnvironment(): CelEnvironment {
  return once('deviceSelector', () => {
    // Sizes bound the cost estimate as kube's: domains 63, ids 32, attribute values 64, driver 63, maps 32 entries.
    const domain = sized(Types.string, 63);
    const id = sized(Types.string, 32);
    const perDevice = 32;
    const device = objectOf('kubernetes.DRADevice', {
      driver: sized(Types.string, 63),
      attributes: mapOf(domain, mapOf(id, sized(Types.dyn, 64), perDevice), perDevice),
      capacity: mapOf(domain, mapOf(id, namedType('kubernetes.Quantity'), perDevice), perDevice),
      allowMultipleAllocations: Types.bool,
    }, ['driver', 'attributes', 'capacity']);
    return new CelEnvironment([{ name: 'device', type: device }], { pathSizes: true, bindings: true });
  });
}
