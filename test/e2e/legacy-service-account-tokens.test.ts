import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import type { KubeObject } from '../../src/machinery/object.js';
import { startTestServer, type TestServer } from '../../src/testing/index.js';
import { eventually, kubectl, kubectlMissing, removeDir, tempDir } from '../helpers/server.js';

/**
 * Legacy (Secret-based) service account tokens as kube 1.36 tracks and
 * cleans them: kubectl with a legacy token gets the auto-generated warning
 * and the Secret the kubernetes.io/legacy-token-last-used label; every
 * server keeps kube-system/kube-apiserver-legacy-service-account-token-tracking;
 * the legacy-serviceaccount-token-cleaner-controller (here with a one-second
 * --legacy-service-account-token-clean-up-period and sweeps every 200 ms)
 * marks unused auto-generated tokens invalid, leaves mounted, manual and
 * recently used ones alone, and deletes tokens invalid for a whole period;
 * a token whose Secret is marked invalid gets 401.
 */

const skip = kubectlMissing();
const today = (): string => new Date().toISOString().slice(0, 10);

describe('legacy service account tokens: tracking and cleaner', { skip }, () => {
  let t: TestServer;
  let dir: string;
  const ns = 'legacy-tokens';

  const secret = (name: string): Promise<KubeObject | undefined> => t.client.get({ group: '', version: 'v1', resource: 'secrets', namespace: ns, name }).catch(() => undefined);
  const labelOf = async (name: string, label: string): Promise<string | undefined> => (await secret(name))?.metadata?.labels?.[label];

  /** A ServiceAccount listing its token Secret (an auto-generated token, as before 1.24) and the filled token. */
  async function autoToken(sa: string, listed = true): Promise<string> {
    await t.apply([
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa, namespace: ns }, ...(listed ? { secrets: [{ name: `${sa}-token` }] } : {}) },
      { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/service-account-token', metadata: { name: `${sa}-token`, namespace: ns, annotations: { 'kubernetes.io/service-account.name': sa } } },
    ]);
    const filled = await eventually(async () => {
      const token = ((await secret(`${sa}-token`))?.data as Record<string, string> | undefined)?.token;
      return token ? Buffer.from(token, 'base64').toString() : undefined;
    }, 20_000);
    return filled;
  }

  function tokenKubeconfig(name: string, token: string): { kubeconfig: string } {
    const path = join(dir, `${name}.kubeconfig`);
    writeFileSync(
      path,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: c, cluster: {server: "${t.url}", insecure-skip-tls-verify: true}}]`,
        `users: [{name: u, user: {token: "${token}"}}]`,
        'contexts: [{name: x, context: {cluster: c, user: u}}]',
        'current-context: x',
        '',
      ].join('\n'),
    );
    return { kubeconfig: path };
  }

  before(async () => {
    dir = tempDir('capstan-legacy-tokens-');
    t = await startTestServer({ config: { legacyServiceAccountTokenCleanUpPeriod: 1000, legacyServiceAccountTokenCleanerSyncInterval: 200 } });
    await t.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  });

  after(async () => {
    await t?.stop();
    if (dir) removeDir(dir);
  });

  it('every server keeps the tracking ConfigMap with today as `since`, and rewrites a `since` that is not a date', async () => {
    const admin = { kubeconfig: t.kubeConfigPath };
    const since = async (): Promise<string> => (await kubectl(admin, ['get', 'configmap', '-n', 'kube-system', 'kube-apiserver-legacy-service-account-token-tracking', '-o', 'jsonpath={.data.since}'])).stdout;
    await eventually(async () => (await since()) === today(), 20_000);
    const r = await kubectl(admin, ['patch', 'configmap', '-n', 'kube-system', 'kube-apiserver-legacy-service-account-token-tracking', '--type=merge', '-p', '{"data":{"since":"soon"}}']);
    assert.equal(r.code, 0, r.stderr);
    await eventually(async () => (await since()) === today(), 20_000);
  });

  it('kubectl with a legacy token: the auto-generated warning, and the Secret labelled with the day it was used', async () => {
    const token = await autoToken('builder');
    const r = await kubectl(tokenKubeconfig('builder', token), ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `system:serviceaccount:${ns}:builder`);
    assert.match(r.stderr, /Warning: Use tokens from the TokenRequest API or manually created secret-based tokens instead of auto-generated secret-based tokens\./);
    await eventually(async () => (await labelOf('builder-token', 'kubernetes.io/legacy-token-last-used')) === today(), 20_000);
    // A manually created token (not listed by its ServiceAccount) gets no warning, but is tracked too.
    const manual = await autoToken('manual', false);
    const m = await kubectl(tokenKubeconfig('manual', manual), ['get', 'namespace', ns, '-o', 'name']);
    assert.equal(m.code, 0, m.stderr);
    assert.doesNotMatch(m.stderr, /Warning/);
    await eventually(async () => (await labelOf('manual-token', 'kubernetes.io/legacy-token-last-used')) === today(), 20_000);
  });

  it('the cleaner marks unused auto-generated tokens once tracking is old enough, keeps mounted, manual and used ones, then deletes', async () => {
    const admin = { kubeconfig: t.kubeConfigPath };
    const idle = await autoToken('idle');
    await autoToken('mounted');
    await autoToken('unlisted', false);
    await t.apply({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'uses-mounted', namespace: ns },
      spec: { containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'tok', secret: { secretName: 'mounted-token' } }] },
    });
    // Tracking began today: nothing counts as unused for a whole period yet.
    assert.equal(await labelOf('idle-token', 'kubernetes.io/legacy-token-invalid-since'), undefined);
    // Tracking since long ago (as a cluster that has run it for a year).
    const p = await kubectl(admin, ['patch', 'configmap', '-n', 'kube-system', 'kube-apiserver-legacy-service-account-token-tracking', '--type=merge', '-p', '{"data":{"since":"2020-01-01"}}']);
    assert.equal(p.code, 0, p.stderr);
    await eventually(async () => (await labelOf('idle-token', 'kubernetes.io/legacy-token-invalid-since')) === today(), 20_000);
    // The token is refused from now on: kubectl sees 401.
    const refused = await kubectl(tokenKubeconfig('idle', idle), ['get', 'namespace', ns]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /You must be logged in to the server \(Unauthorized\)|Unauthorized/);
    const metrics = await kubectl(admin, ['get', '--raw', '/metrics']);
    assert.match(metrics.stdout, /^serviceaccount_invalid_legacy_auto_token_uses_total [1-9]/m);
    // The refused use is still tracked.
    await eventually(async () => (await labelOf('idle-token', 'kubernetes.io/legacy-token-last-used')) === today(), 20_000);
    // Used today, mounted by a pod, or not listed by the account: never marked.
    for (const name of ['builder-token', 'mounted-token', 'unlisted-token', 'manual-token']) {
      assert.equal(await labelOf(name, 'kubernetes.io/legacy-token-invalid-since'), undefined, name);
    }
    // Invalid (and unused) for longer than the period: deleted. The last use must be older too.
    const l = await kubectl(admin, ['label', 'secret', '-n', ns, 'idle-token', '--overwrite', 'kubernetes.io/legacy-token-invalid-since=2020-01-02', 'kubernetes.io/legacy-token-last-used=2020-01-02']);
    assert.equal(l.code, 0, l.stderr);
    await eventually(async () => (await secret('idle-token')) === undefined, 20_000);
    // The token controller takes the deleted Secret out of its account's `secrets`.
    await eventually(async () => {
      const sa = (await t.client.get({ group: '', version: 'v1', resource: 'serviceaccounts', namespace: ns, name: 'idle' })) as KubeObject & { secrets?: unknown[] };
      return (sa.secrets ?? []).length === 0;
    }, 20_000);
    for (const name of ['builder-token', 'mounted-token', 'unlisted-token']) assert.ok(await secret(name), name);
  });

  it('removing the invalid-since label lets the token in again', async () => {
    const token = await autoToken('revived');
    const admin = { kubeconfig: t.kubeConfigPath };
    // Marked today (as the cleaner may have done already): refused, not yet deleted.
    const l = await kubectl(admin, ['label', 'secret', '-n', ns, 'revived-token', `kubernetes.io/legacy-token-invalid-since=${today()}`, '--overwrite']);
    assert.equal(l.code, 0, l.stderr);
    await eventually(async () => (await kubectl(tokenKubeconfig('revived', token), ['get', 'namespace', ns])).code !== 0, 20_000);
    // The cleaner keeps re-marking unused tokens; this one was just used, so it stays unmarked once the label goes.
    const u = await kubectl(admin, ['label', 'secret', '-n', ns, 'revived-token', 'kubernetes.io/legacy-token-invalid-since-']);
    assert.equal(u.code, 0, u.stderr);
    await eventually(async () => (await kubectl(tokenKubeconfig('revived', token), ['get', 'namespace', ns])).code === 0, 20_000);
  });
});
