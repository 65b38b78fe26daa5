/**
 * The Status bodies of every error constructor, as k8s.io/apimachinery/pkg/api/errors
 * builds them (reason, code, message, details), field.Error rendering per
 * error type, and NewInvalid's aggregation.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  ApiError,
  OBJECT_MODIFIED,
  alreadyExists,
  badRequest,
  conflict,
  fieldErrorBody,
  fieldErrorString,
  forbidden,
  gone,
  internalError,
  invalid,
  isApiError,
  methodNotSupported,
  notAcceptable,
  notFound,
  qualifiedKind,
  qualifiedResource,
  requestEntityTooLarge,
  serviceUnavailable,
  successStatus,
  timeout,
  tooManyRequests,
  unauthorized,
  unsupportedMediaType,
  type FieldError,
  type Status,
} from '../../src/machinery/errors.js';

const CM = { group: '', resource: 'configmaps' };
const DEPLOY = { group: 'apps', resource: 'deployments' };

function status(partial: Omit<Status, 'kind' | 'apiVersion' | 'metadata' | 'status'>): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', ...partial };
}

describe('qualified names', () => {
  it('GroupResource.String and GroupKind.String', () => {
    assert.equal(qualifiedResource(CM), 'configmaps');
    assert.equal(qualifiedResource(DEPLOY), 'deployments.apps');
    assert.equal(qualifiedKind({ group: '', kind: 'Pod' }), 'Pod');
    assert.equal(qualifiedKind({ group: 'apps', kind: 'Deployment' }), 'Deployment.apps');
  });
});

describe('error constructors', () => {
  const cases: Array<{ name: string; err: ApiError; want: Status; headers?: Record<string, string> }> = [
    {
      name: 'NotFound (core)',
      err: notFound(CM, 'nope'),
      want: status({ message: 'configmaps "nope" not found', reason: 'NotFound', details: { name: 'nope', kind: 'configmaps' }, code: 404 }),
    },
    {
      name: 'NotFound (named group)',
      err: notFound(DEPLOY, 'web'),
      want: status({ message: 'deployments.apps "web" not found', reason: 'NotFound', details: { name: 'web', group: 'apps', kind: 'deployments' }, code: 404 }),
    },
    {
      name: 'AlreadyExists',
      err: alreadyExists(DEPLOY, 'web'),
      want: status({ message: 'deployments.apps "web" already exists', reason: 'AlreadyExists', details: { name: 'web', group: 'apps', kind: 'deployments' }, code: 409 }),
    },
    {
      name: 'Conflict (optimistic lock)',
      err: conflict(CM, 'occ'),
      want: status({
        message: 'Operation cannot be fulfilled on configmaps "occ": the object has been modified; please apply your changes to the latest version and try again',
        reason: 'Conflict',
        details: { name: 'occ', kind: 'configmaps' },
        code: 409,
      }),
    },
    {
      name: 'Conflict with a reason',
      err: conflict(DEPLOY, 'web', 'Precondition failed: UID in precondition: a, UID in object meta: b'),
      want: status({
        message: 'Operation cannot be fulfilled on deployments.apps "web": Precondition failed: UID in precondition: a, UID in object meta: b',
        reason: 'Conflict',
        details: { name: 'web', group: 'apps', kind: 'deployments' },
        code: 409,
      }),
    },
    {
      name: 'Forbidden on an object',
      err: forbidden({ group: '', resource: 'namespaces' }, 'default', 'this namespace may not be deleted'),
      want: status({ message: 'namespaces "default" is forbidden: this namespace may not be deleted', reason: 'Forbidden', details: { name: 'default', kind: 'namespaces' }, code: 403 }),
    },
    {
      name: 'Forbidden on a collection',
      err: forbidden(CM, '', 'unable to create new content in namespace ending because it is being terminated'),
      want: status({
        message: 'configmaps is forbidden: unable to create new content in namespace ending because it is being terminated',
        reason: 'Forbidden',
        details: { kind: 'configmaps' },
        code: 403,
      }),
    },
    {
      name: 'Forbidden without a resource',
      err: forbidden({ group: '', resource: '' }, '', 'no'),
      want: status({ message: 'forbidden: no', reason: 'Forbidden', details: {}, code: 403 }),
    },
    {
      name: 'Forbidden with causes',
      err: forbidden(CM, 'x', 'why', [{ reason: 'FieldValueForbidden', message: 'm', field: 'f' }]),
      want: status({
        message: 'configmaps "x" is forbidden: why',
        reason: 'Forbidden',
        details: { name: 'x', kind: 'configmaps', causes: [{ reason: 'FieldValueForbidden', message: 'm', field: 'f' }] },
        code: 403,
      }),
    },
    { name: 'BadRequest', err: badRequest('bad'), want: status({ message: 'bad', reason: 'BadRequest', code: 400 }) },
    {
      name: 'MethodNotSupported',
      err: methodNotSupported(DEPLOY, 'create'),
      want: status({ message: 'create is not supported on resources of kind "deployments.apps"', reason: 'MethodNotAllowed', details: { group: 'apps', kind: 'deployments' }, code: 405 }),
    },
    {
      name: 'NotAcceptable',
      err: notAcceptable(['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']),
      want: status({
        message: 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
        reason: 'NotAcceptable',
        code: 406,
      }),
    },
    {
      name: 'UnsupportedMediaType',
      err: unsupportedMediaType('text/plain', ['application/json', 'application/yaml']),
      want: status({
        message: 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml',
        reason: 'UnsupportedMediaType',
        details: { causes: [{ reason: 'UnexpectedHeader', message: 'unsupported media type "text/plain"', field: 'Content-Type' }] },
        code: 415,
      }),
    },
    {
      name: 'RequestEntityTooLarge',
      err: requestEntityTooLarge(3145728),
      want: status({ message: 'Request entity too large: limit is 3145728', reason: 'RequestEntityTooLarge', code: 413 }),
    },
    {
      name: 'InternalError from an Error',
      err: internalError(new Error('disk on fire')),
      want: status({ message: 'Internal error occurred: disk on fire', reason: 'InternalError', details: { causes: [{ message: 'disk on fire' }] }, code: 500 }),
    },
    {
      name: 'InternalError from a string',
      err: internalError('oops'),
      want: status({ message: 'Internal error occurred: oops', reason: 'InternalError', details: { causes: [{ message: 'oops' }] }, code: 500 }),
    },
    { name: 'ServiceUnavailable', err: serviceUnavailable('down'), want: status({ message: 'down', reason: 'ServiceUnavailable', code: 503 }) },
    {
      name: 'Timeout with Retry-After',
      err: timeout('Too large resource version: 9, current: 5', 1),
      want: status({ message: 'Timeout: Too large resource version: 9, current: 5', reason: 'Timeout', details: { retryAfterSeconds: 1 }, code: 504 }),
      headers: { 'Retry-After': '1' },
    },
    {
      name: 'Timeout without Retry-After',
      err: timeout('request did not complete within requested timeout'),
      want: status({ message: 'Timeout: request did not complete within requested timeout', reason: 'Timeout', details: {}, code: 504 }),
      headers: {},
    },
    { name: 'Gone', err: gone('gone away'), want: status({ message: 'gone away', reason: 'Gone', code: 410 }) },
    {
      name: 'Expired (ResourceExpired)',
      err: gone('too old resource version: 1 (5)', 'Expired'),
      want: status({ message: 'too old resource version: 1 (5)', reason: 'Expired', code: 410 }),
    },
    { name: 'Unauthorized', err: unauthorized(), want: status({ message: 'Unauthorized', reason: 'Unauthorized', code: 401 }) },
    {
      name: 'TooManyRequests',
      err: tooManyRequests('slow down', 3),
      want: status({ message: 'slow down', reason: 'TooManyRequests', details: { retryAfterSeconds: 3 }, code: 429 }),
      headers: { 'Retry-After': '3' },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(c.err.status, c.want);
      assert.equal(c.err.code, c.want.code);
      assert.equal(c.err.reason, c.want.reason);
      assert.equal(c.err.message, c.want.message);
      if (c.headers) assert.deepEqual(c.err.headers, c.headers);
      assert.ok(c.err instanceof Error);
    });
  }

  it('isApiError matches by reason', () => {
    const e = notFound(CM, 'x');
    assert.equal(isApiError(e), true);
    assert.equal(isApiError(e, 'NotFound'), true);
    assert.equal(isApiError(e, 'Conflict'), false);
    assert.equal(isApiError(new Error('x')), false);
    assert.equal(OBJECT_MODIFIED, 'the object has been modified; please apply your changes to the latest version and try again');
  });

  it('a successful Status', () => {
    assert.deepEqual(successStatus(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 });
    assert.deepEqual(successStatus({ name: 'x', kind: 'pods', uid: 'u' }).details, { name: 'x', kind: 'pods', uid: 'u' });
  });
});

describe('field.Error rendering (ErrorBody)', () => {
  const cases: Array<{ name: string; err: FieldError; body: string }> = [
    { name: 'Required', err: { type: 'FieldValueRequired', field: 'metadata.name', detail: 'name or generateName is required' }, body: 'Required value: name or generateName is required' },
    { name: 'Required without detail', err: { type: 'FieldValueRequired', field: 'metadata.namespace' }, body: 'Required value' },
    { name: 'Invalid string (quoted)', err: { type: 'FieldValueInvalid', field: 'f', value: 'x"y', detail: 'bad' }, body: 'Invalid value: "x\\"y": bad' },
    { name: 'Invalid number', err: { type: 'FieldValueInvalid', field: 'f', value: 0, detail: 'must be specified for an update' }, body: 'Invalid value: 0: must be specified for an update' },
    { name: 'Invalid bool', err: { type: 'FieldValueInvalid', field: 'f', value: true, detail: 'no' }, body: 'Invalid value: true: no' },
    { name: 'Invalid list (json.Marshal)', err: { type: 'FieldValueInvalid', field: 'f', value: ['orphan', 'foregroundDeletion'], detail: 'd' }, body: 'Invalid value: ["orphan","foregroundDeletion"]: d' },
    { name: 'Invalid map (json.Marshal, sorted keys)', err: { type: 'FieldValueInvalid', field: 'f', value: { b: '2', a: '1' }, detail: 'd' }, body: 'Invalid value: {"a":"1","b":"2"}: d' },
    { name: 'NotFound shows the value', err: { type: 'FieldValueNotFound', field: 'f', value: 'missing' }, body: 'Not found: "missing"' },
    { name: 'Invalid null', err: { type: 'FieldValueInvalid', field: 'f', value: null, detail: 'd' }, body: 'Invalid value: null: d' },
    { name: 'Invalid without a value', err: { type: 'FieldValueInvalid', field: 'f', detail: 'd' }, body: 'Invalid value: d' },
    { name: 'TypeInvalid', err: { type: 'FieldValueTypeInvalid', field: 'f', value: 5, detail: 'must be a string' }, body: 'Invalid value: 5: must be a string' },
    {
      name: 'NotSupported lists the supported values',
      err: { type: 'FieldValueNotSupported', field: 'propagationPolicy', value: 'Sometimes', supported: ['Orphan', 'Background', 'Foreground'] },
      body: 'Unsupported value: "Sometimes": supported values: "Orphan", "Background", "Foreground"',
    },
    { name: 'Forbidden (no value)', err: { type: 'FieldValueForbidden', field: 'f', value: 'x', detail: 'not allowed on this type' }, body: 'Forbidden: not allowed on this type' },
    { name: 'TooLong never shows the value', err: { type: 'FieldValueTooLong', field: 'fieldManager', value: 'x'.repeat(200), detail: 'may not be more than 128 bytes' }, body: 'Too long: may not be more than 128 bytes' },
    { name: 'TooMany shows the count', err: { type: 'FieldValueTooMany', field: 'f', value: 5, detail: 'must have at most 3 items' }, body: 'Too many: 5: must have at most 3 items' },
    { name: 'TooMany without a count', err: { type: 'FieldValueTooMany', field: 'f', detail: 'has too many items' }, body: 'Too many: has too many items' },
    { name: 'Duplicate', err: { type: 'FieldValueDuplicate', field: 'f[1]', value: 'a' }, body: 'Duplicate value: "a"' },
    { name: 'InternalError (no value)', err: { type: 'InternalError', field: 'f', value: 'x', detail: 'boom' }, body: 'Internal error: boom' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(fieldErrorBody(c.err), c.body);
      assert.equal(fieldErrorString(c.err), `${c.err.field}: ${c.body}`);
    });
  }
});

describe('invalid() (errors.NewInvalid)', () => {
  const nameErr: FieldError = { type: 'FieldValueInvalid', field: 'metadata.name', value: 'Bad', detail: 'bad name' };
  const nsErr: FieldError = { type: 'FieldValueRequired', field: 'metadata.namespace' };

  it('one error: no brackets; details carry kind, group, name and causes', () => {
    const e = invalid({ group: 'apps', kind: 'Deployment' }, 'Bad', [nameErr]);
    assert.deepEqual(
      e.status,
      status({
        message: 'Deployment.apps "Bad" is invalid: metadata.name: Invalid value: "Bad": bad name',
        reason: 'Invalid',
        details: { name: 'Bad', group: 'apps', kind: 'Deployment', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "Bad": bad name', field: 'metadata.name' }] },
        code: 422,
      }),
    );
  });

  it('several errors: [a, b]', () => {
    const e = invalid({ group: '', kind: 'ConfigMap' }, 'x', [nameErr, nsErr]);
    assert.equal(e.status.message, 'ConfigMap "x" is invalid: [metadata.name: Invalid value: "Bad": bad name, metadata.namespace: Required value]');
    assert.deepEqual(e.status.details!.causes, [
      { reason: 'FieldValueInvalid', message: 'Invalid value: "Bad": bad name', field: 'metadata.name' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'metadata.namespace' },
    ]);
  });

  it('identical messages are aggregated once (ToAggregate), causes keep every error', () => {
    const dup: FieldError = { type: 'FieldValueInvalid', field: 'metadata.labels', value: '-', detail: 'bad value' };
    const once = invalid({ group: '', kind: 'ConfigMap' }, 'x', [dup, { ...dup }]);
    assert.equal(once.status.message, 'ConfigMap "x" is invalid: metadata.labels: Invalid value: "-": bad value');
    assert.equal(once.status.details!.causes!.length, 2);
    const twoOfThree = invalid({ group: '', kind: 'ConfigMap' }, 'x', [dup, nsErr, { ...dup }]);
    assert.equal(twoOfThree.status.message, 'ConfigMap "x" is invalid: [metadata.labels: Invalid value: "-": bad value, metadata.namespace: Required value]');
  });

  it('no name: details without name; no errors: no aggregate', () => {
    const e = invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [nsErr]);
    assert.equal(e.status.message, 'DeleteOptions.meta.k8s.io "" is invalid: metadata.namespace: Required value');
    assert.deepEqual(e.status.details, { group: 'meta.k8s.io', kind: 'DeleteOptions', causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'metadata.namespace' }] });
    assert.equal(invalid({ group: '', kind: 'Pod' }, 'p', []).status.message, 'Pod "p" is invalid');
  });
});
