import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pythonClientMissing, runPythonSteps } from '../helpers/python-client.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, http, removeDir, startServer, tempDir, type TestServer } from '../helpers/server.js';

/**
 * The official Python client (Debian's python3-kubernetes) against custom
 * resources: a script loads the admin kubeconfig and uses both
 * `kubernetes.dynamic.DynamicClient` and `CustomObjectsApi` to create, get,
 * list with a label selector, watch from a list's resourceVersion, patch (also status and
 * scale) and delete; it prints one JSON line per step, which the test checks.
 */

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'sprockets.py.example.com' },
  spec: {
    group: 'py.example.com',
    scope: 'Namespaced',
    names: { plural: 'sprockets', singular: 'sprocket', kind: 'Sprocket' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { teeth: { type: 'integer', minimum: 1 }, finish: { type: 'string', default: 'matte' }, replicas: { type: 'integer' } },
              },
              status: { type: 'object', properties: { replicas: { type: 'integer' } } },
            },
          },
        },
      },
    ],
  },
};

const SCRIPT = `
import json, sys
from kubernetes import client, config, dynamic, watch
from kubernetes.client.rest import ApiException

config.load_kube_config(config_file=sys.argv[1])
api_client = client.ApiClient()

def out(step, value):
    print(json.dumps({"step": step, "value": value}), flush=True)

def sprocket(name, teeth, tier):
    return {"apiVersion": "py.example.com/v1", "kind": "Sprocket",
            "metadata": {"name": name, "labels": {"tier": tier}},
            "spec": {"teeth": teeth}}

# The dynamic client discovers the resource from /apis.
dyn = dynamic.DynamicClient(api_client)
res = dyn.resources.get(api_version="py.example.com/v1", kind="Sprocket")
out("dynamic.resource", {"name": res.name, "namespaced": res.namespaced})
created = dyn.create(res, body=sprocket("d1", 10, "front"), namespace="default")
out("dynamic.create", {"name": created.metadata.name, "spec": created.to_dict()["spec"]})
dyn.create(res, body=sprocket("d2", 20, "back"), namespace="default")
got = dyn.get(resource=res, name="d1", namespace="default")
out("dynamic.get", {"teeth": got.spec.teeth, "uid": got.metadata.uid == created.metadata.uid})
listed = dyn.get(resource=res, namespace="default", label_selector="tier=front")
out("dynamic.list", sorted(i.metadata.name for i in listed.items))
patched = dyn.patch(resource=res, name="d1", namespace="default",
                    body={"spec": {"teeth": 11}}, content_type="application/merge-patch+json")
out("dynamic.patch", {"teeth": patched.spec.teeth, "generation": patched.metadata.generation})
for event in dyn.watch(res, namespace="default", resource_version=listed.metadata.resourceVersion, timeout=30):
    obj = event["object"]
    out("dynamic.watch", {"type": event["type"], "name": obj.metadata.name, "teeth": obj.spec.teeth})
    break
try:
    dyn.patch(resource=res, name="d1", namespace="default",
              body={"spec": {"teeth": 0}}, content_type="application/merge-patch+json")
    out("dynamic.invalid", None)
except ApiException as e:
    out("dynamic.invalid", {"status": e.status, "reason": json.loads(e.body)["reason"]})
deleted = dyn.delete(resource=res, name="d1", namespace="default")
out("dynamic.delete", deleted.kind)

# The generated CustomObjectsApi.
co = client.CustomObjectsApi(api_client)
g, v, p = "py.example.com", "v1", "sprockets"
c = co.create_namespaced_custom_object(g, v, "default", p, sprocket("c1", 30, "front"))
out("custom.create", {"name": c["metadata"]["name"], "spec": c["spec"]})
got = co.get_namespaced_custom_object(g, v, "default", p, "c1")
out("custom.get", got["spec"]["teeth"])
listed = co.list_namespaced_custom_object(g, v, "default", p, label_selector="tier=front")
out("custom.list", sorted(i["metadata"]["name"] for i in listed["items"]))
everywhere = co.list_cluster_custom_object(g, v, p)
out("custom.listAll", sorted(i["metadata"]["name"] for i in everywhere["items"]))
patched = co.patch_namespaced_custom_object(g, v, "default", p, "c1", {"spec": {"finish": "gloss"}})
out("custom.patch", patched["spec"])
stream = watch.Watch().stream(co.list_namespaced_custom_object, g, v, "default", p,
                              resource_version=listed["metadata"]["resourceVersion"], timeout_seconds=30)
for event in stream:
    out("custom.watch", {"type": event["type"], "name": event["object"]["metadata"]["name"], "spec": event["object"]["spec"]})
    break
status = co.patch_namespaced_custom_object_status(g, v, "default", p, "c1", {"status": {"replicas": 2}, "spec": {"teeth": 99}})
out("custom.status", {"status": status["status"], "teeth": status["spec"]["teeth"]})
co.patch_namespaced_custom_object_scale(g, v, "default", p, "c1", {"spec": {"replicas": 4}})
scale = co.get_namespaced_custom_object_scale(g, v, "default", p, "c1")
out("custom.scale", {"kind": scale["kind"], "spec": scale["spec"], "status": scale["status"]})
out("custom.scaled", co.get_namespaced_custom_object(g, v, "default", p, "c1")["spec"]["replicas"])
co.delete_namespaced_custom_object(g, v, "default", p, "c1")
try:
    co.get_namespaced_custom_object(g, v, "default", p, "c1")
    out("custom.gone", None)
except ApiException as e:
    out("custom.gone", e.status)
co.delete_namespaced_custom_object(g, v, "default", p, "d2")
out("done", True)
`;

const skip = pythonClientMissing('kubernetes.dynamic');

describe('the Python kubernetes client with custom resources', { skip }, () => {
  let server: TestServer;
  let work: string;

  before(async () => {
    work = tempDir('capstan-python-');
    writeFileSync(join(work, 'crd_client.py'), SCRIPT);
    server = await startServer({ backend: 'memory' });
    const made = await http(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: CRD });
    assert.equal(made.status, 201, made.text);
    await eventually(async () => (await http(server, 'GET', '/apis/py.example.com/v1/namespaces/default/sprockets')).status === 200);
  });
  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
    if (work) removeDir(work);
  });

  it('creates, gets, lists, patches and deletes with DynamicClient and CustomObjectsApi', async () => {
    const steps = await runPythonSteps(join(work, 'crd_client.py'), [server.kubeconfig], work);
    assert.deepEqual(Object.fromEntries(steps), {
      'dynamic.resource': { name: 'sprockets', namespaced: true },
      'dynamic.create': { name: 'd1', spec: { teeth: 10, finish: 'matte' } },
      'dynamic.get': { teeth: 10, uid: true },
      'dynamic.list': ['d1'],
      'dynamic.patch': { teeth: 11, generation: 2 },
      'dynamic.watch': { type: 'MODIFIED', name: 'd1', teeth: 11 },
      'dynamic.invalid': { status: 422, reason: 'Invalid' },
      'dynamic.delete': 'Status',
      'custom.create': { name: 'c1', spec: { teeth: 30, finish: 'matte' } },
      'custom.get': 30,
      'custom.list': ['c1'],
      'custom.listAll': ['c1', 'd2'],
      'custom.patch': { teeth: 30, finish: 'gloss' },
      'custom.watch': { type: 'MODIFIED', name: 'c1', spec: { teeth: 30, finish: 'gloss' } },
      'custom.status': { status: { replicas: 2 }, teeth: 30 },
      'custom.scale': { kind: 'Scale', spec: { replicas: 4 }, status: { replicas: 2 } },
      'custom.scaled': 4,
      'custom.gone': 404,
      done: true,
    });
    const left = await http(server, 'GET', '/apis/py.example.com/v1/sprockets');
    assert.deepEqual(left.json.items, []);
  });
});
