/**
 * src/cel/: the server's one door to CEL (Common Expression Language).
 * Environments per use (CRD rules, admission policies, match conditions,
 * authentication claims), compile with kube's errors and a static cost
 * estimate, evaluate with a runtime cost budget. No other folder imports the
 * CEL library; nothing here exposes its types.
 */
export { CelEnvironment, celEquals, type EnvironmentOptions, type VariableDeclaration } from './environment.js';
export {
  admissionPolicyEnvironment, authorizationMatchConditionEnvironment, claimsEnvironment, crdRuleEnvironment, deviceSelectorEnvironment, mutatingAdmissionPolicyEnvironment, typedAdmissionPolicyEnvironment,
  userEnvironment, webhookMatchConditionEnvironment, type RuleEnvironment,
} from './environments.js';
export {
  compile, compiledProgramCount, MESSAGE_EXPRESSION_MUST_BE_STRING, RULE_MUST_BE_BOOL, type CompileOptions, type CompileResult, type Program,
} from './compile.js';
export { CostBudget, evaluate, evaluateAsync, type EvaluateOptions, type EvaluationErrorKind, type EvaluationResult } from './evaluate.js';
export type { CelError } from './errors.js';
export { escapeProperty, unescapeProperty } from './escaping.js';
export { schemaDeclType, type OpenApiSchema } from './schema-types.js';
export {
  listOf, mapOf, namedType, objectOf, optionalOf, sized, typeName, Types,
  type DeclType, type ListType, type MapType, type NamedType, type ObjectField, type ObjectType, type OptionalType, type ScalarType,
  type ScalarTypeName,
} from './types.js';
export { AdmissionRequestType, NamespaceType, SubjectAccessReviewSpecType, UserInfoType } from './kube-types.js';
export { celToJson, dynToCel, isUnorderedList, type CelValue } from './values.js';
export {
  compositionType, crdRuleCost, crdTotalCostError, expressionCost, lazyObject, maxCardinality, pathCardinality, ruleCostError, toCel,
} from './activation.js';
export * from './limits.js';
export type { CostEstimate, SizeEstimate } from './libraries/cost.js';
export {
  newAuthorizer, type AuthorizationAttributes as CelAuthorizationAttributes, type AuthorizerBinding, type AuthorizerDecision, type RequestResource,
} from './libraries/authz.js';
export { compileConstruction, PolicyExpressions, type Compiled, type CompiledVariable, type NamedExpression } from './policy-expressions.js';
export { rewriteMessageLiterals } from './message-literals.js';
