import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { approvalUpdate, prepareStatusUpdate } from '../../src/registry/csr-approval.js';
import type { KubeObject } from '../../src/machinery/object.js';

/** certificatesigningrequests/approval as kube's csrApprovalStrategy writes it: conditions only, timestamps filled in. */

const NOW = '2026-11-25T02:00:00Z';
const stored: KubeObject = {
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name: 'req', labels: { a: 'b' } },
  spec: { signerName: 'example.com/foo', request: 'UkVR', usages: ['client auth'] },
  status: { certificate: 'Q0VSVA==', conditions: [{ type: 'Approved', status: 'True', reason: 'Old', lastUpdateTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
};

describe('CSR approval writes', () => {
  it('keeps spec and the certificate, takes conditions and metadata from the request', () => {
    const desired: KubeObject = {
      ...stored,
      metadata: { name: 'req', labels: { c: 'd' } },
      spec: { signerName: 'example.com/other', request: 'WA==', usages: [] },
      status: { certificate: 'Rk9SR0VE', conditions: [{ type: 'Approved', status: 'True', reason: 'New' }, { type: 'Failed', status: 'True', reason: 'Broken' }] },
    };
    const next = approvalUpdate(desired, stored, NOW);
    assert.deepEqual(next.spec, stored.spec);
    assert.deepEqual(next.metadata, { name: 'req', labels: { c: 'd' } });
    assert.deepEqual(next.status, {
      certificate: 'Q0VSVA==',
      conditions: [
        // Same type and status as a stored condition: its transition time stays.
        { type: 'Approved', status: 'True', reason: 'New', lastUpdateTime: NOW, lastTransitionTime: '2026-01-01T00:00:00Z' },
        { type: 'Failed', status: 'True', reason: 'Broken', lastUpdateTime: NOW, lastTransitionTime: NOW },
      ],
    });
  });

  it('keeps timestamps the request gives, and a status change is a transition', () => {
    const desired: KubeObject = { ...stored, status: { conditions: [{ type: 'Approved', status: 'False', lastUpdateTime: '2026-05-05T00:00:00Z' }] } };
    assert.deepEqual(approvalUpdate(desired, stored, NOW).status, {
      certificate: 'Q0VSVA==',
      conditions: [{ type: 'Approved', status: 'False', lastUpdateTime: '2026-05-05T00:00:00Z', lastTransitionTime: NOW }],
    });
  });

  it('removing every condition leaves the rest of status', () => {
    assert.deepEqual(approvalUpdate({ ...stored, status: {} }, stored, NOW).status, { certificate: 'Q0VSVA==' });
    assert.equal(approvalUpdate({ ...stored, status: {} }, { ...stored, status: undefined }, NOW).status, undefined);
  });
});

describe('CSR status writes', () => {
  it('keeps the stored Approved and Denied conditions, fills the timestamps of the others (csrStatusStrategy)', () => {
    // What the /status write stores before the strategy: status from the request, the rest as stored.
    const next: KubeObject = {
      ...stored,
      status: {
        certificate: 'TkVX',
        conditions: [
          { type: 'Approved', status: 'False', reason: 'Rewritten' },
          { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: 'no', lastUpdateTime: '2026-11-25T01:00:00Z' },
        ],
      },
    };
    prepareStatusUpdate(next, stored, NOW);
    assert.deepEqual(next.status, {
      certificate: 'TkVX',
      conditions: [
        (stored.status as { conditions: unknown[] }).conditions[0],
        { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: 'no', lastUpdateTime: '2026-11-25T01:00:00Z', lastTransitionTime: NOW },
      ],
    });
  });

  it('leaves an added or removed Approved condition for validation to see', () => {
    const next: KubeObject = { ...stored, status: { conditions: [] } };
    prepareStatusUpdate(next, stored, NOW);
    assert.deepEqual(next.status, { conditions: [] });
    const added: KubeObject = { ...stored, status: { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Approved', status: 'True', reason: 'Twice' }] } };
    prepareStatusUpdate(added, stored, NOW);
    assert.equal((added.status as { conditions: Array<{ reason?: string; lastTransitionTime?: string }> }).conditions[1]!.reason, 'Twice');
  });
});

