/**
 * Label and field selectors against k8s.io/apimachinery/pkg/labels and
 * pkg/fields: grammar, matching, the exact 400 messages, and the field labels
 * each resource supports.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ApiError } from '../../src/machinery/errors.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { labelSelectorMatches, parseFieldSelector, parseLabelSelector, type LabelRequirement } from '../../src/machinery/selectors.js';
import { checkFieldSelectorSupported, fieldExtractorFor } from '../../src/registry/field-selectors.js';
import { selectorMatches } from '../../src/registry/validation/selector.js';

const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

function badRequest(fn: () => unknown, message: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
    assert.equal(err.code, 400);
    assert.equal(err.reason, 'BadRequest');
    assert.equal(err.message, message);
    return true;
  });
}

describe('label selector: parsing', () => {
  const cases: Array<{ text: string; want: LabelRequirement[] }> = [
    { text: '', want: [] },
    { text: '   ', want: [] },
    { text: 'a', want: [{ key: 'a', op: 'exists', values: [] }] },
    { text: '!a', want: [{ key: 'a', op: '!exists', values: [] }] },
    { text: ' ! a ', want: [{ key: 'a', op: '!exists', values: [] }] },
    { text: 'a=b', want: [{ key: 'a', op: '=', values: ['b'] }] },
    { text: 'a==b', want: [{ key: 'a', op: '=', values: ['b'] }] },
    { text: 'a!=b', want: [{ key: 'a', op: '!=', values: ['b'] }] },
    { text: 'a=', want: [{ key: 'a', op: '=', values: [''] }] },
    { text: 'a=,b', want: [{ key: 'a', op: '=', values: [''] }, { key: 'b', op: 'exists', values: [] }] },
    { text: 'a>1', want: [{ key: 'a', op: 'gt', values: ['1'] }] },
    { text: 'a < 10', want: [{ key: 'a', op: 'lt', values: ['10'] }] },
    { text: 'a in (b,c)', want: [{ key: 'a', op: 'in', values: ['b', 'c'] }] },
    { text: 'a notin (b)', want: [{ key: 'a', op: 'notin', values: ['b'] }] },
    // Values form a sorted set; empty entries are the empty value.
    { text: 'a in (c,b,c)', want: [{ key: 'a', op: 'in', values: ['b', 'c'] }] },
    { text: 'a in ()', want: [{ key: 'a', op: 'in', values: [''] }] },
    { text: 'a in (b,,c)', want: [{ key: 'a', op: 'in', values: ['', 'b', 'c'] }] },
    { text: 'a in (,b)', want: [{ key: 'a', op: 'in', values: ['', 'b'] }] },
    { text: 'a in (b,)', want: [{ key: 'a', op: 'in', values: ['', 'b'] }] },
    // in / notin are values where a value is expected.
    { text: 'a in (in,notin)', want: [{ key: 'a', op: 'in', values: ['in', 'notin'] }] },
    { text: 'a=in', want: [{ key: 'a', op: '=', values: ['in'] }] },
    {
      text: ' app.kubernetes.io/name = web ,\ttier in ( a , b ) ,\n!legacy ',
      want: [
        { key: 'app.kubernetes.io/name', op: '=', values: ['web'] },
        { key: 'tier', op: 'in', values: ['a', 'b'] },
        { key: 'legacy', op: '!exists', values: [] },
      ],
    },
  ];
  for (const c of cases) {
    it(JSON.stringify(c.text), () => {
      const sel = parseLabelSelector(c.text);
      assert.deepEqual(sel.requirements, c.want);
      assert.equal(sel.empty, c.want.length === 0);
    });
  }

  it('null and undefined select everything', () => {
    assert.equal(parseLabelSelector(null).empty, true);
    assert.equal(parseLabelSelector(undefined).matches(undefined), true);
  });
});

describe('label selector: matching', () => {
  const cases: Array<{ sel: string; labels: Record<string, string> | undefined; want: boolean }> = [
    { sel: '', labels: undefined, want: true },
    { sel: 'a=b', labels: { a: 'b' }, want: true },
    { sel: 'a=b', labels: { a: 'c' }, want: false },
    { sel: 'a=b', labels: {}, want: false },
    { sel: 'a==b', labels: { a: 'b', x: 'y' }, want: true },
    { sel: 'a!=b', labels: {}, want: true },
    { sel: 'a!=b', labels: { a: 'c' }, want: true },
    { sel: 'a!=b', labels: { a: 'b' }, want: false },
    { sel: 'a=', labels: { a: '' }, want: true },
    { sel: 'a=', labels: {}, want: false },
    { sel: 'a in (b,c)', labels: { a: 'c' }, want: true },
    { sel: 'a in (b,c)', labels: {}, want: false },
    { sel: 'a in ()', labels: { a: '' }, want: true },
    { sel: 'a notin (b,c)', labels: {}, want: true },
    { sel: 'a notin (b,c)', labels: { a: 'b' }, want: false },
    { sel: 'a notin (b,c)', labels: { a: 'd' }, want: true },
    { sel: 'a', labels: { a: '' }, want: true },
    { sel: 'a', labels: { b: 'a' }, want: false },
    { sel: '!a', labels: { b: 'a' }, want: true },
    { sel: '!a', labels: { a: 'x' }, want: false },
    { sel: 'a>1', labels: { a: '2' }, want: true },
    { sel: 'a>1', labels: { a: '1' }, want: false },
    { sel: 'a>1', labels: {}, want: false },
    { sel: 'a>1', labels: { a: 'x' }, want: false },
    // strconv.ParseInt: decimal integers only, an optional sign, int64 range.
    { sel: 'a>1', labels: { a: '1e3' }, want: false },
    { sel: 'a>1', labels: { a: '0x10' }, want: false },
    { sel: 'a>1', labels: { a: '+5' }, want: true },
    { sel: 'a>1', labels: { a: '9223372036854775808' }, want: false },
    { sel: 'a>9007199254740992', labels: { a: '9007199254740993' }, want: true },
    { sel: 'a<10', labels: { a: '-5' }, want: true },
    { sel: 'a<10', labels: { a: '010' }, want: false },
    { sel: 'a=b,c', labels: { a: 'b' }, want: false },
    { sel: 'a=b,c', labels: { a: 'b', c: '' }, want: true },
  ];
  for (const c of cases) {
    it(`${JSON.stringify(c.sel)} on ${JSON.stringify(c.labels)} → ${c.want}`, () => {
      assert.equal(parseLabelSelector(c.sel).matches(c.labels), c.want);
    });
  }
});

describe('label selector: errors (400, labels.Parse messages)', () => {
  const P = 'unable to parse requirement: ';
  const cases: Array<{ text: string; message: string }> = [
    // Inside a requirement: prefixed.
    { text: 'a b', message: `${P}found 'b', expected: in, notin, =, ==, !=, gt, lt` },
    { text: 'a (b)', message: `${P}found '(', expected: in, notin, =, ==, !=, gt, lt` },
    { text: '!', message: `${P}found '', expected: identifier` },
    { text: '!=a', message: "found '!=', expected: !, identifier, or 'end of string'" },
    { text: 'a in b', message: `${P}found 'b' expected: '('` },
    { text: 'a in (b c)', message: `${P}found 'c', expected: ',' or ')'` },
    { text: 'a in (b', message: `${P}found '', expected: ',' or ')'` },
    { text: 'a in (', message: `${P}found '', expected: ',', ')' or identifier` },
    { text: 'a in (=)', message: `${P}found '=', expected: ',', ')' or identifier` },
    { text: 'a in (b,=)', message: `${P}found '=', expected: ',', or identifier` },
    { text: 'a=(b)', message: `${P}found '(', expected: identifier` },
    { text: 'a==!', message: `${P}found '!', expected: identifier` },
    // Between requirements: not prefixed.
    { text: 'a=b c', message: "found 'c', expected: ',' or 'end of string'" },
    { text: '!a=b', message: "found '=', expected: ',' or 'end of string'" },
    { text: 'a=b=c', message: "found '=', expected: ',' or 'end of string'" },
    { text: 'a,', message: "found '', expected: identifier after ','" },
    { text: 'a, ,b', message: "found ',', expected: identifier after ','" },
    { text: ',a', message: "found ',', expected: !, identifier, or 'end of string'" },
    { text: '=a', message: "found '=', expected: !, identifier, or 'end of string'" },
    { text: '(a)', message: "found '(', expected: !, identifier, or 'end of string'" },
    // Key validation: a field error with a nil path.
    { text: '-a=b', message: `${P}<nil>: Invalid value: "-a": ${NAME_PART_MSG}` },
    { text: 'a:b', message: `${P}<nil>: Invalid value: "a:b": ${NAME_PART_MSG}` },
    { text: '!x_', message: `${P}<nil>: Invalid value: "x_": ${NAME_PART_MSG}` },
    {
      text: 'a/b/c',
      message: `${P}<nil>: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    },
    { text: 'x'.repeat(64), message: `${P}<nil>: Invalid value: "${'x'.repeat(64)}": name part must be no more than 63 characters` },
    // Value validation: values[i][key], aggregated.
    { text: 'a=-b', message: `${P}values[0][a]: Invalid value: "-b": ${LABEL_VALUE_MSG}` },
    { text: 'a!=b-', message: `${P}values[0][a]: Invalid value: "b-": ${LABEL_VALUE_MSG}` },
    { text: `a=${'v'.repeat(64)}`, message: `${P}values[0][a]: Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters` },
    {
      text: 'a in (ok,-y,-x)',
      message: `${P}[values[0][a]: Invalid value: "-x": ${LABEL_VALUE_MSG}, values[1][a]: Invalid value: "-y": ${LABEL_VALUE_MSG}]`,
    },
    { text: 'a>x', message: `${P}values[0]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer` },
    { text: 'a>', message: `${P}values[0]: Invalid value: "": for 'Gt', 'Lt' operators, the value must be an integer` },
    { text: 'a<-1', message: `${P}values[0][a]: Invalid value: "-1": ${LABEL_VALUE_MSG}` },
    {
      text: 'a>-x',
      message: `${P}[values[0]: Invalid value: "-x": for 'Gt', 'Lt' operators, the value must be an integer, values[0][a]: Invalid value: "-x": ${LABEL_VALUE_MSG}]`,
    },
  ];
  for (const c of cases) it(JSON.stringify(c.text), () => badRequest(() => parseLabelSelector(c.text), c.message));
});

describe('field selector: parsing and matching', () => {
  const cases: Array<{ text: string; want: Array<{ field: string; op: '=' | '!='; value: string }> }> = [
    { text: '', want: [] },
    { text: 'metadata.name=a', want: [{ field: 'metadata.name', op: '=', value: 'a' }] },
    { text: 'metadata.name==a', want: [{ field: 'metadata.name', op: '=', value: 'a' }] },
    { text: 'status.phase!=Running', want: [{ field: 'status.phase', op: '!=', value: 'Running' }] },
    { text: 'a=,b!=', want: [{ field: 'a', op: '=', value: '' }, { field: 'b', op: '!=', value: '' }] },
    { text: 'a=b,,', want: [{ field: 'a', op: '=', value: 'b' }] },
    // Escapes in values: \, \= \\ (and nothing else).
    { text: 'metadata.name=a\\,b', want: [{ field: 'metadata.name', op: '=', value: 'a,b' }] },
    { text: 'x=a\\=b', want: [{ field: 'x', op: '=', value: 'a=b' }] },
    { text: 'x=a\\\\b', want: [{ field: 'x', op: '=', value: 'a\\b' }] },
    { text: 'x=a\\\\,y=b', want: [{ field: 'x', op: '=', value: 'a\\' }, { field: 'y', op: '=', value: 'b' }] },
    // The field label is taken as written.
    { text: 'a\\,b=c', want: [{ field: 'a\\,b', op: '=', value: 'c' }] },
    { text: ' spec.nodeName = n1', want: [{ field: ' spec.nodeName ', op: '=', value: ' n1' }] },
  ];
  for (const c of cases) {
    it(JSON.stringify(c.text), () => {
      const sel = parseFieldSelector(c.text);
      assert.deepEqual(sel.requirements, c.want);
      assert.equal(sel.empty, c.want.length === 0);
    });
  }

  it('matches field sets; a missing field is the empty string', () => {
    const sel = parseFieldSelector('metadata.name=a,status.phase!=Running');
    assert.equal(sel.matches({ 'metadata.name': 'a', 'status.phase': 'Pending' }), true);
    assert.equal(sel.matches({ 'metadata.name': 'a', 'status.phase': 'Running' }), false);
    assert.equal(sel.matches({ 'metadata.name': 'b' }), false);
    assert.equal(sel.matches({ 'metadata.name': 'a' }), true);
    assert.equal(parseFieldSelector('spec.nodeName=').matches({}), true);
    assert.equal(parseFieldSelector('spec.nodeName!=').matches({ 'spec.nodeName': 'n1' }), true);
    assert.equal(parseFieldSelector(null).matches({}), true);
  });

  it('exactValue finds an = requirement', () => {
    const sel = parseFieldSelector('metadata.namespace!=x,metadata.name=web\\,1');
    assert.equal(sel.exactValue('metadata.name'), 'web,1');
    assert.equal(sel.exactValue('metadata.namespace'), undefined);
  });

  const errors: Array<{ text: string; message: string }> = [
    { text: 'abc', message: "invalid selector: 'abc'; can't understand 'abc'" },
    { text: 'a=b,c', message: "invalid selector: 'a=b,c'; can't understand 'c'" },
    { text: 'x=a=b', message: 'invalid field selector: unescaped character in value: =' },
    { text: 'x=a\\qb', message: 'invalid field selector: invalid escape sequence: \\q' },
    { text: 'x=a\\', message: 'invalid field selector: invalid escape sequence: \\' },
  ];
  for (const c of errors) it(`rejects ${JSON.stringify(c.text)}`, () => badRequest(() => parseFieldSelector(c.text), c.message));
});

describe('field labels per resource (fieldExtractorFor)', () => {
  const pod: KubeObject = {
    metadata: { name: 'p', namespace: 'ns' },
    spec: { nodeName: 'n1', restartPolicy: 'Always', schedulerName: 'default-scheduler', serviceAccountName: 'sa' },
    status: { phase: 'Running', podIP: '10.0.0.1' },
  };
  const cases: Array<{ group: string; resource: string; namespaced: boolean; obj: KubeObject; want: Record<string, string> }> = [
    {
      group: '',
      resource: 'pods',
      namespaced: true,
      obj: pod,
      want: {
        'metadata.name': 'p',
        'metadata.namespace': 'ns',
        'spec.nodeName': 'n1',
        'spec.restartPolicy': 'Always',
        'spec.schedulerName': 'default-scheduler',
        'spec.serviceAccountName': 'sa',
        'spec.hostNetwork': 'false',
        'status.phase': 'Running',
        'status.podIP': '10.0.0.1',
        'status.nominatedNodeName': '',
      },
    },
    { group: '', resource: 'configmaps', namespaced: true, obj: { metadata: { name: 'c', namespace: 'ns' } }, want: { 'metadata.name': 'c', 'metadata.namespace': 'ns' } },
    // Cluster-scoped objects have an empty namespace field.
    { group: 'rbac.authorization.k8s.io', resource: 'clusterroles', namespaced: false, obj: { metadata: { name: 'r', namespace: 'stray' } }, want: { 'metadata.name': 'r', 'metadata.namespace': '' } },
    { group: '', resource: 'secrets', namespaced: true, obj: { metadata: { name: 's', namespace: 'ns' }, type: 'Opaque' }, want: { 'metadata.name': 's', 'metadata.namespace': 'ns', type: 'Opaque' } },
    {
      group: '',
      resource: 'services',
      namespaced: true,
      obj: { metadata: { name: 's', namespace: 'ns' }, spec: { clusterIP: 'None', type: 'ClusterIP' } },
      want: { 'metadata.name': 's', 'metadata.namespace': 'ns', 'spec.clusterIP': 'None', 'spec.type': 'ClusterIP' },
    },
    {
      group: '',
      resource: 'nodes',
      namespaced: false,
      obj: { metadata: { name: 'n1' }, spec: { unschedulable: true } },
      want: { 'metadata.name': 'n1', 'metadata.namespace': '', 'spec.unschedulable': 'true' },
    },
    { group: '', resource: 'namespaces', namespaced: false, obj: { metadata: { name: 'ns' }, status: { phase: 'Active' } }, want: { 'metadata.name': 'ns', 'metadata.namespace': '', 'status.phase': 'Active' } },
    { group: 'apps', resource: 'replicasets', namespaced: true, obj: { metadata: { name: 'r', namespace: 'ns' } }, want: { 'metadata.name': 'r', 'metadata.namespace': 'ns', 'status.replicas': '0' } },
    {
      group: 'batch',
      resource: 'jobs',
      namespaced: true,
      obj: { metadata: { name: 'j', namespace: 'ns' }, status: { succeeded: 3 } },
      want: { 'metadata.name': 'j', 'metadata.namespace': 'ns', 'status.successful': '3' },
    },
    {
      group: '',
      resource: 'events',
      namespaced: true,
      obj: { metadata: { name: 'e', namespace: 'ns' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'ns' }, reason: 'Started', source: { component: 'kubelet' }, type: 'Normal' },
      want: {
        'metadata.name': 'e',
        'metadata.namespace': 'ns',
        'involvedObject.kind': 'Pod',
        'involvedObject.namespace': 'ns',
        'involvedObject.name': 'p',
        'involvedObject.uid': '',
        'involvedObject.apiVersion': '',
        'involvedObject.resourceVersion': '',
        'involvedObject.fieldPath': '',
        reason: 'Started',
        reportingComponent: '',
        source: 'kubelet',
        type: 'Normal',
      },
    },
  ];
  for (const c of cases) {
    it(`${c.group || 'core'}/${c.resource}`, () => {
      const { extract } = fieldExtractorFor(c.group, c.resource, c.namespaced);
      assert.deepEqual(extract(c.obj), c.want);
    });
  }

  it('pod spec.hostNetwork renders the boolean', () => {
    const { extract } = fieldExtractorFor('', 'pods', true);
    assert.equal(extract({ metadata: { name: 'p' }, spec: { hostNetwork: true } })['spec.hostNetwork'], 'true');
  });

  const supported: Array<{ group: string; resource: string; label: string; ok: boolean }> = [
    { group: '', resource: 'configmaps', label: 'metadata.name', ok: true },
    { group: '', resource: 'configmaps', label: 'metadata.namespace', ok: true },
    { group: '', resource: 'configmaps', label: 'spec.nothing', ok: false },
    { group: '', resource: 'pods', label: 'spec.nodeName', ok: true },
    { group: '', resource: 'pods', label: 'status.podIP', ok: true },
    { group: '', resource: 'pods', label: 'spec.containers', ok: false },
    { group: '', resource: 'services', label: 'spec.clusterIP', ok: true },
    // Node and Namespace field label conversions do not accept metadata.namespace.
    { group: '', resource: 'nodes', label: 'metadata.namespace', ok: false },
    { group: '', resource: 'nodes', label: 'spec.unschedulable', ok: true },
    { group: '', resource: 'namespaces', label: 'metadata.namespace', ok: false },
    { group: '', resource: 'namespaces', label: 'status.phase', ok: true },
    { group: 'rbac.authorization.k8s.io', resource: 'clusterroles', label: 'metadata.namespace', ok: true },
    { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', label: 'spec.signerName', ok: true },
  ];
  it('uses DefaultMetaV1FieldSelectorConversion wording for types without their own conversion', () => {
    const support = fieldExtractorFor('', 'configmaps', true);
    assert.equal(support.custom, false);
    badRequest(
      () => checkFieldSelectorSupported(parseFieldSelector('data.x=y'), support),
      '"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
  });
  for (const c of supported) {
    it(`${c.group || 'core'}/${c.resource} ${c.ok ? 'supports' : 'rejects'} ${c.label}`, () => {
      const support = fieldExtractorFor(c.group, c.resource, true);
      const sel = parseFieldSelector(`metadata.name=x,${c.label}=y`);
      if (c.ok) checkFieldSelectorSupported(sel, support);
      else {
        const message = support.custom
          ? `field label not supported: ${c.label}`
          : `"${c.label}" is not a known field selector: only "metadata.name", "metadata.namespace"`;
        badRequest(() => checkFieldSelectorSupported(sel, support), message);
      }
    });
  }
});

describe('metav1.LabelSelector matching', () => {
  const labels = { app: 'web', tier: 'front' };
  const cases: Array<[string, unknown, boolean]> = [
    ['matchLabels', { matchLabels: { app: 'web' } }, true],
    ['matchLabels mismatch', { matchLabels: { app: 'db' } }, false],
    ['In', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'back'] }] }, true],
    ['NotIn', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] }, false],
    ['Exists', { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, true],
    ['DoesNotExist', { matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }, true],
    ['unknown operator', { matchExpressions: [{ key: 'app', operator: 'Gt', values: ['1'] }] }, false],
    ['inherited keys are not labels', { matchExpressions: [{ key: 'constructor', operator: 'Exists' }] }, false],
    ['a null requirement selects nothing', { matchExpressions: [null] }, false],
    ['empty selects everything', {}, true],
  ];
  for (const [name, selector, want] of cases) {
    it(name, () => {
      assert.equal(labelSelectorMatches(selector, labels), want);
      assert.equal(selectorMatches(selector, labels), want);
    });
  }

  it('a missing selector selects nothing for policy, everything for validation (which checks emptiness first)', () => {
    assert.equal(labelSelectorMatches(undefined, labels), false);
    assert.equal(selectorMatches(undefined, labels), true);
  });
});
