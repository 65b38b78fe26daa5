import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { parseDeleteOptions } from '../../src/handlers/delete-options.js';
import { ApiError } from '../../src/machinery/errors.js';
import { FeatureGates } from '../../src/machinery/feature-gates.js';

/**
 * A DeleteOptions body goes through Go's JSON decoder in kube: a wrongly
 * typed option is a 400 with the decoder's text, never an option silently
 * dropped (a delete that should have been a dry run would go ahead).
 */

const gates = FeatureGates.defaults();
const parse = (body: string, contentType = 'application/json') => parseDeleteOptions(Buffer.from(body), contentType, new URLSearchParams('dryRun=All'), gates);

function refused(body: string, message: string, contentType?: string): void {
  assert.throws(() => parse(body, contentType), (err: unknown) => err instanceof ApiError && err.status.code === 400 && err.status.reason === 'BadRequest' && err.status.message === message);
}

describe('DeleteOptions bodies with wrongly typed fields', () => {
  it('are refused with the decoder\'s error', () => {
    refused('{"propagationPolicy":1,"dryRun":["All"]}', 'json: cannot unmarshal number into Go struct field DeleteOptions.propagationPolicy of type string');
    refused('{"dryRun":"All"}', 'json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type []string');
    refused('{"gracePeriodSeconds":1.5}', 'json: cannot unmarshal number 1.5 into Go struct field DeleteOptions.gracePeriodSeconds of type int64');
    refused('{"preconditions":{"uid":false}}', 'json: cannot unmarshal bool into Go struct field Preconditions.preconditions.uid of type string');
    refused('propagationPolicy: 1\n', 'json: cannot unmarshal number into Go struct field DeleteOptions.propagationPolicy of type string', 'application/yaml');
  });

  it('well typed ones (and unknown fields) still decode; with a body the query is not read', () => {
    assert.equal(parse('{"dryRun":["All"],"gracePeriodSeconds":3,"foo":{"bar":1}}').dryRun, true);
    assert.ok(!parse('{"propagationPolicy":"Orphan"}').dryRun);
  });
});
