import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { eventually, http, kubectl, kubectlMissing, removeDir, startServer, type TestServer } from '../helpers/server.js';

/**
 * A CustomResourceDefinition's life with a real kubectl: apply, wait for
 * Established, instances with printer columns, scale and status
 * subresources, explain, the category in `kubectl get all`, a second
 * (deprecated) version, and deletion, which removes every instance and then
 * the API.
 */

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
    shortNames: [wd]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.selector
    additionalPrinterColumns:
    - name: Color
      type: string
      jsonPath: .spec.color
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Ready
      type: string
      jsonPath: .status.conditions[?(@.type=="Ready")].status
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
    selectableFields:
    - jsonPath: .spec.color
    schema:
      openAPIV3Schema:
        type: object
        description: A widget for the e2e test.
        properties:
          spec:
            type: object
            description: What the widget should be.
            properties:
              color:
                type: string
                description: The widget's color.
              replicas:
                type: integer
          status:
            type: object
            properties:
              replicas:
                type: integer
              selector:
                type: string
              conditions:
                type: array
                items:
                  type: object
                  properties:
                    type: {type: string}
                    status: {type: string}
`;

const WIDGET = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w1
  namespace: default
spec:
  color: blue
  replicas: 1
`;

const skip = kubectlMissing();

describe('CustomResourceDefinitions with kubectl', { skip }, () => {
  let server: TestServer;
  const k = (args: string[], input?: string) => kubectl(server, ['--cache-dir', join(server.dataDir, 'kube-cache'), ...args], input);
  const ok = async (args: string[], input?: string): Promise<string> => {
    const r = await k(args, input);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed:\n${r.stderr}\n${r.stdout}`);
    return r.stdout;
  };

  before(async () => {
    server = await startServer({ backend: 'memory' });
  });
  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  it('refuses an invalid CRD with kube’s messages', async () => {
    const bad = CRD.replace('name: widgets.example.com', 'name: gadgets.example.com').replace('storage: true', 'storage: false');
    const r = await k(['apply', '-f', '-'], bad);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /metadata\.name: Invalid value: "gadgets\.example\.com": must be spec\.names\.plural\+"\."\+spec\.group/);
    assert.match(r.stderr, /spec\.versions: Invalid value: .*must have exactly one version marked as storage version/);
  });

  it('applies a CRD and waits for it to be Established', async () => {
    assert.match(await ok(['apply', '-f', '-'], CRD), /customresourcedefinition\.apiextensions\.k8s\.io\/widgets\.example\.com created/);
    await ok(['wait', '--for=condition=Established', '--timeout=30s', 'crd/widgets.example.com']);
    const crd = JSON.parse(await ok(['get', 'crd', 'widgets.example.com', '-o', 'json']));
    const byType = new Map((crd.status.conditions as Array<{ type: string; status: string; reason: string; message: string }>).map((c) => [c.type, c]));
    assert.deepEqual({ ...byType.get('NamesAccepted'), lastTransitionTime: undefined }, { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found', lastTransitionTime: undefined });
    assert.equal(byType.get('Established')?.reason, 'InitialNamesAccepted');
    assert.deepEqual(crd.status.storedVersions, ['v1']);
    assert.equal(crd.status.acceptedNames.kind, 'Widget');
    assert.match(await ok(['apply', '-f', '-'], CRD), /customresourcedefinition\.apiextensions\.k8s\.io\/widgets\.example\.com unchanged/);
  });

  it('serves instances with the printer columns, short name and selectable field', async () => {
    assert.match(await ok(['apply', '-f', '-'], WIDGET), /widget\.example\.com\/w1 created/);
    const table = await ok(['get', 'widgets']);
    assert.match(table, /^NAME\s+COLOR\s+REPLICAS\s+READY\s+AGE\n/);
    // No Ready condition yet: the cell is null, which kubectl leaves blank.
    assert.match(table, /\nw1\s+blue\s+1\s+\d+s\n/);
    assert.match(await ok(['get', 'wd', '-o', 'name']), /^widget\.example\.com\/w1$/m);
    assert.match(await ok(['get', 'widgets', '--field-selector', 'spec.color=blue', '-o', 'name']), /w1/);
    assert.equal((await ok(['get', 'widgets', '--field-selector', 'spec.color=red', '-o', 'name'])).trim(), '');
    const other = WIDGET.replace('name: w1', 'name: w2').replace('color: blue', 'color: red');
    assert.match(await ok(['apply', '--server-side', '-f', '-'], other), /widget\.example\.com\/w2 serverside-applied/);
    assert.match(await ok(['get', 'widgets', '--field-selector', 'spec.color=red', '-o', 'name']), /w2/);
  });

  it('scales through the scale subresource and patches status', async () => {
    assert.match(await ok(['scale', 'widget/w1', '--replicas=3']), /widget\.example\.com\/w1 scaled/);
    assert.equal((await ok(['get', 'widget', 'w1', '-o', 'jsonpath={.spec.replicas}'])).trim(), '3');
    const before = JSON.parse(await ok(['get', 'widget', 'w1', '-o', 'json']));
    await ok(['patch', 'widget', 'w1', '--subresource=status', '--type=merge', '-p', '{"status":{"replicas":3,"selector":"app=w1","conditions":[{"type":"Ready","status":"True"}]}}']);
    const after = JSON.parse(await ok(['get', 'widget', 'w1', '-o', 'json']));
    assert.equal(after.status.replicas, 3);
    assert.equal(after.metadata.generation, before.metadata.generation, 'a status write leaves generation alone');
    assert.match(await ok(['get', 'widgets']), /\nw1\s+blue\s+3\s+True\s+/);
    // Status is ignored on main-resource writes.
    await ok(['patch', 'widget', 'w1', '--type=merge', '-p', '{"status":{"replicas":9}}']);
    assert.equal((await ok(['get', 'widget', 'w1', '-o', 'jsonpath={.status.replicas}'])).trim(), '3');
    const scale = JSON.parse(await ok(['get', '--raw', '/apis/example.com/v1/namespaces/default/widgets/w1/scale']));
    assert.deepEqual({ kind: scale.kind, apiVersion: scale.apiVersion, spec: scale.spec, status: scale.status }, { kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 3 }, status: { replicas: 3, selector: 'app=w1' } });
  });

  it('refuses strategic merge patch with kube’s 415', async () => {
    const r = await http(server, 'PATCH', '/apis/example.com/v1/namespaces/default/widgets/w1', {
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: '{"spec":{"color":"red"}}',
    });
    assert.equal(r.status, 415);
    assert.equal(r.json.message, 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
  });

  it('explains the custom resource and lists it in `get all`', async () => {
    const explained = await ok(['explain', 'widgets.spec']);
    assert.match(explained, /KIND:\s+Widget/);
    assert.match(explained, /color\s+<string>/);
    assert.match(await ok(['get', 'all', '-n', 'default', '-o', 'name']), /widget\.example\.com\/w1/);
  });

  it('adds a deprecated version without a restart', async () => {
    const twoVersions = CRD.replace(
      '  versions:\n',
      '  versions:\n  - name: v1beta1\n    served: true\n    storage: false\n    deprecated: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        x-kubernetes-preserve-unknown-fields: true\n',
    );
    await ok(['apply', '-f', '-'], twoVersions);
    const r = await eventually(async () => {
      const got = await k(['get', 'widgets.v1beta1.example.com', 'w1', '-o', 'json']);
      return got.code === 0 ? got : undefined;
    });
    assert.match(r.stderr, /Warning: example\.com\/v1beta1 Widget is deprecated; use example\.com\/v1 Widget/);
    assert.equal(JSON.parse(r.stdout).apiVersion, 'example.com/v1beta1');
  });

  it('deleting the CRD removes its instances and then the API', async () => {
    await ok(['delete', 'crd', 'widgets.example.com', '--timeout=60s']);
    const gone = await k(['get', 'crd', 'widgets.example.com']);
    assert.notEqual(gone.code, 0);
    await eventually(async () => (await http(server, 'GET', '/apis/example.com/v1/namespaces/default/widgets')).status === 404);
    const discovery = await http(server, 'GET', '/apis');
    assert.doesNotMatch(discovery.text, /example\.com/);
  });
});
