import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { writeKubeconfig } from '../../src/server/kubeconfig.js';
import { issueClientCert } from '../../src/server/pki.js';
import type { TestServer } from './server.js';

/**
 * A kubeconfig (written under `dir`) for a user of a test server: a client
 * certificate for `user` in `groups`, signed by the CA the server generated
 * in its data dir, for kubectl as someone other than the admin.
 */
export async function userKubeconfig(server: TestServer, dir: string, user: string, groups: string[]): Promise<{ kubeconfig: string }> {
  const ca = { cert: readFileSync(join(server.dataDir, 'pki', 'ca.crt'), 'utf8'), key: readFileSync(join(server.dataDir, 'pki', 'ca.key'), 'utf8') };
  const pair = await issueClientCert(ca, user, groups);
  const kubeconfig = join(dir, `${user.replace(/[^A-Za-z0-9_.-]/g, '_')}.kubeconfig`);
  writeKubeconfig(kubeconfig, { server: server.url.replace('0.0.0.0', '127.0.0.1'), caPem: ca.cert, clientCertPem: pair.cert, clientKeyPem: pair.key, user });
  return { kubeconfig };
}
