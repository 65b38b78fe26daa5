import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { eventually, findKubectl, http, kubectl, kubectlMissing, removeDir, startServer, type TestServer } from '../helpers/server.js';

/**
 * A real kubectl session against the real server, once per storage backend:
 * discovery, explain, apply (client-side, twice), get in every output form,
 * describe, label, annotate, replace with a stale object, delete --wait,
 * get -w, and namespace deletion.
 */

const MANIFEST = `apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
data:
  color: blue
  size: large
---
apiVersion: v1
kind: Secret
metadata:
  name: creds
  namespace: shop
stringData:
  password: hunter2
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
spec:
  selector:
    app: web
  ports:
  - name: http
    port: 80
    targetPort: 8080
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: builder
  namespace: shop
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels:
    app: web
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - containerPort: 8080
`;

const skip = kubectlMissing();

for (const backend of ['memory', 'sqlite'] as const) {
  describe(`kubectl against capstan (${backend})`, { skip }, () => {
    let server: TestServer;
    const k = (args: string[], input?: string) => kubectl(server, args, input);
    const ok = async (args: string[], input?: string): Promise<string> => {
      const r = await k(args, input);
      assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed:\n${r.stderr}\n${r.stdout}`);
      return r.stdout;
    };

    before(async () => {
      server = await startServer({ backend });
    });
    after(async () => {
      await server?.stop();
      if (server) removeDir(server.dataDir);
    });

    it('lists the system namespaces', async () => {
      const out = await ok(['get', 'ns', '-o', 'name']);
      for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) assert.match(out, new RegExp(`namespace/${ns}\\n`));
      const table = await ok(['get', 'ns']);
      assert.match(table, /^NAME\s+STATUS\s+AGE/);
      assert.match(table, /\ndefault\s+Active\s+\d+s/);
    });

    it('api-resources shows names, short names and scope like kube-apiserver', async () => {
      const out = await ok(['api-resources']);
      const rows = out.split('\n').slice(1).filter(Boolean).map((l) => l.trim().split(/\s+/));
      const find = (name: string, apiVersion: string) => rows.find((r) => r[0] === name && r.includes(apiVersion));
      assert.deepEqual(find('pods', 'v1'), ['pods', 'po', 'v1', 'true', 'Pod']);
      assert.deepEqual(find('deployments', 'apps/v1'), ['deployments', 'deploy', 'apps/v1', 'true', 'Deployment']);
      assert.deepEqual(find('namespaces', 'v1'), ['namespaces', 'ns', 'v1', 'false', 'Namespace']);
      assert.deepEqual(find('customresourcedefinitions', 'apiextensions.k8s.io/v1'), ['customresourcedefinitions', 'crd,crds', 'apiextensions.k8s.io/v1', 'false', 'CustomResourceDefinition']);
      assert.deepEqual(find('configmaps', 'v1'), ['configmaps', 'cm', 'v1', 'true', 'ConfigMap']);
      assert.deepEqual(find('clusterroles', 'rbac.authorization.k8s.io/v1'), ['clusterroles', 'rbac.authorization.k8s.io/v1', 'false', 'ClusterRole']);
      const namespaced = await ok(['api-resources', '--namespaced=false', '-o', 'name']);
      assert.match(namespaced, /^nodes$/m);
      assert.doesNotMatch(namespaced, /^pods$/m);
    });

    it('api-versions lists stable group versions only', async () => {
      const out = await ok(['api-versions']);
      for (const gv of ['v1', 'apps/v1', 'batch/v1', 'rbac.authorization.k8s.io/v1', 'autoscaling/v2', 'coordination.k8s.io/v1']) assert.match(out, new RegExp(`^${gv.replace(/\./g, '\\.')}$`, 'm'));
      assert.doesNotMatch(out, /alpha|beta/);
    });

    it('explain reads the OpenAPI schema', async () => {
      const out = await ok(['explain', 'pods.spec.containers']);
      assert.match(out, /KIND:\s+Pod/);
      assert.match(out, /FIELD:\s+containers/);
      assert.match(out, /image\s+<string>/);
    });

    it('creates a namespace and applies a multi-document manifest', async () => {
      await ok(['create', 'ns', 'scratch']);
      const applied = await ok(['apply', '-f', '-'], MANIFEST);
      for (const line of ['namespace/shop created', 'configmap/settings created', 'secret/creds created', 'service/web created', 'serviceaccount/builder created', 'deployment.apps/web created']) {
        assert.match(applied, new RegExp(line.replace(/\./g, '\\.')));
      }
      const secret = JSON.parse(await ok(['get', 'secret', 'creds', '-n', 'shop', '-o', 'json']));
      assert.equal(Buffer.from(secret.data.password, 'base64').toString(), 'hunter2');
      assert.equal(secret.type, 'Opaque');
    });

    it('apply again after a change patches only what changed', async () => {
      const before = JSON.parse(await ok(['get', 'deploy', 'web', '-n', 'shop', '-o', 'json']));
      const changed = MANIFEST.replace('nginx:1.27', 'nginx:1.28').replace('color: blue', 'color: green');
      const out = await ok(['apply', '-f', '-'], changed);
      assert.match(out, /configmap\/settings configured/);
      assert.match(out, /deployment\.apps\/web configured/);
      assert.match(out, /service\/web unchanged/);
      const after = JSON.parse(await ok(['get', 'deploy', 'web', '-n', 'shop', '-o', 'json']));
      assert.equal(after.spec.template.spec.containers[0].image, 'nginx:1.28');
      assert.equal(after.spec.template.spec.containers.length, 1);
      assert.equal(after.metadata.generation, before.metadata.generation + 1);
      assert.ok(Number(after.metadata.resourceVersion) > Number(before.metadata.resourceVersion));
      const cm = await ok(['get', 'cm', 'settings', '-n', 'shop', '-o', 'jsonpath={.data.color}']);
      assert.equal(cm, 'green');
    });

    it('gets in yaml, json, wide and jsonpath', async () => {
      const yaml = await ok(['get', 'cm', 'settings', '-n', 'shop', '-o', 'yaml']);
      assert.match(yaml, /^apiVersion: v1\n/);
      assert.match(yaml, /kind: ConfigMap/);
      assert.match(yaml, /uid: [0-9a-f-]{36}/);
      assert.match(yaml, /creationTimestamp: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"/);
      const list = JSON.parse(await ok(['get', 'cm', '-n', 'shop', '-o', 'json']));
      assert.equal(list.kind, 'List');
      assert.deepEqual(list.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort(), ['kube-root-ca.crt', 'settings']);
      const wide = await ok(['get', 'ns', 'shop', '-o', 'wide']);
      assert.match(wide, /shop\s+Active/);
      const names = await ok(['get', 'sa', '-n', 'shop', '-o', 'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}']);
      assert.deepEqual(names.trim().split('\n').sort(), ['builder', 'default']);
    });

    it('describe shows the object', async () => {
      const out = await ok(['describe', 'cm', 'settings', '-n', 'shop']);
      assert.match(out, /Name:\s+settings/);
      assert.match(out, /Namespace:\s+shop/);
      assert.match(out, /color:\s*\n-+\ngreen/);
      const ns = await ok(['describe', 'ns', 'shop']);
      assert.match(ns, /Status:\s+Active/);
    });

    it('label and annotate', async () => {
      await ok(['label', 'cm', 'settings', '-n', 'shop', 'tier=backend']);
      await ok(['annotate', 'cm', 'settings', '-n', 'shop', 'owner=team-a']);
      const cm = JSON.parse(await ok(['get', 'cm', 'settings', '-n', 'shop', '-o', 'json']));
      assert.equal(cm.metadata.labels.tier, 'backend');
      assert.equal(cm.metadata.annotations.owner, 'team-a');
      const selected = await ok(['get', 'cm', '-n', 'shop', '-l', 'tier=backend', '-o', 'name']);
      assert.equal(selected.trim(), 'configmap/settings');
      const bad = await k(['label', 'cm', 'settings', '-n', 'shop', 'bad key=x']);
      assert.notEqual(bad.code, 0);
    });

    it('get -o wide prints kube-apiserver\'s columns for the common types', async () => {
      await ok(['run', 'nginx', '--image=nginx', '-n', 'shop']);
      await ok(['create', 'job', 'j', '--image=busybox', '-n', 'shop']);
      await ok(['create', 'cronjob', 'cj', '--image=busybox', '--schedule=*/5 * * * *', '-n', 'shop']);
      await ok(['create', 'role', 'r', '--verb=get', '--resource=pods', '-n', 'shop']);
      await ok(['create', 'rolebinding', 'rb', '--role=r', '--user=jane', '-n', 'shop']);
      await ok(['create', 'ingress', 'ing', '--rule=a.com/=web:80', '-n', 'shop']);
      const header = async (type: string): Promise<string[]> => (await ok(['get', type, '-n', 'shop', '-o', 'wide'])).split('\n')[0]!.trim().split(/\s{2,}/);
      assert.deepEqual(await header('pods'), ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES']);
      assert.deepEqual(await header('deployments'), ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
      assert.deepEqual(await header('services'), ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE', 'SELECTOR']);
      assert.deepEqual(await header('configmaps'), ['NAME', 'DATA', 'AGE']);
      assert.deepEqual(await header('secrets'), ['NAME', 'TYPE', 'DATA', 'AGE']);
      assert.deepEqual(await header('jobs'), ['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
      assert.deepEqual(await header('cronjobs'), ['NAME', 'SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST SCHEDULE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
      assert.deepEqual(await header('roles'), ['NAME', 'CREATED AT']);
      assert.deepEqual(await header('rolebindings'), ['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS']);
      assert.deepEqual(await header('ingresses'), ['NAME', 'CLASS', 'HOSTS', 'ADDRESS', 'PORTS', 'AGE']);
      const pod = (await ok(['get', 'pods', 'nginx', '-n', 'shop', '-o', 'wide'])).split('\n')[1]!.trim().split(/\s+/);
      assert.deepEqual([pod[0], pod[1], pod[2], pod[3]], ['nginx', '0/1', 'Pending', '0']);
      const rb = (await ok(['get', 'rolebindings', 'rb', '-n', 'shop', '-o', 'wide'])).split('\n')[1]!;
      assert.match(rb, /^rb\s+Role\/r\s+\d+s\s+jane\s*$/);
    });

    it('replace with a stale object is a Conflict', async () => {
      const stale = await ok(['get', 'cm', 'settings', '-n', 'shop', '-o', 'json']);
      await ok(['label', 'cm', 'settings', '-n', 'shop', 'bump=1']);
      const r = await k(['replace', '-f', '-'], stale);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /Operation cannot be fulfilled on configmaps "settings": the object has been modified; please apply your changes to the latest version and try again/);
      const fresh = await ok(['get', 'cm', 'settings', '-n', 'shop', '-o', 'json']);
      const out = await ok(['replace', '-f', '-'], fresh.replace('"green"', '"red"'));
      assert.match(out, /configmap\/settings replaced/);
    });

    it('get -w sees a change made meanwhile', async () => {
      const bin = findKubectl()!;
      const watcher = spawn(bin, ['--kubeconfig', server.kubeconfig, 'get', 'cm', '-n', 'shop', '-w', '-o', 'name'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let seen = '';
      watcher.stdout.on('data', (d: Buffer) => (seen += d.toString()));
      try {
        await eventually(async () => seen.includes('configmap/settings'));
        await ok(['create', 'cm', 'fresh', '-n', 'shop', '--from-literal=a=b']);
        await eventually(async () => seen.includes('configmap/fresh'));
      } finally {
        watcher.kill();
      }
    });

    it('delete --wait returns once the object is gone', async () => {
      const out = await ok(['delete', 'cm', 'fresh', '-n', 'shop', '--wait=true', '--timeout=20s']);
      assert.match(out, /configmap "fresh" deleted/);
      const r = await k(['get', 'cm', 'fresh', '-n', 'shop']);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /configmaps "fresh" not found/);
    });

    it('namespace deletion empties the namespace', async () => {
      const out = await ok(['delete', 'ns', 'shop', '--wait=true', '--timeout=60s']);
      assert.match(out, /namespace "shop" deleted/);
      const r = await k(['get', 'ns', 'shop']);
      assert.match(r.stderr, /namespaces "shop" not found/);
      for (const path of ['/api/v1/namespaces/shop/configmaps', '/apis/apps/v1/namespaces/shop/deployments', '/api/v1/namespaces/shop/secrets', '/api/v1/namespaces/shop/serviceaccounts']) {
        const res = await http(server, 'GET', path);
        assert.equal(res.status, 200);
        assert.deepEqual(res.json.items, [], path);
      }
    });

    it('auth whoami and can-i answer from the authenticator and authorizer', async () => {
      const who = await ok(['auth', 'whoami', '-o', 'json']);
      const review = JSON.parse(who);
      assert.equal(review.kind, 'SelfSubjectReview');
      assert.equal(review.status.userInfo.username, 'capstan-admin');
      assert.deepEqual(review.status.userInfo.groups, ['system:masters', 'system:authenticated']);
      assert.equal((await ok(['auth', 'can-i', 'create', 'pods', '-n', 'default'])).trim(), 'yes');
      const rules = await ok(['auth', 'can-i', '--list']);
      assert.match(rules, /\*\.\*\s+\[\]\s+\[\]\s+\[\*\]/);
      const as = await k(['auth', 'can-i', 'get', 'pods', '--as=someone']);
      // Impersonation is built: "someone" is in system:authenticated, which the interim authorizer allows.
      assert.equal(as.code, 0, as.stderr);
      assert.equal(as.stdout.trim(), 'yes');
    });

    it('refuses to delete a system namespace', async () => {
      const r = await k(['delete', 'ns', 'kube-system']);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /namespaces "kube-system" is forbidden: this namespace may not be deleted/);
    });
  });
}
