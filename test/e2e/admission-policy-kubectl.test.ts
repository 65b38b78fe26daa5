import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { eventually, kubectl, kubectlMissing, removeDir, startServer, type TestServer } from '../helpers/server.js';

/**
 * ValidatingAdmissionPolicy driven by kubectl as a user would: a policy with
 * a ConfigMap param limiting Deployments' replicas, bound with Deny, Warn
 * and Audit in turn (kubectl shows kube's denial and `Warning:` lines); a
 * policy on a custom resource; status.typeChecking of a policy with a type
 * error.
 */

const skip = kubectlMissing();

const POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit
spec:
  failurePolicy: Fail
  paramKind:
    apiVersion: v1
    kind: ConfigMap
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  variables:
  - name: max
    expression: int(params.data.maxReplicas)
  validations:
  - expression: object.spec.replicas <= variables.max
    messageExpression: "'replicas must be no greater than ' + string(variables.max)"
    reason: Invalid
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: replica-limit
  namespace: default
data:
  maxReplicas: "3"
`;

const binding = (actions: string): string => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replica-limit-binding
spec:
  policyName: replica-limit
  validationActions: [${actions}]
  paramRef:
    name: replica-limit
    parameterNotFoundAction: Deny
  matchResources:
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: default
`;

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: widget-size
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["example.com"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["widgets"]
  validations:
  - expression: object.spec.size < 10
    message: widgets must be small
    reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: widget-size
spec:
  policyName: widget-size
  validationActions: [Deny]
`;

const TYPO = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: typo
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["deployments"]
  validations:
  - expression: object.spec.replicaz > 1
`;

const MUTATING = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: label-configmaps
spec:
  failurePolicy: Fail
  reinvocationPolicy: IfNeeded
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["configmaps"]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"policy.example.com/mutated": "yes"}}}
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        [JSONPatch{op: "add", path: "/data/keys", value: string(size(object.data))}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: label-configmaps
spec:
  policyName: label-configmaps
`;

const FAILING_MUTATION = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: remove-missing
spec:
  failurePolicy: Fail
  # kube requires it (no default): the policy is invalid without it.
  reinvocationPolicy: Never
  matchConstraints:
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: mutating-other
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["configmaps"]
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: '[JSONPatch{op: "remove", path: "/nope"}]'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: remove-missing
spec:
  policyName: remove-missing
`;

const widget = (name: string, size: number): string => `apiVersion: example.com/v1
kind: Widget
metadata:
  name: ${name}
  namespace: default
spec:
  size: ${size}
`;

describe('ValidatingAdmissionPolicy with kubectl', { skip }, () => {
  let server: TestServer;

  before(async () => {
    server = await startServer({ backend: 'sqlite' });
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  const k = (args: string[], input?: string) => kubectl(server, args, input);
  const ok = async (args: string[], input?: string): Promise<string> => {
    const r = await k(args, input);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };

  it('denies, warns about and audits Deployments with too many replicas, per the binding\'s actions', async () => {
    await ok(['apply', '-f', '-'], POLICY);
    await ok(['apply', '-f', '-'], binding('Deny'));
    const denied = await eventually(async () => {
      const r = await k(['create', 'deployment', 'big', '--image=nginx', '--replicas=5', '-n', 'default']);
      return r.code !== 0 && r.stderr;
    });
    assert.equal(denied.trim(),
      'error: failed to create deployment: deployments.apps "big" is forbidden: ' +
      "ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-binding' denied request: replicas must be no greater than 3");
    await ok(['create', 'deployment', 'small', '--image=nginx', '--replicas=2', '-n', 'default']);
    // Scaling past the param's limit is an UPDATE the policy also sees.
    const scaled = await k(['patch', 'deployment', 'small', '-n', 'default', '--type=merge', '-p', '{"spec":{"replicas":4}}']);
    assert.equal(scaled.code, 1);
    assert.match(scaled.stderr, /denied request: replicas must be no greater than 3/);
    // The param changes: the next request sees the new limit.
    await ok(['patch', 'configmap', 'replica-limit', '-n', 'default', '--type=merge', '-p', '{"data":{"maxReplicas":"10"}}']);
    await eventually(async () => (await k(['patch', 'deployment', 'small', '-n', 'default', '--type=merge', '-p', '{"spec":{"replicas":4}}'])).code === 0);
    await ok(['patch', 'configmap', 'replica-limit', '-n', 'default', '--type=merge', '-p', '{"data":{"maxReplicas":"3"}}']);

    await ok(['apply', '-f', '-'], binding('Warn'));
    const warned = await eventually(async () => {
      const r = await k(['create', 'deployment', 'warned', '--image=nginx', '--replicas=5', '-n', 'default']);
      if (r.code !== 0) return false;
      return r;
    });
    assert.match(warned.stderr, /^Warning: Validation failed for ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-binding': replicas must be no greater than 3$/m);
    assert.equal(warned.stdout.trim(), 'deployment.apps/warned created');

    await ok(['apply', '-f', '-'], binding('Audit'));
    const audited = await eventually(async () => {
      const r = await k(['create', 'deployment', 'audited', '--image=nginx', '--replicas=5', '-n', 'default']);
      return r.code === 0 && !r.stderr.includes('Warning') && r;
    });
    assert.equal(audited.stdout.trim(), 'deployment.apps/audited created');

    // Other namespaces are outside the binding's namespaceSelector.
    await ok(['create', 'namespace', 'other']);
    await ok(['create', 'deployment', 'elsewhere', '--image=nginx', '--replicas=9', '-n', 'other']);
    // Without its param, a binding with parameterNotFoundAction Deny refuses.
    await ok(['apply', '-f', '-'], binding('Deny'));
    await ok(['delete', 'configmap', 'replica-limit', '-n', 'default']);
    const missing = await eventually(async () => {
      const r = await k(['create', 'deployment', 'noparam', '--image=nginx', '--replicas=1', '-n', 'default']);
      return r.code !== 0 && r.stderr;
    });
    assert.match(missing, /denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction/);
  });

  it('applies to custom resources', async () => {
    await ok(['apply', '-f', '-'], CRD.split('---\n')[0]!);
    await ok(['wait', '--for=condition=Established', '--timeout=30s', 'crd/widgets.example.com']);
    await eventually(async () => (await k(['get', 'widgets', '-n', 'default'])).code === 0);
    await ok(['apply', '-f', '-'], CRD.split('---\n').slice(1).join('---\n'));
    const denied = await eventually(async () => {
      const r = await k(['apply', '-f', '-'], widget('huge', 50));
      return r.code !== 0 && r.stderr;
    });
    assert.match(denied, /widgets.example.com "huge" is forbidden: ValidatingAdmissionPolicy 'widget-size' with binding 'widget-size' denied request: widgets must be small/);
    assert.match(denied, /^Error from server \(Forbidden\)/);
    await ok(['apply', '-f', '-'], widget('tiny', 2));
  });

  it('writes status.typeChecking for a policy with a type error', async () => {
    await ok(['apply', '-f', '-'], TYPO);
    const status = await eventually(async () => {
      const p = JSON.parse(await ok(['get', 'validatingadmissionpolicy', 'typo', '-o', 'json']));
      return p.status?.observedGeneration === 1 && p.status;
    });
    assert.deepEqual(status.typeChecking, {
      expressionWarnings: [{
        fieldRef: 'spec.validations[0].expression',
        warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicaz'\n | object.spec.replicaz > 1\n | ...........^\n",
      }],
    });
    const managers = JSON.parse(await ok(['get', 'validatingadmissionpolicy', 'typo', '-o', 'json', '--show-managed-fields'])).metadata.managedFields
      .map((m: { manager: string; operation: string; subresource?: string }) => `${m.manager} ${m.operation} ${m.subresource ?? ''}`.trim());
    assert.ok(managers.includes('validatingadmissionpolicy-status-controller Apply status'), managers.join(', '));
    // A fixed expression clears the warning at the next generation.
    await ok(['apply', '-f', '-'], TYPO.replace('replicaz', 'replicas'));
    const fixed = await eventually(async () => {
      const p = JSON.parse(await ok(['get', 'validatingadmissionpolicy', 'typo', '-o', 'json']));
      return p.status?.observedGeneration === 2 && p.status;
    });
    assert.equal(fixed.typeChecking?.expressionWarnings, undefined);
  });

  it('mutates with a MutatingAdmissionPolicy: ApplyConfiguration and JSONPatch, and refuses per its failurePolicy', async () => {
    await ok(['apply', '-f', '-'], MUTATING);
    const created = await eventually(async () => {
      const name = `mutated-${Date.now()}`;
      await ok(['create', 'configmap', name, '-n', 'default', '--from-literal=k=v']);
      const cm = JSON.parse(await ok(['get', 'configmap', name, '-n', 'default', '-o', 'json']));
      return cm.metadata.labels?.['policy.example.com/mutated'] === 'yes' && cm;
    });
    assert.deepEqual(created.data, { k: 'v', keys: '1' });
    // The type in the request decides nothing else: a Secret is left alone.
    await ok(['create', 'secret', 'generic', 'untouched', '-n', 'default', '--from-literal=k=v']);
    const secret = JSON.parse(await ok(['get', 'secret', 'untouched', '-n', 'default', '-o', 'json']));
    assert.equal(secret.metadata.labels, undefined);
    await ok(['create', 'namespace', 'mutating-other']);
    await ok(['apply', '-f', '-'], FAILING_MUTATION);
    const refused = await eventually(async () => {
      const r = await k(['create', 'configmap', `refused-${Date.now()}`, '-n', 'mutating-other', '--from-literal=k=v']);
      return r.code !== 0 && r.stderr;
    });
    assert.match(refused, /policy 'remove-missing' with binding 'remove-missing' denied request: error in remove for path: '\/nope'/);
  });
});
