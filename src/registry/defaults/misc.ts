import type { KubeObject } from '../../machinery/object.js';
import { defaultNumber, defaultPtr, defaultString, ensureObject, isNil, objectAt, objectsAt, type JsonObject } from './util.js';

/**
 * Defaulting for scheduling, admissionregistration, flowcontrol,
 * apiextensions and apiregistration v1 types.
 */

export function defaultPriorityClass(pc: KubeObject): void {
  defaultPtr(pc, 'preemptionPolicy', 'PreemptLowerPriority');
}

function defaultServiceReference(clientConfig: JsonObject | undefined): void {
  const service = clientConfig && objectAt(clientConfig, 'service');
  if (service) defaultPtr(service, 'port', 443);
}

function defaultRules(rules: JsonObject[]): void {
  for (const rule of rules) defaultPtr(rule, 'scope', '*');
}

function defaultWebhook(webhook: JsonObject, mutating: boolean): void {
  defaultPtr(webhook, 'failurePolicy', 'Fail');
  defaultPtr(webhook, 'matchPolicy', 'Equivalent');
  defaultPtr(webhook, 'namespaceSelector', {});
  defaultPtr(webhook, 'objectSelector', {});
  defaultPtr(webhook, 'timeoutSeconds', 10);
  if (mutating) defaultPtr(webhook, 'reinvocationPolicy', 'Never');
  defaultRules(objectsAt(webhook, 'rules'));
  defaultServiceReference(objectAt(webhook, 'clientConfig'));
}

export function defaultWebhookConfiguration(cfg: KubeObject, mutating: boolean): void {
  for (const webhook of objectsAt(cfg, 'webhooks')) defaultWebhook(webhook, mutating);
}

function defaultMatchResources(match: JsonObject | undefined): void {
  if (!match) return;
  defaultPtr(match, 'matchPolicy', 'Equivalent');
  defaultPtr(match, 'namespaceSelector', {});
  defaultPtr(match, 'objectSelector', {});
  defaultRules([...objectsAt(match, 'resourceRules'), ...objectsAt(match, 'excludeResourceRules')]);
}

export function defaultValidatingAdmissionPolicy(policy: KubeObject): void {
  const spec = ensureObject(policy, 'spec');
  defaultPtr(spec, 'failurePolicy', 'Fail');
  defaultMatchResources(objectAt(spec, 'matchConstraints'));
}

export function defaultValidatingAdmissionPolicyBinding(binding: KubeObject): void {
  defaultMatchResources(objectAt(ensureObject(binding, 'spec'), 'matchResources'));
}

/**
 * admissionregistration.k8s.io/v1alpha1 MutatingAdmissionPolicyBinding: the
 * v1alpha1 package also defaults a paramRef's parameterNotFoundAction
 * (pkg/apis/admissionregistration/v1alpha1/defaults.go SetDefaults_ParamRef),
 * which v1beta1 and v1 leave unset.
 */
export function defaultMutatingAdmissionPolicyBindingV1alpha1(binding: KubeObject): void {
  defaultValidatingAdmissionPolicyBinding(binding);
  const paramRef = objectAt(ensureObject(binding, 'spec'), 'paramRef');
  if (paramRef) defaultPtr(paramRef, 'parameterNotFoundAction', 'Deny');
}

export function defaultFlowSchema(fs: KubeObject): void {
  defaultNumber(ensureObject(fs, 'spec'), 'matchingPrecedence', 1000);
}

export function defaultPriorityLevelConfiguration(plc: KubeObject): void {
  const spec = ensureObject(plc, 'spec');
  const limited = objectAt(spec, 'limited');
  if (limited) {
    defaultPtr(limited, 'nominalConcurrencyShares', 30);
    defaultPtr(limited, 'lendablePercent', 0);
    const queuing = objectAt(objectAt(limited, 'limitResponse') ?? {}, 'queuing');
    if (queuing) {
      defaultNumber(queuing, 'handSize', 8);
      defaultNumber(queuing, 'queues', 64);
      defaultNumber(queuing, 'queueLengthLimit', 50);
    }
  }
  const exempt = objectAt(spec, 'exempt');
  if (exempt) {
    defaultPtr(exempt, 'nominalConcurrencyShares', 0);
    defaultPtr(exempt, 'lendablePercent', 0);
  }
}

export function defaultCustomResourceDefinition(crd: KubeObject): void {
  const spec = ensureObject(crd, 'spec');
  const names = ensureObject(spec, 'names');
  const kind = typeof names.kind === 'string' ? names.kind : '';
  defaultString(names, 'singular', kind.toLowerCase());
  defaultString(names, 'listKind', kind === '' ? '' : `${kind}List`);
  if (names.listKind === '') delete names.listKind;
  if (names.singular === '') delete names.singular;
  const conversion = ensureObject(spec, 'conversion');
  defaultString(conversion, 'strategy', 'None');
  const webhook = objectAt(conversion, 'webhook');
  defaultServiceReference(webhook && objectAt(webhook, 'clientConfig'));
}

export function defaultAPIService(svc: KubeObject): void {
  const service = objectAt(ensureObject(svc, 'spec'), 'service');
  if (service && isNil(service.port)) service.port = 443;
}
