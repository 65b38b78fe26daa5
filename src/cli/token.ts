import { randomInt } from 'node:crypto';
import { request } from 'node:https';
import { resolve } from 'node:path';
import { FlagError, parseFlags, type FlagSpec } from '../server/flags.js';
import { readAdminKubeconfig } from './credential.js';

/**
 * `capstan token create|list|delete`: kubeadm's token commands for
 * operators. A token is a Secret `kube-system/bootstrap-token-<id>` of type
 * bootstrap.kubernetes.io/token; `create` prints the token
 * `<id>.<secret>`, `list` kubeadm's table, `delete` takes an id or a token.
 * They talk to the server with the admin kubeconfig's client certificate.
 */

export const TOKEN_FLAGS: FlagSpec[] = [
  { name: 'kubeconfig', type: 'string', default: '', help: 'The kubeconfig to talk to the server with (default <data-dir>/admin.kubeconfig).' },
  { name: 'data-dir', type: 'string', default: '.capstan', help: 'The data directory of the server (for the default admin kubeconfig).' },
  { name: 'ttl', type: 'duration', default: '24h', help: "The duration before the token is automatically deleted (e.g. 1s, 2m, 3h). If set to '0', the token will never expire" },
  { name: 'description', type: 'string', default: '', help: 'A human friendly description of how this token is used.' },
  { name: 'usages', type: 'stringList', default: 'signing,authentication', help: 'Describes the ways in which this token can be used. You can pass --usages multiple times or provide a comma separated list of options. Valid options: [signing,authentication]' },
  { name: 'groups', type: 'stringList', default: 'system:bootstrappers:kubeadm:default-node-token', help: 'Extra groups that this token will authenticate as when used for authentication. Must match "\\\\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\\\\z"' },
];

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const GROUP = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
const SECRETS = '/api/v1/namespaces/kube-system/secrets';

function randomString(n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

type Admin = ReturnType<typeof readAdminKubeconfig>;

function call(admin: Admin, method: string, path: string, body?: unknown): Promise<{ status: number; json: { message?: string; items?: unknown[] } & Record<string, unknown> }> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolveCall, reject) => {
    const req = request(new URL(path, admin.cluster.server), {
      method,
      cert: admin.cert,
      key: admin.key,
      ...(admin.cluster.caPem ? { ca: admin.cluster.caPem } : {}),
      headers: { Accept: 'application/json', 'User-Agent': 'capstan-token', ...(text ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        let json = {};
        try {
          json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as object;
        } catch {
          // Reported by the caller through the status.
        }
        resolveCall({ status: res.statusCode ?? 0, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(text);
  });
}

function decode(data: Record<string, string> | undefined, key: string): string {
  const v = data?.[key];
  return v ? Buffer.from(v, 'base64').toString('utf8') : '';
}

/** kubeadm's TTL column: a Go duration rounded to seconds, `<forever>` without expiry, `<invalid>` once past. */
function ttlColumn(expiration: string, now: number): string {
  if (!expiration) return '<forever>';
  const left = Math.round((Date.parse(expiration) - now) / 1000);
  if (!(left > 0)) return '<invalid>';
  const h = Math.floor(left / 3600);
  const m = Math.floor((left % 3600) / 60);
  const s = left % 60;
  return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${s}s`;
}

export async function tokenCommand(argv: string[], cwd: string): Promise<string> {
  const [sub, ...rest] = argv;
  const p = parseFlags(rest, TOKEN_FLAGS);
  const given = String(p.values.get('kubeconfig') ?? '');
  const admin = readAdminKubeconfig(given ? resolve(cwd, given) : resolve(cwd, String(p.values.get('data-dir')), 'admin.kubeconfig'));
  switch (sub) {
    case 'create': {
      const usages = p.values.get('usages') as string[];
      for (const u of usages) if (u !== 'signing' && u !== 'authentication') throw new FlagError(`unknown usage ${JSON.stringify(u)}`);
      const groups = (p.values.get('groups') as string[]).filter((g) => g !== '');
      for (const g of groups) if (!GROUP.test(g)) throw new FlagError(`${JSON.stringify(g)} (in auth-extra-groups) must match ${GROUP.source}`);
      const positional = p.args[0];
      let id: string;
      let secret: string;
      if (positional) {
        const m = TOKEN.exec(positional);
        if (!m) throw new FlagError(`the bootstrap token "${positional}" was not of the form "${TOKEN.source}"`);
        [id, secret] = [m[1]!, m[2]!];
      } else [id, secret] = [randomString(6), randomString(16)];
      const ttl = p.values.get('ttl') as number;
      const stringData: Record<string, string> = { 'token-id': id, 'token-secret': secret };
      if (ttl > 0) stringData.expiration = new Date(Date.now() + ttl).toISOString().replace(/\.\d+Z$/, 'Z');
      const description = String(p.values.get('description') ?? '');
      if (description) stringData.description = description;
      for (const u of usages) stringData[`usage-bootstrap-${u}`] = 'true';
      if (groups.length > 0) stringData['auth-extra-groups'] = groups.join(',');
      const res = await call(admin, 'POST', SECRETS, { apiVersion: 'v1', kind: 'Secret', metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' }, type: 'bootstrap.kubernetes.io/token', stringData });
      if (res.status !== 201) throw new Error(`failed to create bootstrap token with name "bootstrap-token-${id}": ${res.json.message ?? res.status}`);
      return `${id}.${secret}\n`;
    }
    case 'list': {
      const res = await call(admin, 'GET', `${SECRETS}?fieldSelector=type%3Dbootstrap.kubernetes.io%2Ftoken`);
      if (res.status !== 200) throw new Error(`failed to list bootstrap tokens: ${res.json.message ?? res.status}`);
      const rows = [['TOKEN', 'TTL', 'EXPIRES', 'USAGES', 'DESCRIPTION', 'EXTRA GROUPS']];
      for (const item of (res.json.items ?? []) as Array<{ data?: Record<string, string> }>) {
        const d = item.data;
        const id = decode(d, 'token-id');
        const expiration = decode(d, 'expiration');
        const usages = Object.keys(d ?? {}).filter((k) => k.startsWith('usage-bootstrap-') && decode(d, k) === 'true').map((k) => k.slice('usage-bootstrap-'.length)).sort();
        rows.push([`${id}.${decode(d, 'token-secret')}`, ttlColumn(expiration, Date.now()), expiration || '<never>', usages.join(',') || '<none>', decode(d, 'description') || '<none>', decode(d, 'auth-extra-groups') || '<none>']);
      }
      const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
      return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]! + 3))).join('')).map((l) => `${l}\n`).join('');
    }
    case 'delete': {
      if (p.args.length === 0) throw new FlagError('missing argument; \'token delete\' is missing a bootstrap token ID or a token');
      let out = '';
      for (const arg of p.args) {
        const id = TOKEN.exec(arg)?.[1] ?? (/^[a-z0-9]{6}$/.test(arg) ? arg : undefined);
        if (!id) throw new FlagError(`given token didn't match pattern "[a-z0-9]{6}" or "[a-z0-9]{6}\\.[a-z0-9]{16}"`);
        const res = await call(admin, 'DELETE', `${SECRETS}/bootstrap-token-${id}`);
        if (res.status !== 200) throw new Error(`failed to delete bootstrap token "${id}": ${res.json.message ?? res.status}`);
        out += `bootstrap token "${id}" deleted\n`;
      }
      return out;
    }
    default:
      throw new FlagError(`unknown command "${sub ?? ''}" for "capstan token" (create, list, delete)`);
  }
}
