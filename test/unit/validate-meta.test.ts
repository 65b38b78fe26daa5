/**
 * ObjectMeta validation against kube-apiserver 1.36: the name rules of
 * k8s.io/apimachinery/pkg/util/validation (with their exact messages),
 * generateName masking, labels, annotations (256 KiB), finalizers, and the
 * field errors ValidateObjectMeta / ValidateObjectMetaUpdate produce.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { fieldErrorString, invalid, type FieldError } from '../../src/machinery/errors.js';
import { validateAnnotations, validateFinalizers, validateLabels, validateObjectMeta, validateObjectMetaUpdate, validateOwnerReferences } from '../../src/registry/validate-meta.js';
import { TOTAL_ANNOTATION_SIZE_LIMIT, isDns1035Label, isDns1123Label, isDns1123Subdomain, isPathSegmentName, isQualifiedName, isValidLabelValue, validateNameByRule, type NameRule } from '../../src/machinery/name-validation.js';
import type { ObjectMeta } from '../../src/machinery/object.js';

// The messages exactly as kube-apiserver words them (RegexError's odd ",  or " included).
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const TOO_MANY_SLASHES_MSG =
  "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const NOT_STANDARD_FINALIZER = 'name is neither a standard finalizer name nor is it fully qualified';

type Case = { value: string; want: string[] };

function runTable(name: string, fn: (v: string) => string[], cases: Case[]): void {
  describe(name, () => {
    for (const c of cases) {
      const label = c.value.length > 40 ? `${c.value.slice(0, 12)}…(${c.value.length} chars)` : JSON.stringify(c.value);
      it(`${label} → ${c.want.length === 0 ? 'valid' : c.want.length + ' error(s)'}`, () => {
        assert.deepEqual(fn(c.value), c.want);
      });
    }
  });
}

runTable('IsDNS1123Label', isDns1123Label, [
  { value: 'a', want: [] },
  { value: '0', want: [] },
  { value: 'my-name', want: [] },
  { value: '123-abc', want: [] },
  { value: 'a--b', want: [] },
  { value: 'a'.repeat(63), want: [] },
  { value: '', want: [LABEL_MSG] },
  { value: 'A', want: [LABEL_MSG] },
  { value: '-a', want: [LABEL_MSG] },
  { value: 'a-', want: [LABEL_MSG] },
  { value: 'a_b', want: [LABEL_MSG] },
  { value: 'a'.repeat(64), want: ['must be no more than 63 characters'] },
  { value: 'A'.repeat(64), want: ['must be no more than 63 characters', LABEL_MSG] },
]);

runTable('IsDNS1123Subdomain', isDns1123Subdomain, [
  { value: 'example.com', want: [] },
  { value: 'a', want: [] },
  { value: 'a.b-c.d', want: [] },
  { value: '1.2.3.4', want: [] },
  { value: `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`, want: [] },
  { value: '', want: [SUBDOMAIN_MSG] },
  { value: 'a..b', want: [SUBDOMAIN_MSG] },
  { value: '.a', want: [SUBDOMAIN_MSG] },
  { value: 'a.', want: [SUBDOMAIN_MSG] },
  { value: 'a.-b', want: [SUBDOMAIN_MSG] },
  { value: 'Example.com', want: [SUBDOMAIN_MSG] },
  { value: 'Bad_Name', want: [SUBDOMAIN_MSG] },
  { value: 'a'.repeat(254), want: ['must be no more than 253 characters'] },
]);

runTable('IsDNS1035Label', isDns1035Label, [
  { value: 'my-name', want: [] },
  { value: 'abc-123', want: [] },
  { value: 'a', want: [] },
  { value: '1abc', want: [DNS1035_MSG] },
  { value: 'abc-', want: [DNS1035_MSG] },
  { value: 'a.b', want: [DNS1035_MSG] },
  { value: 'a'.repeat(64), want: ['must be no more than 63 characters'] },
]);

describe('ValidatePathSegmentName (RBAC names)', () => {
  const cases: Array<{ value: string; prefix: boolean; want: string[] }> = [
    { value: 'system:Odd Name', prefix: false, want: [] },
    { value: 'edit', prefix: false, want: [] },
    { value: '.', prefix: false, want: ["may not be '.'"] },
    { value: '..', prefix: false, want: ["may not be '..'"] },
    { value: '.', prefix: true, want: [] },
    { value: 'a/b', prefix: false, want: ["may not contain '/'"] },
    { value: '100%', prefix: false, want: ["may not contain '%'"] },
    { value: 'a/%', prefix: false, want: ["may not contain '/'", "may not contain '%'"] },
    { value: 'a/', prefix: true, want: ["may not contain '/'"] },
  ];
  for (const c of cases) {
    it(`${JSON.stringify(c.value)}${c.prefix ? ' (prefix)' : ''}`, () => assert.deepEqual(isPathSegmentName(c.value, c.prefix), c.want));
  }
});

runTable('IsQualifiedName (label, annotation and finalizer keys)', isQualifiedName, [
  { value: 'simple', want: [] },
  { value: 'now-with-dashes', want: [] },
  { value: '1-starts-with-num', want: [] },
  { value: '1234', want: [] },
  { value: 'simple/simple', want: [] },
  { value: 'now.with.dots/simple', want: [] },
  { value: '1.2.3.4/5678', want: [] },
  { value: 'Uppercase_Is_OK_123', want: [] },
  { value: 'example.com/Uppercase_Is_OK_123', want: [] },
  { value: 'a'.repeat(63), want: [] },
  { value: `${'a'.repeat(253)}/${'b'.repeat(63)}`, want: [] },
  { value: 'nospecialchars%^=@', want: [NAME_PART_MSG] },
  { value: 'cantendwithadash-', want: [NAME_PART_MSG] },
  { value: '-cantstartwithadash', want: [NAME_PART_MSG] },
  { value: 'only/one/slash', want: [TOO_MANY_SLASHES_MSG] },
  { value: 'Example.com/abc', want: [`prefix part ${SUBDOMAIN_MSG}`] },
  { value: 'example_com/abc', want: [`prefix part ${SUBDOMAIN_MSG}`] },
  { value: '/simple', want: ['prefix part must be non-empty'] },
  // An empty name part fails both the emptiness and the regex check.
  { value: 'example.com/', want: ['name part must be non-empty', NAME_PART_MSG] },
  { value: '', want: ['name part must be non-empty', NAME_PART_MSG] },
  { value: 'a'.repeat(64), want: ['name part must be no more than 63 characters'] },
  { value: `${'a'.repeat(254)}/abc`, want: ['prefix part must be no more than 253 characters'] },
  { value: 'Bad_/-x', want: [`prefix part ${SUBDOMAIN_MSG}`, NAME_PART_MSG] },
]);

runTable('IsValidLabelValue', isValidLabelValue, [
  { value: '', want: [] },
  { value: 'simple', want: [] },
  { value: 'end-with-num-1', want: [] },
  { value: 'My_Value.1', want: [] },
  { value: 'a'.repeat(63), want: [] },
  { value: '-starts-with-dash', want: [LABEL_VALUE_MSG] },
  { value: 'ends-with-dash-', want: [LABEL_VALUE_MSG] },
  { value: '.starts.with.dot', want: [LABEL_VALUE_MSG] },
  { value: 'Tama-nui-te-rā', want: [LABEL_VALUE_MSG] },
  { value: 'has space', want: [LABEL_VALUE_MSG] },
  { value: 'a'.repeat(64), want: ['must be no more than 63 characters'] },
]);

describe('name rules and generateName masking (maskTrailingDash)', () => {
  const cases: Array<{ rule: NameRule; name: string; prefix: boolean; want: string[] }> = [
    { rule: 'dns1123Subdomain', name: 'web-', prefix: true, want: [] },
    { rule: 'dns1123Subdomain', name: 'web-', prefix: false, want: [SUBDOMAIN_MSG] },
    { rule: 'dns1123Subdomain', name: 'web.', prefix: true, want: [SUBDOMAIN_MSG] },
    // kube replaces the last two characters with "a": "x.-" is checked as "xa".
    { rule: 'dns1123Subdomain', name: 'x.-', prefix: true, want: [] },
    // One character is not masked.
    { rule: 'dns1123Subdomain', name: '-', prefix: true, want: [SUBDOMAIN_MSG] },
    { rule: 'dns1123Subdomain', name: 'Web-', prefix: true, want: [SUBDOMAIN_MSG] },
    { rule: 'dns1123Label', name: 'ns-', prefix: true, want: [] },
    { rule: 'dns1123Label', name: 'ns-', prefix: false, want: [LABEL_MSG] },
    { rule: 'dns1035Label', name: 'svc-', prefix: true, want: [] },
    { rule: 'dns1035Label', name: '1svc-', prefix: true, want: [DNS1035_MSG] },
    { rule: 'pathSegment', name: 'role-', prefix: true, want: [] },
    { rule: 'pathSegment', name: '..', prefix: true, want: [] },
    { rule: 'pathSegment', name: '..', prefix: false, want: ["may not be '..'"] },
  ];
  for (const c of cases) {
    it(`${c.rule} ${JSON.stringify(c.name)}${c.prefix ? ' as generateName' : ''}`, () => {
      assert.deepEqual(validateNameByRule(c.rule, c.name, c.prefix), c.want);
    });
  }
});

describe('validateLabels', () => {
  const cases: Array<{ name: string; labels: unknown; want: FieldError[] }> = [
    { name: 'absent', labels: undefined, want: [] },
    { name: 'null', labels: null, want: [] },
    { name: 'valid', labels: { app: 'web', 'app.kubernetes.io/name': 'x', empty: '' }, want: [] },
    {
      name: 'bad key',
      labels: { '-bad': 'x' },
      want: [{ type: 'FieldValueInvalid', field: 'metadata.labels', value: '-bad', detail: NAME_PART_MSG }],
    },
    {
      name: 'bad value',
      labels: { k: 'v!' },
      want: [{ type: 'FieldValueInvalid', field: 'metadata.labels', value: 'v!', detail: LABEL_VALUE_MSG }],
    },
    {
      name: 'non-string value',
      labels: { k: 5 },
      want: [{ type: 'FieldValueTypeInvalid', field: 'metadata.labels[k]', value: 5, detail: 'must be a string' }],
    },
    {
      name: 'not a map',
      labels: ['a'],
      want: [{ type: 'FieldValueTypeInvalid', field: 'metadata.labels', value: ['a'], detail: 'must be a map of string to string' }],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(validateLabels(c.labels, 'metadata.labels'), c.want));
});

describe('validateAnnotations', () => {
  it('checks keys lower-cased (case does not matter) but reports them as written', () => {
    assert.deepEqual(validateAnnotations({ 'Example.COM/Some-Key': 'v', UPPER: '' }, 'metadata.annotations'), []);
    assert.deepEqual(validateAnnotations({ 'Bad Key': 'v' }, 'metadata.annotations'), [
      { type: 'FieldValueInvalid', field: 'metadata.annotations', value: 'Bad Key', detail: NAME_PART_MSG },
    ]);
  });

  it('values are free text', () => {
    assert.deepEqual(validateAnnotations({ note: 'anything: goes, even\nnewlines' }, 'metadata.annotations'), []);
  });

  const sizes: Array<{ name: string; annotations: Record<string, string>; tooLong: boolean }> = [
    { name: 'keys plus values at exactly 256 KiB', annotations: { k: 'x'.repeat(TOTAL_ANNOTATION_SIZE_LIMIT - 1) }, tooLong: false },
    { name: 'one byte over', annotations: { k: 'x'.repeat(TOTAL_ANNOTATION_SIZE_LIMIT) }, tooLong: true },
    { name: 'summed over several annotations', annotations: { a: 'x'.repeat(131071), bb: 'x'.repeat(131071) }, tooLong: true },
    // Bytes, not characters: "é" is two bytes in UTF-8.
    { name: 'multi-byte characters count in bytes', annotations: { k: 'é'.repeat(TOTAL_ANNOTATION_SIZE_LIMIT / 2) }, tooLong: true },
  ];
  for (const c of sizes) {
    it(c.name, () => {
      const errs = validateAnnotations(c.annotations, 'metadata.annotations');
      if (!c.tooLong) return assert.deepEqual(errs, []);
      assert.deepEqual(errs, [{ type: 'FieldValueTooLong', field: 'metadata.annotations', detail: 'may not be more than 262144 bytes' }]);
      // field.TooLong never shows the value.
      assert.equal(fieldErrorString(errs[0]!), 'metadata.annotations: Too long: may not be more than 262144 bytes');
    });
  }

  it('rejects a non-string value and a non-map', () => {
    assert.deepEqual(validateAnnotations({ k: true }, 'metadata.annotations'), [
      { type: 'FieldValueTypeInvalid', field: 'metadata.annotations[k]', value: true, detail: 'must be a string' },
    ]);
    assert.equal(validateAnnotations('x', 'metadata.annotations')[0]!.detail, 'must be a map of string to string');
  });
});

describe('validateFinalizers', () => {
  const F = 'metadata.finalizers';
  const cases: Array<{ name: string; finalizers: unknown; want: FieldError[] }> = [
    { name: 'absent', finalizers: undefined, want: [] },
    { name: 'qualified and standard names', finalizers: ['example.com/cleanup', 'kubernetes', 'orphan'], want: [] },
    { name: 'foregroundDeletion alone', finalizers: ['foregroundDeletion'], want: [] },
    // kube-apiserver does not reject duplicates.
    { name: 'duplicates are allowed', finalizers: ['example.com/x', 'example.com/x'], want: [] },
    {
      name: 'unqualified non-standard name, reported at its index',
      finalizers: ['example.com/ok', 'cleanup'],
      want: [{ type: 'FieldValueInvalid', field: `${F}[1]`, value: 'cleanup', detail: NOT_STANDARD_FINALIZER }],
    },
    {
      name: 'orphan with foregroundDeletion',
      finalizers: ['orphan', 'foregroundDeletion'],
      want: [{ type: 'FieldValueInvalid', field: F, value: ['orphan', 'foregroundDeletion'], detail: 'finalizer orphan and foregroundDeletion cannot be both set' }],
    },
    {
      name: 'bad prefix: a qualified-name error only (it has a slash)',
      finalizers: ['Bad_Domain/x'],
      want: [{ type: 'FieldValueInvalid', field: F, value: 'Bad_Domain/x', detail: `prefix part ${SUBDOMAIN_MSG}` }],
    },
    {
      name: 'an invalid unqualified name gets both errors, the standard-name one last',
      finalizers: ['bad name'],
      want: [
        { type: 'FieldValueInvalid', field: F, value: 'bad name', detail: NAME_PART_MSG },
        { type: 'FieldValueInvalid', field: `${F}[0]`, value: 'bad name', detail: NOT_STANDARD_FINALIZER },
      ],
    },
    {
      name: 'standard-name errors come after the orphan/foreground conflict',
      finalizers: ['orphan', 'mine', 'foregroundDeletion'],
      want: [
        { type: 'FieldValueInvalid', field: F, value: ['orphan', 'mine', 'foregroundDeletion'], detail: 'finalizer orphan and foregroundDeletion cannot be both set' },
        { type: 'FieldValueInvalid', field: `${F}[1]`, value: 'mine', detail: NOT_STANDARD_FINALIZER },
      ],
    },
    {
      name: 'non-string item',
      finalizers: ['example.com/a', 7],
      want: [{ type: 'FieldValueTypeInvalid', field: `${F}[1]`, value: 7, detail: 'must be a string' }],
    },
    { name: 'not a list', finalizers: 'x', want: [{ type: 'FieldValueTypeInvalid', field: F, value: 'x', detail: 'must be a list of strings' }] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(validateFinalizers(c.finalizers, F), c.want));

  it('renders as kube-apiserver reports it', () => {
    const errs = validateFinalizers(['cleanup'], F);
    assert.equal(fieldErrorString(errs[0]!), `metadata.finalizers[0]: Invalid value: "cleanup": ${NOT_STANDARD_FINALIZER}`);
  });
});

describe('validateObjectMeta', () => {
  const nsd = { namespaced: true, nameRule: 'dns1123Subdomain' as NameRule };
  const cluster = { namespaced: false, nameRule: 'dns1123Subdomain' as NameRule };
  const cases: Array<{ name: string; meta: ObjectMeta; opts: typeof nsd; want: FieldError[] }> = [
    { name: 'valid namespaced', meta: { name: 'a', namespace: 'default', generation: 0 }, opts: nsd, want: [] },
    { name: 'valid cluster-scoped', meta: { name: 'a' }, opts: cluster, want: [] },
    {
      name: 'no name',
      meta: { namespace: 'default' },
      opts: nsd,
      want: [{ type: 'FieldValueRequired', field: 'metadata.name', detail: 'name or generateName is required' }],
    },
    {
      name: 'bad generateName and the name generated from it',
      meta: { generateName: 'Web-', name: 'Web-x1y2z', namespace: 'default' },
      opts: nsd,
      want: [
        { type: 'FieldValueInvalid', field: 'metadata.generateName', value: 'Web-', detail: SUBDOMAIN_MSG },
        { type: 'FieldValueInvalid', field: 'metadata.name', value: 'Web-x1y2z', detail: SUBDOMAIN_MSG },
      ],
    },
    { name: 'missing namespace', meta: { name: 'a' }, opts: nsd, want: [{ type: 'FieldValueRequired', field: 'metadata.namespace' }] },
    {
      name: 'namespace must be a DNS label',
      meta: { name: 'a', namespace: 'Not_OK' },
      opts: nsd,
      want: [{ type: 'FieldValueInvalid', field: 'metadata.namespace', value: 'Not_OK', detail: LABEL_MSG }],
    },
    {
      name: 'namespace on a cluster-scoped type',
      meta: { name: 'a', namespace: 'default' },
      opts: cluster,
      want: [{ type: 'FieldValueForbidden', field: 'metadata.namespace', detail: 'not allowed on this type' }],
    },
    {
      name: 'negative generation, reported before labels (kube order)',
      meta: { name: 'a', generation: -1, labels: { k: '-' } },
      opts: cluster,
      want: [
        { type: 'FieldValueInvalid', field: 'metadata.generation', value: -1, detail: 'must be greater than or equal to 0' },
        { type: 'FieldValueInvalid', field: 'metadata.labels', value: '-', detail: LABEL_VALUE_MSG },
      ],
    },
    {
      name: 'per-type name rule (RBAC path segment)',
      meta: { name: 'a/b' },
      opts: { namespaced: false, nameRule: 'pathSegment' },
      want: [{ type: 'FieldValueInvalid', field: 'metadata.name', value: 'a/b', detail: "may not contain '/'" }],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(validateObjectMeta(c.meta, c.opts), c.want));

  it('aggregates into the Invalid status message kube-apiserver sends', () => {
    const errs = validateObjectMeta({ name: 'Bad_Name', namespace: 'default', labels: { k: 'v!' } }, nsd);
    const err = invalid({ group: '', kind: 'ConfigMap' }, 'Bad_Name', errs);
    assert.equal(
      err.status.message,
      `ConfigMap "Bad_Name" is invalid: [metadata.name: Invalid value: "Bad_Name": ${SUBDOMAIN_MSG}, metadata.labels: Invalid value: "v!": ${LABEL_VALUE_MSG}]`,
    );
    assert.deepEqual(
      err.status.details!.causes!.map((c) => c.field),
      ['metadata.name', 'metadata.labels'],
    );
  });
});

describe('validateObjectMetaUpdate', () => {
  const prev: ObjectMeta = { name: 'a', namespace: 'ns', uid: 'u1', creationTimestamp: '2024-01-01T00:00:00Z' };
  const cases: Array<{ name: string; prev: ObjectMeta; next: ObjectMeta; fields: string[] }> = [
    { name: 'unchanged', prev, next: { ...prev, labels: { any: 'thing' } }, fields: [] },
    { name: 'rename', prev, next: { ...prev, name: 'b' }, fields: ['metadata.name'] },
    { name: 'move namespace', prev, next: { ...prev, namespace: 'other' }, fields: ['metadata.namespace'] },
    { name: 'new uid', prev, next: { ...prev, uid: 'u2' }, fields: ['metadata.uid'] },
    { name: 'new creationTimestamp', prev, next: { ...prev, creationTimestamp: '2025-01-01T00:00:00Z' }, fields: ['metadata.creationTimestamp'] },
    {
      name: 'deletionTimestamp is fixed once set',
      prev: { ...prev, deletionTimestamp: '2024-02-01T00:00:00Z', deletionGracePeriodSeconds: 30 },
      next: { ...prev, deletionTimestamp: '2024-03-01T00:00:00Z', deletionGracePeriodSeconds: 0 },
      fields: ['metadata.deletionTimestamp', 'metadata.deletionGracePeriodSeconds'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const errs = validateObjectMetaUpdate(c.next, c.prev);
      assert.deepEqual(errs.map((e) => e.field), c.fields);
      for (const e of errs) assert.equal(e.detail, 'field is immutable');
    });
  }

  it('a Terminating object may not gain finalizers (ValidateNoNewFinalizers)', () => {
    const terminating: ObjectMeta = { ...prev, deletionTimestamp: '2024-02-01T00:00:00Z', deletionGracePeriodSeconds: 0, finalizers: ['example.com/a'] };
    assert.deepEqual(validateObjectMetaUpdate({ ...terminating, finalizers: [] }, terminating), []);
    assert.deepEqual(validateObjectMetaUpdate({ ...terminating, finalizers: ['example.com/a', 'example.com/c', 'example.com/b'] }, terminating), [
      {
        type: 'FieldValueForbidden',
        field: 'metadata.finalizers',
        detail: 'no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/b", "example.com/c"}',
      },
    ]);
    // Before deletion, finalizers come and go freely.
    assert.deepEqual(validateObjectMetaUpdate({ ...prev, finalizers: ['example.com/x'] }, prev), []);
  });

  it('renders the new value', () => {
    const [e] = validateObjectMetaUpdate({ ...prev, name: 'b' }, prev);
    assert.equal(fieldErrorString(e!), 'metadata.name: Invalid value: "b": field is immutable');
  });
});

describe('validateOwnerReferences', () => {
  const ok = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1' };
  it('needs a version, kind, name and uid, with kube\'s field paths (no index)', () => {
    assert.deepEqual(validateOwnerReferences([ok], 'metadata.ownerReferences'), []);
    assert.deepEqual(
      validateOwnerReferences([{}], 'metadata.ownerReferences').map((e) => fieldErrorString(e)),
      [
        'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
        'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
        'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
        'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
      ],
    );
    // ParseGroupVersion: a group with no version, or more than one slash, has no version.
    assert.equal(validateOwnerReferences([{ ...ok, apiVersion: 'apps/' }], 'f')[0]?.detail, 'version must not be empty');
    assert.equal(validateOwnerReferences([{ ...ok, apiVersion: 'a/b/c' }], 'f')[0]?.detail, 'version must not be empty');
  });
  it('refuses an Event owner and a second controller', () => {
    assert.equal(validateOwnerReferences([{ ...ok, apiVersion: 'v1', kind: 'Event' }], 'f')[0]?.detail, '/v1, Kind=Event is disallowed from being an owner');
    const two = validateOwnerReferences([{ ...ok, controller: true }, { ...ok, name: 'other', controller: true }], 'f');
    assert.equal(two.length, 1);
    assert.equal(two[0]!.detail, 'Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/rs and ReplicaSet/other');
  });
  it('is part of ObjectMeta validation', () => {
    const errs = validateObjectMeta({ name: 'x', namespace: 'n', ownerReferences: [{ ...ok, uid: '' }] } as ObjectMeta, { namespaced: true, nameRule: 'dns1123Subdomain' as NameRule });
    assert.deepEqual(errs.map((e) => e.field), ['metadata.ownerReferences.uid']);
  });
});
