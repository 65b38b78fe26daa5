import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { AuthenticationError } from '../../src/authn/authenticator.js';
import { RequestHeaderAuthenticator } from '../../src/authn/request-header.js';
import { makePki } from '../helpers/authn.js';

/** The authenticating proxy's checks on its certificate and its header parsing, on requests made up in memory. */

function request(certPem: string | undefined, headers: Record<string, string[]>): IncomingMessage {
  const raw = certPem ? new X509Certificate(certPem).raw : undefined;
  const flat: Record<string, string> = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.join(', ')]));
  return { socket: { getPeerCertificate: () => (raw ? { raw } : {}) }, headersDistinct: headers, headers: flat } as unknown as IncomingMessage;
}

describe('RequestHeaderAuthenticator', () => {
  it('checks the proxy certificate: no certificate is no opinion, another CA or a CN outside the allowed names fails', async () => {
    const proxy = await makePki('front-proxy-client');
    const other = await makePki('front-proxy-client');
    const opts = { usernameHeaders: ['X-Remote-User'], uidHeaders: [], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'], clientCaPem: proxy.servingCa! };
    const a = new RequestHeaderAuthenticator({ ...opts, allowedNames: [] });
    assert.equal(await a.authenticate(request(undefined, { 'x-remote-user': ['bob'] })), undefined);
    await assert.rejects(a.authenticate(request(other.admin!.cert, { 'x-remote-user': ['bob'] })), (e: unknown) => e instanceof AuthenticationError && /certificate signed by unknown authority/.test(e.message));
    const strict = new RequestHeaderAuthenticator({ ...opts, allowedNames: ['aggregator'] });
    await assert.rejects(strict.authenticate(request(proxy.admin!.cert, { 'x-remote-user': ['bob'] })), /x509: subject with cn=front-proxy-client is not in the allowed list/);
    // The proxy's own certificate without a username header names nobody.
    assert.equal(await a.authenticate(request(proxy.admin!.cert, {})), undefined);
  });

  it('reads every group line, lower-cases and percent-decodes extra keys, and removes the headers it read', async () => {
    const proxy = await makePki('front-proxy-client');
    const a = new RequestHeaderAuthenticator({ usernameHeaders: ['X-Remote-User', 'X-User'], uidHeaders: [], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'], clientCaPem: proxy.servingCa!, allowedNames: ['front-proxy-client'] });
    const req = request(proxy.admin!.cert, { 'x-user': ['ann'], 'x-remote-group': ['a, b', 'c'], 'x-remote-extra-scopes%2fread': ['x'], 'x-remote-extra-Mixed': ['y'], accept: ['*/*'] });
    const r = await a.authenticate(req);
    // system:authenticated is the authentication filter's (one adder for every authenticator); authn-proxy-webhook e2e sees it.
    assert.deepEqual(r?.user, { username: 'ann', groups: ['a, b', 'c'], extra: { 'scopes/read': ['x'], mixed: ['y'] } });
    assert.deepEqual(Object.keys(req.headers), ['accept']);
  });
});
