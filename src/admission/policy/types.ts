import type { KubeObject } from '../../machinery/object.js';

/**
 * The admissionregistration.k8s.io/v1 shapes admission policies read
 * (ValidatingAdmissionPolicy, MutatingAdmissionPolicy and their bindings),
 * as decoded JSON: every field optional, since stored objects are read as
 * they are.
 */

export interface LabelSelectorSpec {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export interface RuleWithOperations {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
  resourceNames?: string[];
}

export interface MatchResources {
  namespaceSelector?: LabelSelectorSpec;
  objectSelector?: LabelSelectorSpec;
  resourceRules?: RuleWithOperations[];
  excludeResourceRules?: RuleWithOperations[];
  matchPolicy?: 'Exact' | 'Equivalent';
}

export interface ParamKind {
  apiVersion?: string;
  kind?: string;
}

export interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: LabelSelectorSpec;
  parameterNotFoundAction?: 'Allow' | 'Deny';
}

export type { NamedExpression } from '../../cel/index.js';
import type { NamedExpression } from '../../cel/index.js';

export interface Validation {
  expression?: string;
  message?: string;
  reason?: string;
  messageExpression?: string;
}

export interface AuditAnnotation {
  key?: string;
  valueExpression?: string;
}

export type FailurePolicy = 'Fail' | 'Ignore';

export interface ValidatingAdmissionPolicySpec {
  paramKind?: ParamKind;
  matchConstraints?: MatchResources;
  validations?: Validation[];
  failurePolicy?: FailurePolicy;
  auditAnnotations?: AuditAnnotation[];
  matchConditions?: NamedExpression[];
  variables?: NamedExpression[];
}

export interface Mutation {
  patchType?: 'ApplyConfiguration' | 'JSONPatch';
  applyConfiguration?: { expression?: string };
  jsonPatch?: { expression?: string };
}

export interface MutatingAdmissionPolicySpec {
  paramKind?: ParamKind;
  matchConstraints?: MatchResources;
  variables?: NamedExpression[];
  mutations?: Mutation[];
  failurePolicy?: FailurePolicy;
  matchConditions?: NamedExpression[];
  reinvocationPolicy?: 'Never' | 'IfNeeded';
}

export type ValidationAction = 'Deny' | 'Warn' | 'Audit';

export interface PolicyBindingSpec {
  policyName?: string;
  paramRef?: ParamRef;
  matchResources?: MatchResources;
  /** ValidatingAdmissionPolicyBinding only. */
  validationActions?: ValidationAction[];
}

export type PolicyObject<S> = KubeObject & { spec?: S };
export type ValidatingAdmissionPolicy = PolicyObject<ValidatingAdmissionPolicySpec>;
export type MutatingAdmissionPolicy = PolicyObject<MutatingAdmissionPolicySpec>;
export type PolicyBinding = PolicyObject<PolicyBindingSpec>;
