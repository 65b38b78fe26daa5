import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { isControllerEnabled, validateControllers } from '../../src/controllers/controller-names.js';
import { deletionFinalizers, namespaceDeletionFinalizers } from '../../src/registry/gc-finalizers.js';

/** A DELETE's garbage collector finalizers (genericregistry's deletionFinalizersForGarbageCollection) and --controllers. */

const obj = (finalizers?: string[]) => ({ metadata: { name: 'x', ...(finalizers ? { finalizers } : {}) } });

describe('deletion finalizers', () => {
  it('follow propagationPolicy, then orphanDependents, then existing finalizers, then the type default', () => {
    assert.deepEqual(deletionFinalizers('DeleteDependents', obj(), {}), { changed: false, finalizers: [] });
    assert.deepEqual(deletionFinalizers('DeleteDependents', obj(), { propagationPolicy: 'Foreground' }), { changed: true, finalizers: ['foregroundDeletion'] });
    assert.deepEqual(deletionFinalizers('DeleteDependents', obj(), { propagationPolicy: 'Orphan' }), { changed: true, finalizers: ['orphan'] });
    assert.deepEqual(deletionFinalizers('DeleteDependents', obj(), { orphanDependents: true }), { changed: true, finalizers: ['orphan'] });
    assert.deepEqual(deletionFinalizers('DeleteDependents', obj(), { orphanDependents: false }), { changed: false, finalizers: [] });
    assert.deepEqual(deletionFinalizers('OrphanDependents', obj(), {}), { changed: true, finalizers: ['orphan'] });
    assert.deepEqual(deletionFinalizers('OrphanDependents', obj(), { propagationPolicy: 'Background' }), { changed: false, finalizers: [] });
    assert.deepEqual(deletionFinalizers('OrphanDependents', obj(['foregroundDeletion']), {}), { changed: false, finalizers: ['foregroundDeletion'] });
    assert.deepEqual(deletionFinalizers('DeleteDependents', obj(['a.example.com/x', 'orphan']), { propagationPolicy: 'Foreground' }), { changed: true, finalizers: ['a.example.com/x', 'foregroundDeletion'] });
    assert.deepEqual(deletionFinalizers('DeleteDependents', obj(['orphan']), { propagationPolicy: 'Background' }), { changed: true, finalizers: [] });
    assert.deepEqual(deletionFinalizers('Unsupported', obj(), { propagationPolicy: 'Orphan' }), { changed: false, finalizers: [] });
  });
});

describe('namespace deletion finalizers', () => {
  it('orphanDependents, then propagationPolicy, then what the namespace has; no default', () => {
    const ns = (finalizers?: string[]) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n', ...(finalizers ? { finalizers } : {}) } });
    assert.deepEqual(namespaceDeletionFinalizers(ns(), {}), { changed: false, finalizers: [] });
    assert.deepEqual(namespaceDeletionFinalizers(ns(['orphan']), {}), { changed: false, finalizers: ['orphan'] });
    assert.deepEqual(namespaceDeletionFinalizers(ns(), { propagationPolicy: 'Foreground' }), { changed: true, finalizers: ['foregroundDeletion'] });
    assert.deepEqual(namespaceDeletionFinalizers(ns(['x', 'foregroundDeletion']), { propagationPolicy: 'Orphan' }), { changed: true, finalizers: ['x', 'orphan'] });
    assert.deepEqual(namespaceDeletionFinalizers(ns(['orphan']), { propagationPolicy: 'Background' }), { changed: true, finalizers: [] });
    assert.deepEqual(namespaceDeletionFinalizers(ns(), { orphanDependents: false, propagationPolicy: 'Orphan' }), { changed: true, finalizers: ['foregroundDeletion'] });
    assert.deepEqual(namespaceDeletionFinalizers(ns(), { orphanDependents: true }), { changed: true, finalizers: ['orphan'] });
  });
});

describe('--controllers', () => {
  it('kube-controller-manager syntax: *, name, -name, aliases, the first mention decides', () => {
    assert.equal(isControllerEnabled(['*'], 'garbage-collector-controller'), true);
    assert.equal(isControllerEnabled(['*'], 'bootstrap-signer-controller'), false);
    assert.equal(isControllerEnabled(['*', 'bootstrapsigner'], 'bootstrap-signer-controller'), true);
    assert.equal(isControllerEnabled(['*', '-garbagecollector'], 'garbage-collector-controller'), false);
    assert.equal(isControllerEnabled(['-garbage-collector-controller', 'garbage-collector-controller'], 'garbage-collector-controller'), false);
    assert.equal(isControllerEnabled(['namespace'], 'garbage-collector-controller'), false);
    assert.equal(isControllerEnabled(['namespace'], 'namespace-controller'), true);
    assert.deepEqual(validateControllers(['*', '-tokencleaner', 'garbage-collector-controller']), []);
    assert.deepEqual(validateControllers(['nope', '-bad']), ['"nope" is not in the list of known controllers', '"bad" is not in the list of known controllers']);
  });
});
