import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pythonClientMissing, runPythonSteps } from '../helpers/python-client.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeDir, startServer, tempDir, type TestServer } from '../helpers/server.js';

/**
 * The official Python client (Debian's python3-kubernetes 22.6) with its
 * generated, strictly typed models: every answer is deserialized into a model
 * whose required fields must not be None, so an object missing a field Go
 * always writes (DaemonSet status counters, ReplicationController
 * status.replicas, PDB status counters, core Event reportingComponent, Role
 * rules…) raises `ValueError: Invalid value for …`. Typed create, read,
 * replace and delete of the stored kinds the issue names, then
 * `utils.create_from_yaml` of a multi-document file twice: the second run's
 * errors are kube's `… already exists` conflicts.
 */

const SCRIPT = `
import json, sys, traceback
from kubernetes import client, config, utils
from kubernetes.client.rest import ApiException

config.load_kube_config(config_file=sys.argv[1])
api = client.ApiClient()
core, apps, batch = client.CoreV1Api(api), client.AppsV1Api(api), client.BatchV1Api(api)
net, rbac = client.NetworkingV1Api(api), client.RbacAuthorizationV1Api(api)
policy, events = client.PolicyV1Api(api), client.EventsV1Api(api)
NS = "default"

def out(step, value):
    print(json.dumps({"step": step, "value": value}), flush=True)

meta = lambda name: {"name": name, "labels": {"app": name}}
pod_spec = {"containers": [{"name": "c", "image": "nginx"}]}
template = lambda name: {"metadata": {"labels": {"app": name}}, "spec": pod_spec}

auto = client.AutoscalingV1Api(api)

def raw(method, path, body=None):
    r = api.call_api(path, method, body=body, header_params={"Accept": "application/json", "Content-Type": "application/json"},
                     auth_settings=["BearerToken"], _preload_content=False, _return_http_data_only=True)
    return json.loads(r.data)

KINDS = [
    ("DaemonSet", apps, "daemon_set", True, {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": meta("ds"), "spec": {"selector": {"matchLabels": {"app": "ds"}}, "template": template("ds")}}),
    ("ReplicationController", core, "replication_controller", True, {"apiVersion": "v1", "kind": "ReplicationController", "metadata": meta("rc"), "spec": {"replicas": 0, "selector": {"app": "rc"}, "template": template("rc")}}),
    ("StatefulSet", apps, "stateful_set", True, {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": meta("sts"), "spec": {"replicas": 0, "serviceName": "sts", "selector": {"matchLabels": {"app": "sts"}}, "template": template("sts")}}),
    ("Deployment", apps, "deployment", True, {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta("dep"), "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "dep"}}, "template": template("dep")}}),
    ("Job", batch, "job", True, {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta("job"), "spec": {"suspend": True, "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}),
    ("CronJob", batch, "cron_job", True, {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": meta("cj"), "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}}}),
    ("HorizontalPodAutoscaler", auto, "horizontal_pod_autoscaler", True, {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": meta("hpa"), "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "dep"}, "maxReplicas": 3, "targetCPUUtilizationPercentage": 50}}),
    ("PodDisruptionBudget", policy, "pod_disruption_budget", True, {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": meta("pdb"), "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "x"}}}}),
    ("Ingress", net, "ingress", True, {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": meta("ing"), "spec": {"defaultBackend": {"service": {"name": "svc", "port": {"number": 80}}}}}),
    ("NetworkPolicy", net, "network_policy", True, {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": meta("np"), "spec": {"podSelector": {}}}),
    ("Role", rbac, "role", True, {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": meta("role")}),
    ("ClusterRole", rbac, "cluster_role", False, {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": meta("py-cr"), "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}),
    ("RoleBinding", rbac, "role_binding", True, {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": meta("rb"), "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "role"}, "subjects": [{"kind": "User", "name": "u", "apiGroup": "rbac.authorization.k8s.io"}]}),
    ("ClusterRoleBinding", rbac, "cluster_role_binding", False, {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": meta("py-crb"), "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "py-cr"}}),
    ("Event", core, "event", True, {"apiVersion": "v1", "kind": "Event", "metadata": meta("ev"), "involvedObject": {"kind": "Pod", "name": "p", "namespace": NS}, "reason": "Tested", "message": "m", "type": "Normal"}),
    ("events.k8s.io/Event", events, "event", True, {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": meta("eev"), "eventTime": "2024-01-01T00:00:00.000000Z", "action": "Test", "reason": "Tested", "reportingController": "example.com/c", "reportingInstance": "i", "regarding": {"kind": "Pod", "name": "p", "namespace": NS}, "type": "Normal"}),
    ("ConfigMap", core, "config_map", True, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta("cm"), "data": {"k": "<v>"}}),
    ("Service", core, "service", True, {"apiVersion": "v1", "kind": "Service", "metadata": meta("svc"), "spec": {"ports": [{"port": 80}], "selector": {"app": "x"}}}),
    ("Pod", core, "pod", True, {"apiVersion": "v1", "kind": "Pod", "metadata": meta("pod"), "spec": pod_spec}),
]

for kind, group_api, suffix, namespaced, body in KINDS:
    name = body["metadata"]["name"]
    try:
        scope = "namespaced_" if namespaced else ""
        create = getattr(group_api, "create_" + scope + suffix)
        read = getattr(group_api, "read_" + scope + suffix)
        replace = getattr(group_api, "replace_" + scope + suffix)
        delete = getattr(group_api, "delete_" + scope + suffix)
        args = (NS,) if namespaced else ()
        created = create(*args, body)
        got = read(name, *args)
        got.metadata.labels = {"app": name, "replaced": "yes"}
        if kind == "events.k8s.io/Event":
            # the client writes datetimes with isoformat(), which kube's MicroTime rejects too
            got = api.sanitize_for_serialization(got)
            got["eventTime"] = body["eventTime"]
        replaced = replace(name, *args, got)
        delete(name, *args)
        out(kind, {"created": type(created).__name__, "replaced": replaced.metadata.labels.get("replaced")})
    except Exception as e:
        out(kind, {"error": type(e).__name__, "text": str(e)[-400:]})

# autoscaling/v2 (no API class in this client): the status Go writes for a new HPA.
hpa2 = raw("POST", "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers", {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": meta("hpa2"), "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "dep"}, "maxReplicas": 3}})
out("HorizontalPodAutoscaler.v2", {"status": hpa2["status"], "read": raw("GET", "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/hpa2")["status"]})

# create_from_yaml with a multi-document file, twice.
try:
    created = utils.create_from_yaml(api, sys.argv[2], namespace=NS)
    out("create_from_yaml", sorted(o.metadata.name for group in created for o in group))
except Exception as e:
    out("create_from_yaml", {"error": type(e).__name__, "text": str(e)[:500]})
try:
    utils.create_from_yaml(api, sys.argv[2], namespace=NS)
    out("create_from_yaml.again", None)
except utils.FailToCreateError as e:
    out("create_from_yaml.again", [{"status": x.status, "reason": json.loads(x.body)["reason"], "message": json.loads(x.body)["message"]} for x in e.api_exceptions])
`;

const MULTI_DOC = `apiVersion: v1
kind: ConfigMap
metadata:
  name: yaml-cm
data:
  a: "1"
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: yaml-ds
spec:
  selector:
    matchLabels: {app: yaml-ds}
  template:
    metadata:
      labels: {app: yaml-ds}
    spec:
      containers:
      - name: c
        image: nginx
---
apiVersion: v1
kind: ReplicationController
metadata:
  name: yaml-rc
spec:
  replicas: 0
  selector: {app: yaml-rc}
  template:
    metadata:
      labels: {app: yaml-rc}
    spec:
      containers:
      - name: c
        image: nginx
`;

const skip = pythonClientMissing('kubernetes.client, kubernetes.utils');

describe('the Python kubernetes client with typed built-in kinds', { skip }, () => {
  let server: TestServer;
  let work: string;

  before(async () => {
    work = tempDir('capstan-python-typed-');
    writeFileSync(join(work, 'typed_client.py'), SCRIPT);
    writeFileSync(join(work, 'multi.yaml'), MULTI_DOC);
    server = await startServer({ backend: 'memory' });
  });
  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
    if (work) removeDir(work);
  });

  it('creates, reads, replaces and deletes every kind without a deserialization error; create_from_yaml conflicts as kube', async () => {
    const steps = Object.fromEntries(await runPythonSteps(join(work, 'typed_client.py'), [server.kubeconfig, join(work, 'multi.yaml')], work));
    const typed = (model: string): unknown => ({ created: model, replaced: 'yes' });
    assert.deepEqual(steps, {
      DaemonSet: typed('V1DaemonSet'),
      ReplicationController: typed('V1ReplicationController'),
      StatefulSet: typed('V1StatefulSet'),
      Deployment: typed('V1Deployment'),
      Job: typed('V1Job'),
      CronJob: typed('V1CronJob'),
      HorizontalPodAutoscaler: typed('V1HorizontalPodAutoscaler'),
      // autoscaling/v2: desiredReplicas and currentMetrics have no omitempty; conditions and currentReplicas have it
      'HorizontalPodAutoscaler.v2': { status: { desiredReplicas: 0, currentMetrics: null }, read: { desiredReplicas: 0, currentMetrics: null } },
      PodDisruptionBudget: typed('V1PodDisruptionBudget'),
      Ingress: typed('V1Ingress'),
      NetworkPolicy: typed('V1NetworkPolicy'),
      Role: typed('V1Role'),
      ClusterRole: typed('V1ClusterRole'),
      RoleBinding: typed('V1RoleBinding'),
      ClusterRoleBinding: typed('V1ClusterRoleBinding'),
      Event: typed('CoreV1Event'),
      'events.k8s.io/Event': typed('EventsV1Event'),
      ConfigMap: typed('V1ConfigMap'),
      Service: typed('V1Service'),
      Pod: typed('V1Pod'),
      create_from_yaml: ['yaml-cm', 'yaml-ds', 'yaml-rc'],
      // kube's NewAlreadyExists: `<resource>[.<group>] "<name>" already exists`
      'create_from_yaml.again': [
        { status: 409, reason: 'AlreadyExists', message: 'configmaps "yaml-cm" already exists' },
        { status: 409, reason: 'AlreadyExists', message: 'daemonsets.apps "yaml-ds" already exists' },
        { status: 409, reason: 'AlreadyExists', message: 'replicationcontrollers "yaml-rc" already exists' },
      ],
    });
  });
});
