import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { dirname, resolve } from 'node:path';
import { load } from 'js-yaml';
import { FlagError, parseFlags, type FlagSpec } from '../server/flags.js';
import { toYaml } from '../codec/codec.js';
import { serviceAccountUsername } from '../authn/service-account-token.js';

/**
 * The client credential plugin (`capstan credential`) and the kubeconfig
 * that uses it (`capstan kubeconfig --service-account ns/name`): kubectl
 * runs the plugin, which asks the server for a short-lived token of the
 * ServiceAccount (TokenRequest, authenticated with the admin kubeconfig's
 * client certificate) and prints it as an ExecCredential with its
 * expirationTimestamp; kubectl keeps it until then (or until a 401).
 */

const EXEC_API_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];

export const CREDENTIAL_FLAGS: FlagSpec[] = [
  { name: 'kubeconfig', type: 'string', default: '', help: 'The kubeconfig whose credentials may request tokens (default <data-dir>/admin.kubeconfig).' },
  { name: 'data-dir', type: 'string', default: '.capstan', help: 'The data directory of the server (for the default admin kubeconfig).' },
  { name: 'service-account', type: 'string', default: '', help: 'The ServiceAccount as namespace/name.' },
  { name: 'duration', type: 'duration', default: '1h', help: 'The requested lifetime of each token (at least 10m).' },
  { name: 'audience', type: 'stringArray', default: '', help: 'Audience of the requested token (repeatable; default: the server\'s API audiences).' },
];

export const KUBECONFIG_FLAGS: FlagSpec[] = [...CREDENTIAL_FLAGS, { name: 'output', type: 'string', default: '', help: 'Where to write the kubeconfig (default: standard output).' }];

interface Cluster {
  server: string;
  caPem?: string;
}

interface AdminCredentials {
  cluster: Cluster;
  clusterName: string;
  cert: string;
  key: string;
}

type KubeconfigDoc = {
  clusters?: Array<{ name?: string; cluster?: Record<string, string> }>;
  users?: Array<{ name?: string; user?: Record<string, string> }>;
  contexts?: Array<{ name?: string; context?: { cluster?: string; user?: string } }>;
  'current-context'?: string;
};

/** The current context's cluster and client certificate from a kubeconfig (file references resolve against its directory). */
export function readAdminKubeconfig(path: string): AdminCredentials {
  const doc = (load(readFileSync(path, 'utf8')) ?? {}) as KubeconfigDoc;
  const ctx = doc.contexts?.find((c) => c.name === doc['current-context'])?.context ?? doc.contexts?.[0]?.context;
  const clusterEntry = doc.clusters?.find((c) => c.name === ctx?.cluster) ?? doc.clusters?.[0];
  const user = (doc.users?.find((u) => u.name === ctx?.user) ?? doc.users?.[0])?.user ?? {};
  const c = clusterEntry?.cluster ?? {};
  const dir = dirname(path);
  const inline = (data: string | undefined, file: string | undefined): string | undefined =>
    data ? Buffer.from(data, 'base64').toString('utf8') : file ? readFileSync(resolve(dir, file), 'utf8') : undefined;
  const server = c.server;
  if (!server) throw new Error(`${path}: no cluster server`);
  const cert = inline(user['client-certificate-data'], user['client-certificate']);
  const key = inline(user['client-key-data'], user['client-key']);
  if (!cert || !key) throw new Error(`${path}: the user has no client certificate`);
  const caPem = inline(c['certificate-authority-data'], c['certificate-authority']);
  return { cluster: { server, ...(caPem ? { caPem } : {}) }, clusterName: clusterEntry?.name ?? 'capstan', cert, key };
}

function serviceAccountRef(value: string): { namespace: string; name: string } {
  const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(value);
  if (!m) throw new FlagError(`--service-account must be namespace/name, got "${value}"`);
  return { namespace: m[1]!, name: m[3]! };
}

/** POST a TokenRequest; the token and its expiry. */
async function requestToken(admin: AdminCredentials, cluster: Cluster, sa: { namespace: string; name: string }, seconds: number, audiences: string[]): Promise<{ token: string; expirationTimestamp: string }> {
  const body = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: seconds, ...(audiences.length > 0 ? { audiences } : {}) } });
  const url = new URL(`/api/v1/namespaces/${encodeURIComponent(sa.namespace)}/serviceaccounts/${encodeURIComponent(sa.name)}/token`, cluster.server);
  const answer = await new Promise<{ status: number; text: string }>((resolveAnswer, reject) => {
    const req = request(url, { method: 'POST', cert: admin.cert, key: admin.key, ...(cluster.caPem ? { ca: cluster.caPem } : {}), headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), 'User-Agent': 'capstan-credential' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolveAnswer({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
  let parsed: { message?: string; status?: { token?: string; expirationTimestamp?: string } } = {};
  try {
    parsed = JSON.parse(answer.text) as typeof parsed;
  } catch {
    // Not JSON: reported below with the status code.
  }
  if (answer.status !== 201 || !parsed.status?.token || !parsed.status.expirationTimestamp) {
    throw new Error(`token request for ${sa.namespace}/${sa.name} failed (${answer.status}): ${parsed.message ?? answer.text.slice(0, 200)}`);
  }
  return { token: parsed.status.token, expirationTimestamp: parsed.status.expirationTimestamp };
}

function adminPath(values: Map<string, unknown>, cwd: string): string {
  const given = String(values.get('kubeconfig') ?? '');
  return given ? resolve(cwd, given) : resolve(cwd, String(values.get('data-dir') ?? '.capstan'), 'admin.kubeconfig');
}

/** `capstan credential`: prints an ExecCredential of the version kubectl asked for (KUBERNETES_EXEC_INFO). */
export async function credentialCommand(argv: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<string> {
  const p = parseFlags(argv, CREDENTIAL_FLAGS);
  const sa = serviceAccountRef(String(p.values.get('service-account') ?? ''));
  const info = env.KUBERNETES_EXEC_INFO ? (JSON.parse(env.KUBERNETES_EXEC_INFO) as { apiVersion?: string; spec?: { interactive?: boolean; cluster?: { server?: string; 'certificate-authority-data'?: string } } }) : {};
  const apiVersion = info.apiVersion ?? EXEC_API_VERSIONS[0]!;
  if (!EXEC_API_VERSIONS.includes(apiVersion)) throw new Error(`unsupported ExecCredential version ${apiVersion}; supported: ${EXEC_API_VERSIONS.join(', ')}`);
  const admin = readAdminKubeconfig(adminPath(p.values, cwd));
  // provideClusterInfo: kubectl says which cluster it talks to; the token is requested there.
  const given = info.spec?.cluster;
  const cluster: Cluster = given?.server
    ? { server: given.server, ...(given['certificate-authority-data'] ? { caPem: Buffer.from(given['certificate-authority-data'], 'base64').toString('utf8') } : admin.cluster.caPem ? { caPem: admin.cluster.caPem } : {}) }
    : admin.cluster;
  const seconds = Math.floor((p.values.get('duration') as number) / 1000);
  const { token, expirationTimestamp } = await requestToken(admin, cluster, sa, seconds, p.values.get('audience') as string[]);
  // Nothing here reads standard input, so interactive or not, the answer is the same.
  return `${JSON.stringify({ kind: 'ExecCredential', apiVersion, spec: { interactive: info.spec?.interactive ?? false }, status: { expirationTimestamp, token } })}\n`;
}

/** `capstan kubeconfig --service-account ns/name`: a kubeconfig whose user runs `capstan credential`. */
export function kubeconfigCommand(argv: string[], cwd: string, self: { node: string; main: string }): { text: string; output: string } {
  const p = parseFlags(argv, KUBECONFIG_FLAGS);
  const value = String(p.values.get('service-account') ?? '');
  if (value === '') throw new FlagError('--service-account is required');
  const sa = serviceAccountRef(value);
  const admin = adminPath(p.values, cwd);
  const creds = readAdminKubeconfig(admin);
  const args = [self.main, 'credential', '--kubeconfig', admin, '--service-account', value, '--duration', `${Math.floor((p.values.get('duration') as number) / 1000)}s`];
  for (const a of p.values.get('audience') as string[]) args.push('--audience', a);
  const userName = serviceAccountUsername(sa.namespace, sa.name);
  const contextName = `${creds.clusterName}-${sa.namespace}-${sa.name}`;
  const cluster: Record<string, string> = { server: creds.cluster.server };
  if (creds.cluster.caPem) cluster['certificate-authority-data'] = Buffer.from(creds.cluster.caPem).toString('base64');
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: creds.clusterName, cluster }],
    users: [{ name: userName, user: { exec: { apiVersion: EXEC_API_VERSIONS[0], command: self.node, args, interactiveMode: 'Never', provideClusterInfo: false } } }],
    contexts: [{ name: contextName, context: { cluster: creds.clusterName, user: userName, namespace: sa.namespace } }],
    'current-context': contextName,
    preferences: {},
  };
  const output = String(p.values.get('output') ?? '');
  return { text: toYaml(doc), output: output ? resolve(cwd, output) : '' };
}
