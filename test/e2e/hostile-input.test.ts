import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { IncomingMessage } from 'node:http';
import { connect, type TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { load } from 'js-yaml';

import type { AuthenticationResult, Authenticator } from '../../src/authn/authenticator.js';
import type { AuthorizationDecision, Authorizer } from '../../src/authz/authorizer.js';
import { ApiServer } from '../../src/server/apiserver.js';
import type { ServerConfig } from '../../src/server/config.js';
import { http, inProcessClient } from '../helpers/server.js';

/**
 * Issue 10: what a hostile client sent, each answered as kube-apiserver
 * answers it, and none of it stopping, stalling or exhausting the server.
 */

interface Client {
  url: string;
  creds: { ca: string; cert: string; key: string };
}

const client = (server: ApiServer): Client => inProcessClient(server);

const configMap = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, ...extra });
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

/** kube's transformDecodeError for a ConfigMap body whose kind could not be read (apiserver handlers/rest.go). */
const UNRECOGNIZED = 'the object provided is unrecognized (must be of type ConfigMap):';
/** summarizeData: the first 30 bytes of a body not starting with '{', in hex. */
const hexOf = (body: string): string => Buffer.from(body).subarray(0, 30).toString('hex');

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One TLS connection driven by hand: raw request bytes in, HTTP/1.1
 * responses out in the order they arrive (Content-Length or chunked bodies).
 */
class RawConnection {
  private buffer = Buffer.alloc(0);
  private readonly responses: RawResponse[] = [];
  private waiters: Array<() => void> = [];
  closed = false;
  readonly socket: TLSSocket;

  constructor(c: Client) {
    const u = new URL(c.url);
    this.socket = connect({ host: u.hostname, port: Number(u.port), ca: c.creds.ca, cert: c.creds.cert, key: c.creds.key, servername: 'localhost' });
    this.socket.on('data', (d: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, d]);
      this.parse();
    });
    this.socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    this.socket.on('error', () => undefined);
  }

  ready(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket.once('secureConnect', resolve);
      this.socket.once('error', reject);
    });
  }

  /** Resolves once the socket takes more, or is closed (writes to a closed socket go nowhere). */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed || this.socket.write(data)) {
        resolve();
        return;
      }
      const done = (): void => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.once('drain', done);
      this.socket.once('close', done);
    });
  }

  /** The next response; undefined when the connection closed first. */
  async next(): Promise<RawResponse | undefined> {
    while (this.responses.length === 0 && !this.closed) await new Promise<void>((r) => this.waiters.push(r));
    return this.responses.shift();
  }

  /** Resolves once the server has closed the connection. */
  async whenClosed(): Promise<void> {
    while (!this.closed) await new Promise<void>((r) => this.waiters.push(r));
  }

  destroy(): void {
    this.socket.destroy();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  private parse(): void {
    for (;;) {
      const headEnd = this.buffer.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = this.buffer.subarray(0, headEnd).toString('latin1').split('\r\n');
      const status = Number(head[0]!.split(' ')[1]);
      const headers: Record<string, string> = {};
      for (const line of head.slice(1)) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      let rest = this.buffer.subarray(headEnd + 4);
      let body: Buffer;
      if (headers['transfer-encoding'] === 'chunked') {
        const parts: Buffer[] = [];
        let pos = 0;
        for (;;) {
          const lineEnd = rest.indexOf('\r\n', pos);
          if (lineEnd < 0) return;
          const size = parseInt(rest.subarray(pos, lineEnd).toString('latin1'), 16);
          if (rest.length < lineEnd + 2 + size + 2) return;
          if (size === 0) {
            pos = lineEnd + 4;
            break;
          }
          parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
          pos = lineEnd + 2 + size + 2;
        }
        body = Buffer.concat(parts);
        rest = rest.subarray(pos);
      } else {
        const length = Number(headers['content-length'] ?? 0);
        if (rest.length < length) return;
        body = rest.subarray(0, length);
        rest = rest.subarray(length);
      }
      this.buffer = rest;
      this.responses.push({ status, headers, body: body.toString('utf8') });
      this.wake();
    }
  }
}

function requestHead(method: string, path: string, headers: Record<string, string> = {}): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: localhost', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

async function startServer(config: Partial<ServerConfig> = {}, extra: Partial<ConstructorParameters<typeof ApiServer>[0]> = {}): Promise<ApiServer> {
  const server = new ApiServer({ config, ...extra });
  await server.start();
  return server;
}

/** A regression shows as a failure, never as a suite that hangs. */
const BOUNDED = { timeout: 120_000 };

describe('hostile input (issue 10)', BOUNDED, () => {
  let server: ApiServer;
  let c: Client;

  before(async () => {
    server = await startServer();
    c = client(server);
  });
  after(async () => {
    await server?.stop();
  });

  it('answers an error that repeats a 2.5 MB apiVersion in YAML, and keeps serving (was: the process exited)', async () => {
    const res = await http(c, 'POST', CONFIGMAPS, { body: { ...configMap('big-api-version'), apiVersion: 'a'.repeat(2.5e6) }, headers: { Accept: 'application/yaml' } });
    assert.equal(res.status, 400);
    const status = load(res.text) as { kind: string; reason: string; code: number; message: string };
    assert.equal(status.kind, 'Status');
    assert.equal(status.reason, 'BadRequest');
    assert.equal(status.code, 400);
    assert.equal((await http(c, 'GET', '/version')).status, 200);
  });

  it('serves YAML lists holding a Role whose name is 2.9 MB (was: every YAML list of roles answered 500)', async () => {
    const name = 'r'.repeat(2.9e6);
    const roles = '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles';
    const created = await http(c, 'POST', roles, { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name } } });
    assert.equal(created.status, 201);
    const list = await http(c, 'GET', roles, { headers: { Accept: 'application/yaml' } });
    assert.equal(list.status, 200);
    const doc = load(list.text) as { items: Array<{ metadata: { name: string } }> };
    assert.equal(doc.items.length, 1);
    assert.equal(doc.items[0]!.metadata.name, name);
  });

  it('echoes a huge invalid value whole, as often as kube does, and omits it where kube does (TooLong): a 422 is bounded by the 3 MiB body', async () => {
    // apimachinery's field.Error.ErrorBody quotes an Invalid value whole (no truncation); TooLong never shows
    // it. errors.NewInvalid repeats it in the message, the cause and details.name: at most a few times the body.
    const name = 'n'.repeat(2.5e6);
    const tooLongName = await http(c, 'POST', CONFIGMAPS, { body: { ...configMap('x'), metadata: { name } } });
    assert.equal(tooLongName.status, 422);
    const body = `Invalid value: "${name}": must be no more than 253 characters`;
    assert.equal(tooLongName.json.message, `ConfigMap "${name}" is invalid: metadata.name: ${body}`);
    assert.deepEqual(tooLongName.json.details, { name, kind: 'ConfigMap', causes: [{ reason: 'FieldValueInvalid', message: body, field: 'metadata.name' }] });
    assert.ok(tooLongName.text.length < 4 * name.length + 1024, `${tooLongName.text.length} bytes`);
    const annotations = await http(c, 'POST', CONFIGMAPS, { body: { ...configMap('x'), metadata: { name: 'x', annotations: { a: name } } } });
    assert.equal(annotations.status, 422);
    assert.equal(annotations.json.message, 'ConfigMap "x" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes');
    assert.ok(annotations.text.length < 1024, `${annotations.text.length} bytes`);
  });

  it('decodes a null list item into its zero value as Go does: a Service with `ports: [null]` is 422 for port 0 and the targetPort defaulted from it', async () => {
    const res = await http(c, 'POST', '/api/v1/namespaces/default/services', { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'null-port' }, spec: { ports: [null] } } });
    assert.equal(res.status, 422, res.text);
    const range = 'Invalid value: 0: must be between 1 and 65535, inclusive';
    assert.equal(res.json.message, `Service "null-port" is invalid: [spec.ports[0].port: ${range}, spec.ports[0].targetPort: ${range}]`);
  });

  describe('YAML bodies are bounded as sigs.k8s.io/yaml bounds them', () => {
    const postYaml = (yaml: string) => http(c, 'POST', CONFIGMAPS, { body: yaml, headers: { 'Content-Type': 'application/yaml' } });

    it('refuses a billion-laughs document: 400 "document contains excessive aliasing"', async () => {
      let doc = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: laughs}\nanchors:\n  a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
      for (let i = 1; i < 9; i++) doc += `  a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(',')}]\n`;
      const res = await postYaml(doc);
      assert.equal(res.status, 400);
      assert.equal(res.json.reason, 'BadRequest');
      assert.equal(res.json.message, `${UNRECOGNIZED} error converting YAML to JSON: yaml: document contains excessive aliasing (${hexOf(doc)} ...)`);
    });

    it('refuses an anchor that contains itself: 400 "anchor \'m\' value contains itself"', async () => {
      const doc = 'apiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: t, self: *m}\n';
      const res = await postYaml(doc);
      assert.equal(res.status, 400);
      assert.equal(res.json.reason, 'BadRequest');
      assert.equal(res.json.message, `${UNRECOGNIZED} error converting YAML to JSON: yaml: anchor 'm' value contains itself (${hexOf(doc)} ...)`);
    });

    it('refuses !!float .nan: 400 "json: unsupported value: NaN"', async () => {
      const doc = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: nan}\ndata: {a: !!float .nan}\n';
      const res = await postYaml(doc);
      assert.equal(res.status, 400);
      assert.equal(res.json.reason, 'BadRequest');
      assert.equal(res.json.message, `${UNRECOGNIZED} error converting YAML to JSON: json: unsupported value: NaN (${hexOf(doc)} ...)`);
    });

    it('quotes only the first 30 bytes of a body it cannot read, as kube\'s summarizeData does (not its megabytes)', async () => {
      const yaml = `kind: ConfigMap\nmetadata: {name: ${'n'.repeat(2.5e6)}\n`;
      const res = await postYaml(yaml);
      assert.equal(res.status, 400);
      assert.equal(res.json.reason, 'BadRequest');
      assert.match(res.json.message, /^the object provided is unrecognized \(must be of type ConfigMap\): error converting YAML to JSON: /);
      assert.ok(res.json.message.endsWith(' (6b696e643a20436f6e6669674d61700a6d657461646174613a207b6e616d ...)'), res.json.message.slice(-120));
      assert.ok(res.text.length < 1000, `${res.text.length} bytes`);
      const json = await http(c, 'POST', CONFIGMAPS, { body: `{"kind":"ConfigMap","metadata":{"name":"${'n'.repeat(2.5e6)}"` });
      assert.equal(json.status, 400);
      assert.equal(json.json.message, `${UNRECOGNIZED} couldn't get version/kind; json parse error: unexpected end of JSON input ({"kind":"ConfigMap","metadata" ...)`);
      // JSON that is not an object fails meta.Interpret's read of the kind; an empty body too.
      const TYPE_META = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';
      const number = await http(c, 'POST', CONFIGMAPS, { body: '42' });
      assert.equal(number.status, 400);
      assert.equal(number.json.message, `${UNRECOGNIZED} couldn't get version/kind; json parse error: json: cannot unmarshal number into Go value of type ${TYPE_META} (3432)`);
      const list = await http(c, 'PUT', `${CONFIGMAPS}/x`, { body: '[1]', headers: { 'Content-Type': 'application/yaml' } });
      assert.equal(list.json.message, `${UNRECOGNIZED} couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type ${TYPE_META} (5b315d)`);
      const empty = await http(c, 'POST', CONFIGMAPS, { body: '' });
      assert.equal(empty.json.message, `${UNRECOGNIZED} couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)`);
    });

    it('still expands ordinary aliases', async () => {
      const res = await postYaml('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: aliased, labels: &l {a: b}, annotations: *l}\n');
      assert.equal(res.status, 201);
      assert.deepEqual(res.json.metadata.annotations, { a: 'b' });
    });
  });

  describe('nesting depth is checked once, at decode', () => {
    it('refuses deep JSON with Go\'s "exceeded max depth" as a 400 (was: 500 "Maximum call stack size exceeded")', async () => {
      // Built as text: JSON.stringify itself cannot nest this deep.
      const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep-json"},"spec":${'{"n":'.repeat(20000)}"x"${'}'.repeat(20000)}}`;
      const res = await http(c, 'POST', CONFIGMAPS, { body });
      assert.equal(res.status, 400);
      assert.equal(res.json.reason, 'BadRequest');
      assert.equal(res.json.message, `${UNRECOGNIZED} couldn't get version/kind; json parse error: invalid character '{' exceeded max depth ({"apiVersion":"v1","kind":"Con ...)`);
    });

    it('refuses deep YAML as a 400 "exceeded max depth"', async () => {
      const yaml = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep-yaml}\nspec: ${'['.repeat(10001)}${']'.repeat(10001)}\n`;
      const res = await http(c, 'POST', CONFIGMAPS, { body: yaml, headers: { 'Content-Type': 'application/yaml' } });
      assert.equal(res.status, 400);
      assert.equal(res.json.message, `${UNRECOGNIZED} error converting YAML to JSON: yaml: line 4: exceeded max depth of 10000 (${hexOf(yaml)} ...)`);
    });

    it('refuses protobuf envelopes nested in RawExtensions past the decoder\'s bound with a 400 (was: 500 "Maximum call stack size exceeded")', async () => {
      const varint = (n: number): Buffer => {
        const out: number[] = [];
        for (; n > 127; n >>>= 7) out.push((n & 127) | 128);
        out.push(n);
        return Buffer.from(out);
      };
      const field = (num: number, bytes: Buffer): Buffer => Buffer.concat([varint((num << 3) | 2), varint(bytes.length), bytes]);
      const typeMeta = Buffer.concat([field(1, Buffer.from('apps/v1')), field(2, Buffer.from('ControllerRevision'))]);
      let data: Buffer = Buffer.from('{}');
      for (let i = 0; i < 2000; i++) {
        const revision = Buffer.concat([field(1, field(1, Buffer.from('deep-envelopes'))), field(2, field(1, data))]);
        data = Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), field(1, typeMeta), field(2, revision)]);
      }
      const post = (body: Buffer) => http(c, 'POST', '/apis/apps/v1/namespaces/default/controllerrevisions', { body, headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' } });
      const res = await post(data);
      assert.equal(res.status, 400);
      assert.equal(res.json.reason, 'BadRequest');
      // The envelope named its kind: kube's transformDecodeError says it "cannot be handled".
      assert.equal(res.json.message, 'ControllerRevision in version "v1" cannot be handled as a ControllerRevision: exceeded maximum recursion depth');
      // An envelope it cannot read is "unrecognized", quoted by its first 30 bytes in hex.
      const garbage = await post(Buffer.from('not an envelope at all, but long enough'));
      assert.equal(garbage.status, 400);
      assert.equal(
        garbage.json.message,
        'the object provided is unrecognized (must be of type ControllerRevision): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (6e6f7420616e20656e76656c6f706520617420616c6c2c20627574206c6f ...)',
      );
      assert.equal((await http(c, 'GET', '/version')).status, 200);
    });

    it('stores and serves a free-form field nested to the limit in every encoding (ControllerRevision data)', async () => {
      const path = '/apis/apps/v1/namespaces/default/controllerrevisions';
      const data = `${'{"n":'.repeat(9999)}"x"${'}'.repeat(9999)}`;
      const body = `{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"deep-data"},"revision":1,"data":${data}}`;
      assert.equal((await http(c, 'POST', `${path}?fieldValidation=Strict`, { body })).status, 201);
      for (const accept of ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']) {
        assert.equal((await http(c, 'GET', `${path}/deep-data`, { headers: { Accept: accept } })).status, 200, accept);
      }
      const applied = await http(c, 'PATCH', `${path}/deep-data?fieldManager=hostile&force=true`, { body, headers: { 'Content-Type': 'application/apply-patch+yaml' } });
      assert.equal(applied.status, 200);
    });

    it('takes a body exactly at the limit through field validation (strict: 400 unknown field; ignore: pruned, 201)', async () => {
      // Built as text: JSON.stringify itself cannot nest this deep.
      const atLimit = JSON.stringify(configMap('at-limit')).replace(/}$/, `,"spec":${'{"n":'.repeat(9999)}"x"${'}'.repeat(9999)}}`);
      const strict = await http(c, 'POST', `${CONFIGMAPS}?fieldValidation=Strict`, { body: atLimit });
      assert.equal(strict.status, 400);
      assert.equal(strict.json.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec"');
      const ignored = await http(c, 'POST', `${CONFIGMAPS}?fieldValidation=Ignore`, { body: atLimit });
      assert.equal(ignored.status, 201);
      assert.equal(ignored.json.spec, undefined);
    });
  });

  describe('the connection layer', () => {
    it('closes a keep-alive connection cleanly after a 413 for a chunked body over 3 MiB (was: the next request hung)', async () => {
      const conn = new RawConnection(c);
      await conn.ready();
      try {
        await conn.write(requestHead('POST', CONFIGMAPS, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }));
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
        // Sends until the server answers: at most 4 MiB.
        const answered = conn.next();
        for (let sent = 0; sent < 4 * 1024 * 1024 && !conn.closed; sent += chunk.length) await conn.write(frame);
        const res = await answered;
        assert.ok(res, 'a response before the connection closed');
        assert.equal(res.status, 413);
        assert.equal(res.headers['connection'], 'close');
        const status = JSON.parse(res.body);
        assert.equal(status.reason, 'RequestEntityTooLarge');
        assert.equal(status.message, 'Request entity too large: limit is 3145728');
        await conn.whenClosed();
      } finally {
        conn.destroy();
      }
      assert.equal((await http(c, 'GET', '/version')).status, 200);
    });

    it('answers a DELETE before the 400 for the unframed bytes after it, then closes (was: the 400 overtook the 200)', async () => {
      assert.equal((await http(c, 'POST', CONFIGMAPS, { body: configMap('delete-me') })).status, 201);
      const conn = new RawConnection(c);
      await conn.ready();
      try {
        // No Content-Length and no chunking: the body is read as the next request, which is not one.
        await conn.write(requestHead('DELETE', `${CONFIGMAPS}/delete-me`) + '{"kind":"DeleteOptions","apiVersion":"v1"}');
        const first = await conn.next();
        assert.equal(first?.status, 200);
        assert.equal(JSON.parse(first.body).details.name, 'delete-me');
        const second = await conn.next();
        assert.equal(second?.status, 400);
        assert.equal(second.headers['connection'], 'close');
        await conn.whenClosed();
      } finally {
        conn.destroy();
      }
      assert.equal((await http(c, 'GET', `${CONFIGMAPS}/delete-me`)).status, 404);
    });

    it('ends a body trickled past --request-timeout with 504 Timeout and closes the connection (was: held forever)', async () => {
      const quick = await startServer({ requestTimeout: 1000 });
      const conn = new RawConnection(client(quick));
      await conn.ready();
      try {
        await conn.write(requestHead('POST', CONFIGMAPS, { 'Content-Type': 'application/json', 'Content-Length': '1000' }));
        await conn.write('{');
        // The server answers on its own once the body is overdue; each byte keeps coming until then.
        const answered = conn.next();
        let answer: RawResponse | undefined;
        void answered.then((r) => (answer = r));
        while (answer === undefined && !conn.closed) {
          await new Promise((r) => setTimeout(r, 200));
          if (!conn.closed) await conn.write(' ');
        }
        const res = await answered;
        assert.equal(res?.status, 504);
        const status = JSON.parse(res.body);
        assert.equal(status.reason, 'Timeout');
        assert.equal(status.message, 'Timeout: request did not complete within requested timeout - context deadline exceeded');
        await conn.whenClosed();
      } finally {
        conn.destroy();
        await quick.stop();
      }
    });

    it('keeps a watch whose timeoutSeconds exceeds what a timer can hold (was: it ended at once)', async () => {
      const conn = new RawConnection(c);
      await conn.ready();
      try {
        const head = requestHead('GET', `${CONFIGMAPS}?watch=true&timeoutSeconds=4294967296&fieldSelector=metadata.name%3Dwatched`);
        let text = '';
        const firstEvent = new Promise<string>((resolve) => {
          conn.socket.on('data', (d: Buffer) => {
            text += d.toString('utf8');
            if (text.includes('"ADDED"')) resolve(text);
          });
        });
        await conn.write(head);
        // A watch that had ended would have sent its last chunk before any event.
        await new Promise((r) => setTimeout(r, 100));
        assert.equal((await http(c, 'POST', CONFIGMAPS, { body: configMap('watched') })).status, 201);
        const seen = await firstEvent;
        assert.match(seen, /^HTTP\/1\.1 200/);
        assert.ok(!seen.includes('\r\n0\r\n\r\n'), 'the watch is still open');
      } finally {
        conn.destroy();
      }
    });
  });
});

describe('limits on requests in flight (issue 10)', BOUNDED, () => {
  it('answers 429 with Retry-After: 1 beyond --max-requests-inflight / --max-mutating-requests-inflight, not counting watches or system:masters', async () => {
    let entered!: () => void;
    const held = new Promise<void>((r) => (entered = r));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const users: Authenticator = {
      async authenticate(req: IncomingMessage): Promise<AuthenticationResult | undefined> {
        if (req.headers.authorization === 'Bearer root') return { user: { username: 'root', groups: ['system:masters', 'system:authenticated'] } };
        return req.headers.authorization === 'Bearer alice' ? { user: { username: 'alice', groups: ['system:authenticated'] } } : undefined;
      },
    };
    const holding: Authorizer = {
      async authorize(attrs): Promise<AuthorizationDecision> {
        if (attrs.name === 'held') {
          entered();
          await gate;
        }
        return { decision: 'Allow', reason: '' };
      },
    };
    const server = await startServer({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 }, { authenticators: [users], authorizers: [holding] });
    try {
      const c = client(server);
      const alice = { anonymous: true, headers: { Authorization: 'Bearer alice' } };
      const first = http(c, 'GET', `${CONFIGMAPS}/held`, alice);
      await held;
      const refused = await http(c, 'GET', `${CONFIGMAPS}/other`, alice);
      assert.equal(refused.status, 429);
      assert.equal(refused.headers['retry-after'], '1');
      assert.equal(refused.text, 'Too many requests, please try again later.\n');
      // Writes have their own limit; watches are long-running and not counted.
      assert.equal((await http(c, 'POST', CONFIGMAPS, { ...alice, body: configMap('written') })).status, 201);
      assert.equal((await http(c, 'GET', `${CONFIGMAPS}?watch=true&timeoutSeconds=1`, alice)).status, 200);
      // A member of system:masters always gets an answer.
      assert.equal((await http(c, 'GET', `${CONFIGMAPS}/other`, { anonymous: true, headers: { Authorization: 'Bearer root' } })).status, 404);
      release();
      assert.equal((await first).status, 404);
      assert.equal((await http(c, 'GET', `${CONFIGMAPS}/other`, alice)).status, 404);
    } finally {
      release();
      await server.stop();
    }
  });
});

describe('the last line of defence (issue 10)', BOUNDED, () => {
  /**
   * In a process of its own: node:test fails whichever test is running on
   * any uncaught exception, which is exactly what the server must absorb.
   * --request-timeout is a minute: an answer within the test's bound is the
   * last line of defence's, not the timeout filter's.
   */
  const SCRIPT = `
    import { ApiServer } from ${JSON.stringify(new URL('../../src/server/apiserver.js', import.meta.url).href)};
    const plugin = {
      name: 'Thrower',
      handles: (op) => op === 'CREATE',
      async admit(attrs) {
        const name = attrs.object?.metadata?.name;
        if (name === 'throws') {
          setTimeout(() => { throw new Error('thrown from a timer'); }, 0);
          await new Promise(() => undefined);
        }
        if (name === 'rejects') {
          void Promise.reject(new Error('rejected and never handled'));
          await new Promise(() => undefined);
        }
        if (name === 'late') setTimeout(() => { throw new Error('thrown after the answer'); }, 50);
        if (name === 'fails') throw new TypeError('a bug in the request path');
      },
    };
    const logger = { info: () => undefined, error: (m) => process.stderr.write(m + '\\n'), v: () => false };
    const server = new ApiServer({ admissionPlugins: [plugin], logger, config: { requestTimeout: 60000 }, lastResort: true, attributeEscapes: true });
    await server.start();
    const kc = server.adminKubeconfig();
    process.stdout.write(JSON.stringify({ url: server.url, creds: { ca: kc.caPem, cert: kc.clientCertPem, key: kc.clientKeyPem } }) + '\\n');
    process.on('SIGTERM', () => server.stop().then(() => process.exit(0)));
  `;

  it('answers a request an exception or rejection escaped from at once, as kube answers a panic (500, logged with verb and path), and keeps serving', async () => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    // The child's stderr arrives on its own schedule, maybe after the response.
    const logged = async (line: RegExp): Promise<void> => {
      while (!line.test(stderr)) await new Promise((r) => child.stderr.once('data', r));
    };
    try {
      const c = await new Promise<Client>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) resolve(JSON.parse(out) as Client);
        });
        void exited.then(() => reject(new Error(`server exited: ${stderr}`)));
      });
      for (const [name, cause] of [['throws', 'thrown from a timer'], ['rejects', 'rejected and never handled']] as const) {
        const res = await http(c, 'POST', CONFIGMAPS, { body: configMap(name) });
        // kube's WithPanicRecovery: plain text naming nothing internal.
        assert.equal(res.status, 500);
        assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
        assert.equal(res.text, 'This request caused apiserver to panic. Look in the logs for details.\n');
        await logged(new RegExp(`apiserver panic'd on POST ${CONFIGMAPS}: Error: ${cause}`));
      }
      // Thrown after the request was answered: logged with the request it came from; the answer stands.
      assert.equal((await http(c, 'POST', CONFIGMAPS, { body: configMap('late') })).status, 201);
      await logged(new RegExp(`apiserver panic'd \\(uncaught exception on POST ${CONFIGMAPS} after its response\\): Error: thrown after the answer`));
      const bug = await http(c, 'POST', CONFIGMAPS, { body: configMap('fails') });
      assert.equal(bug.status, 500);
      assert.equal(bug.json.reason, 'InternalError');
      await logged(new RegExp(`POST ${CONFIGMAPS}: TypeError: a bug in the request path`));
      assert.equal(child.exitCode, null, 'the process is still running');
      assert.equal((await http(c, 'POST', CONFIGMAPS, { body: configMap('fine') })).status, 201);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
