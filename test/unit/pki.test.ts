import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePki } from '../../src/server/pki.js';
import { removeDir, tempDir } from '../helpers/server.js';

const opts = (certDir: string) => ({ certDir, servingNames: ['10.1.2.3', 'capstan.example'], adminUser: 'capstan-admin', adminGroups: ['system:masters'] });

describe('ensurePki', () => {
  it('creates a CA, a serving certificate and an admin client certificate, and keeps them', async () => {
    const dir = tempDir();
    try {
      const first = await ensurePki(opts(dir));
      const ca = new X509Certificate(first.servingCa!);
      assert.equal(ca.ca, true);
      const serving = new X509Certificate(first.serving.cert);
      assert.ok(serving.verify(ca.publicKey));
      for (const name of ['DNS:localhost', 'DNS:kubernetes.default.svc', 'IP Address:127.0.0.1', 'IP Address:10.1.2.3', 'DNS:capstan.example']) {
        assert.ok(serving.subjectAltName?.includes(name), `${name} in ${serving.subjectAltName}`);
      }
      const admin = new X509Certificate(first.admin!.cert);
      assert.ok(admin.verify(ca.publicKey));
      assert.match(admin.subject, /CN=capstan-admin/);
      assert.match(admin.subject, /O=system:masters/);
      assert.equal(first.clientCa, first.servingCa);
      assert.equal(statSync(join(dir, 'ca.key')).mode & 0o777, 0o600);

      const second = await ensurePki(opts(dir));
      assert.equal(second.serving.cert, first.serving.cert, 'kept for later starts');
      assert.equal(second.admin!.cert, first.admin!.cert);
      assert.equal(second.servingCa, first.servingCa);

      const renamed = await ensurePki({ ...opts(dir), servingNames: ['192.168.9.9'] });
      assert.notEqual(renamed.serving.cert, first.serving.cert, 'a new serving name means a new serving certificate');
      assert.equal(renamed.servingCa, first.servingCa, 'from the same CA');
    } finally {
      removeDir(dir);
    }
  });

  it('serves a user-provided certificate and writes no admin credential for a foreign client CA', async () => {
    const dir = tempDir();
    const other = tempDir();
    try {
      const theirs = await ensurePki(opts(other));
      const pki = await ensurePki({
        ...opts(dir),
        tlsCertFile: join(other, 'apiserver.crt'),
        tlsPrivateKeyFile: join(other, 'apiserver.key'),
        clientCaFile: join(other, 'ca.crt'),
      });
      assert.equal(pki.serving.cert, theirs.serving.cert);
      assert.equal(pki.servingCa, undefined);
      assert.equal(pki.clientCa, readFileSync(join(other, 'ca.crt'), 'utf8'));
      assert.equal(pki.admin, undefined);
      await assert.rejects(ensurePki({ ...opts(dir), tlsCertFile: join(other, 'apiserver.crt') }), /must be given together/);
    } finally {
      removeDir(dir);
      removeDir(other);
    }
  });
});
