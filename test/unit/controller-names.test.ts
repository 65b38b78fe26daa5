import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { CONTROLLERS_DISABLED_BY_DEFAULT, isControllerEnabled, KNOWN_CONTROLLERS, RUN_IN_CAPSTAN, validateControllers } from '../../src/controllers/controller-names.js';
import { ROOT } from '../helpers/server.js';

/**
 * `--controllers` knows exactly kube-controller-manager 1.36's controllers,
 * and the README's "In-process controllers" table lists each of them once,
 * saying which Capstan runs.
 */

/** The README table's rows: the backticked names of the first cell, the second cell. */
function readmeRows(): Array<{ names: string[]; status: string }> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('| kube-controller-manager 1.36 controller | In Capstan |');
  assert.ok(start >= 0, 'the README has the controller table');
  const rows: Array<{ names: string[]; status: string }> = [];
  for (const line of readme.slice(start).split('\n').slice(2)) {
    const m = /^\s*\|(.*?)\|(.*)\|\s*$/.exec(line);
    if (!m) break;
    rows.push({ names: [...m[1]!.matchAll(/`([^`]+)`/g)].map((x) => x[1]!), status: m[2]!.trim() });
  }
  return rows;
}

describe('kube-controller-manager controller names', () => {
  it('has 1.36\'s 51 controllers and its disabled-by-default set', () => {
    assert.equal(KNOWN_CONTROLLERS.length, 52);
    assert.deepEqual(CONTROLLERS_DISABLED_BY_DEFAULT, ['bootstrap-signer-controller', 'selinux-warning-controller', 'token-cleaner-controller']);
    for (const name of ['service-lb-controller', 'node-route-controller', 'cloud-node-lifecycle-controller', 'device-taint-eviction-controller', 'podcertificaterequest-cleaner-controller', 'volumeattributesclass-protection-controller', 'kube-apiserver-serving-clustertrustbundle-publisher-controller', 'resourcepoolstatusrequest-controller', 'podgroup-protection-controller']) {
      assert.ok(KNOWN_CONTROLLERS.includes(name), name);
    }
  });

  it('accepts kube\'s names and aliases, refuses others with kube\'s text', () => {
    assert.deepEqual(validateControllers(['*', '-service', 'route', 'cloud-node-lifecycle', 'pvc-protection', 'legacy-service-account-token-cleaner']), []);
    assert.deepEqual(validateControllers(['replicaset', 'foo', '-bar']), ['"foo" is not in the list of known controllers', '"bar" is not in the list of known controllers']);
    assert.ok(!isControllerEnabled(['*'], 'selinux-warning-controller'));
    assert.ok(isControllerEnabled(['*', 'selinux-warning-controller'], 'selinux-warning-controller'));
    assert.ok(!isControllerEnabled(['*', '-pv-protection'], 'persistentvolume-protection-controller'));
    assert.ok(isControllerEnabled(['*'], 'legacy-serviceaccount-token-cleaner-controller'));
    for (const name of ['certificatesigningrequest-signing-controller', 'certificatesigningrequest-cleaner-controller', 'endpointslice-mirroring-controller']) assert.ok(isControllerEnabled(['*'], name), `${name} is on by default`);
    assert.ok(!isControllerEnabled(['*', '-csrsigning', '-csrcleaner', '-endpointslicemirroring'], 'certificatesigningrequest-signing-controller'));
    assert.ok(!isControllerEnabled(['*', '-csrcleaner'], 'certificatesigningrequest-cleaner-controller'));
    assert.ok(!isControllerEnabled(['*', '-endpointslicemirroring'], 'endpointslice-mirroring-controller'));
  });

  it('the README lists every known controller exactly once, and as running exactly those Capstan runs', () => {
    const rows = readmeRows();
    const listed = rows.flatMap((r) => r.names);
    assert.equal(new Set(listed).size, listed.length, 'no controller listed twice');
    assert.deepEqual([...listed].sort(), [...KNOWN_CONTROLLERS]);
    const running = rows.filter((r) => /^(runs?|off by default)\b/.test(r.status)).flatMap((r) => r.names);
    assert.deepEqual(running.sort(), [...RUN_IN_CAPSTAN].sort());
    for (const r of rows) {
      if (!running.includes(r.names[0]!)) assert.match(r.status, /^not (run|built): \S/, `${r.names.join(', ')} says why not`);
    }
  });
});
