import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyDefaults } from '../../src/registry/defaults/index.js';
import { validateObject, validateObjectUpdate } from '../../src/registry/validation/index.js';
import { fieldErrorString } from '../../src/machinery/errors.js';
import type { KubeObject } from '../../src/machinery/object.js';
import { calculateNames } from '../../src/apiextensions/naming.js';
import { deprecationWarnings } from '../../src/apiextensions/versions.js';

/**
 * CustomResourceDefinition validation with kube-apiserver 1.36's messages
 * (apiextensions-apiserver pkg/apis/apiextensions/validation), everything but
 * the schema's content; and the naming controller's decisions.
 */

const GROUP = 'apiextensions.k8s.io';
const KIND = 'CustomResourceDefinition';
const SCHEMA = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { color: { type: 'string' }, size: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } } } } } };

type Patch = (crd: Record<string, any>) => void;

function crd(patch: Patch = () => undefined): KubeObject {
  const obj: Record<string, any> = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: KIND,
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget' },
      versions: [{ name: 'v1', served: true, storage: true, schema: structuredClone(SCHEMA) }],
    },
    status: { storedVersions: ['v1'] },
  };
  patch(obj);
  applyDefaults(GROUP, 'v1', KIND, obj as KubeObject);
  return obj as KubeObject;
}

const errors = (obj: KubeObject): string[] => validateObject(GROUP, KIND, obj).map(fieldErrorString);

describe('CRD validation (create)', () => {
  it('accepts a plain CRD', () => {
    assert.deepEqual(errors(crd()), []);
  });

  const cases: Array<[string, Patch, string[]]> = [
    ['name must be plural.group', (c) => (c.metadata.name = 'gadgets.example.com'), ['metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group']],
    ['group needs a dot', (c) => ((c.metadata.name = 'widgets.example'), (c.spec.group = 'example')), ['spec.group: Invalid value: "example": should be a domain with at least one dot']],
    ['group is required', (c) => ((c.metadata.name = 'widgets.'), (c.spec.group = '')), ['spec.group: Required value']],
    ['scope is required', (c) => delete c.spec.scope, ['spec.scope: Required value']],
    ['scope values', (c) => (c.spec.scope = 'Global'), ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"']],
    ['kind is required', (c) => delete c.spec.names.kind, ['spec.names.singular: Required value', 'spec.names.kind: Required value', 'spec.names.listKind: Required value']],
    [
      'kind may have mixed case only',
      (c) => ((c.spec.names.kind = 'Wid_get'), (c.spec.names.listKind = 'WidgetList')),
      [
        // singular defaults to the lower-cased kind.
        "spec.names.singular: Invalid value: \"wid_get\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        "spec.names.kind: Invalid value: \"Wid_get\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ],
    ],
    ['kind and listKind differ', (c) => (c.spec.names.listKind = 'Widget'), ['spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same']],
    [
      'short names are labels',
      (c) => (c.spec.names.shortNames = ['w', 'W!']),
      [
        "spec.names.shortNames[1]: Invalid value: \"W!\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ],
    ],
    [
      'exactly one storage version',
      (c) => (c.spec.versions[0].storage = false),
      [
        'spec.versions: Invalid value: [{"Name":"v1","Served":true,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must have exactly one version marked as storage version',
      ],
    ],
    ['schemas are required', (c) => delete c.spec.versions[0].schema, ['spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required']],
    [
      'preserveUnknownFields cannot be true',
      (c) => (c.spec.preserveUnknownFields = true),
      ['spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'],
    ],
    ['deprecationWarning only when deprecated', (c) => (c.spec.versions[0].deprecationWarning = 'old'), ['spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions']],
    [
      'deprecation warnings are printable',
      (c) => Object.assign(c.spec.versions[0], { deprecated: true, deprecationWarning: 'old\t' }),
      ['spec.versions[0].deprecationWarning: Invalid value: "old\\t": must only contain printable UTF-8 characters; non-printable character found at index 3'],
    ],
    ['stored versions must exist', (c) => (c.status.storedVersions = []), ['status.storedVersions: Invalid value: []: must have at least one stored version']],
    [
      'printer column type and path (collapsed to the top level)',
      (c) => (c.spec.versions[0].additionalPrinterColumns = [{ name: 'Color', type: 'text', jsonPath: 'spec.color' }]),
      [
        'spec.additionalPrinterColumns[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string',
        'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.color": must be a simple json path starting with .',
      ],
    ],
    [
      'printer column format',
      (c) => (c.spec.versions[0].additionalPrinterColumns = [{ name: 'Size', type: 'integer', format: 'int16', jsonPath: '.spec.size' }]),
      ['spec.additionalPrinterColumns[0].format: Invalid value: "int16": must be one of byte,date,date-time,double,float,int32,int64,password'],
    ],
    [
      'scale paths',
      (c) => (c.spec.versions[0].subresources = { scale: { specReplicasPath: '.status.replicas', statusReplicasPath: '' } }),
      ['spec.subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec', 'spec.subresources.scale.statusReplicasPath: Required value'],
    ],
    [
      'label selector path',
      (c) => (c.spec.versions[0].subresources = { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.metadata.labels' } }),
      ['spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status'],
    ],
    [
      'per-version subresources keep their version path',
      (c) => {
        c.spec.versions[0].storage = true;
        c.spec.versions.push({ name: 'v2', served: true, storage: false, schema: structuredClone(SCHEMA), subresources: { scale: { specReplicasPath: 'spec.replicas', statusReplicasPath: '.status.replicas' } } });
      },
      ['spec.versions[1].subresources.scale.specReplicasPath: Invalid value: "spec.replicas": must be a simple json path starting with .'],
    ],
    [
      'selectable fields',
      (c) => (c.spec.versions[0].selectableFields = [{ jsonPath: '.spec.tags' }, { jsonPath: '.spec.color' }, { jsonPath: '.spec.color' }]),
      [
        'spec.versions[0].selectableFields[0].jsonPath: Invalid value: ".spec.tags": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
        'spec.versions[0].selectableFields[2].jsonPath: Duplicate value: ".spec.color"',
      ],
    ],
    ['webhook conversion needs a client config', (c) => (c.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'] } }), ['spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook']],
    [
      'webhook URL must be https',
      (c) => (c.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v2'], clientConfig: { url: 'http://example.com/convert' } } }),
      [
        'spec.conversion.webhookClientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]',
        'spec.conversion.conversionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1',
      ],
    ],
    [
      'protected groups need approval',
      (c) => ((c.metadata.name = 'widgets.x.k8s.io'), (c.spec.group = 'x.k8s.io')),
      ['metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111'],
    ],
  ];
  for (const [name, patch, want] of cases) {
    it(name, () => assert.deepEqual(errors(crd(patch)), want));
  }
});

describe('CRD validation (update)', () => {
  const established = (patch: Patch = () => undefined): KubeObject =>
    crd((c) => {
      c.status.conditions = [{ type: 'Established', status: 'True' }];
      patch(c);
    });
  const update = (next: KubeObject, old: KubeObject): string[] => validateObjectUpdate(GROUP, KIND, next, old).map(fieldErrorString);

  it('scope and kind are immutable once established; group and plural always', () => {
    assert.deepEqual(update(crd((c) => (c.spec.scope = 'Cluster')), established()), ['spec.scope: Invalid value: "Cluster": field is immutable']);
    assert.deepEqual(update(crd((c) => (c.spec.scope = 'Cluster')), crd()), []);
    assert.deepEqual(update(crd((c) => ((c.spec.names.kind = 'Gadget'), (c.spec.names.listKind = 'GadgetList'))), established()), ['spec.names.kind: Invalid value: "Gadget": field is immutable']);
  });

  it('a version once stored stays until the storage migration removes it from storedVersions', () => {
    const old = crd((c) => {
      c.spec.versions = [
        { name: 'v1', served: true, storage: false, schema: structuredClone(SCHEMA) },
        { name: 'v2', served: true, storage: true, schema: structuredClone(SCHEMA) },
      ];
      c.status.storedVersions = ['v1', 'v2'];
    });
    const next = crd((c) => {
      c.spec.versions = [{ name: 'v2', served: true, storage: true, schema: structuredClone(SCHEMA) }];
      c.status.storedVersions = ['v1', 'v2'];
    });
    assert.deepEqual(update(next, old), [
      'status.storedVersions[0]: Invalid value: "v1": missing from spec.versions; v1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 and removes v1 from status.storedVersions',
    ]);
  });
});

describe('CRD naming', () => {
  const stored = (name: string, names: Record<string, unknown>, accepted: Record<string, unknown> = {}): KubeObject => ({
    metadata: { name: `${name}.example.com` },
    spec: { group: 'example.com', names },
    status: { acceptedNames: accepted },
  });

  it('accepts fresh names: NoConflicts, Established Installing', () => {
    const c = stored('widgets', { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] });
    const r = calculateNames(c, [c]);
    assert.deepEqual(r.acceptedNames, { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] });
    assert.deepEqual(r.namesAccepted, { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
    assert.deepEqual(r.established, { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' });
  });

  it('reports names another CRD of the group holds', () => {
    const other = stored('gizmos', {}, { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList', shortNames: ['wd'] });
    const c = stored('widgets', { plural: 'widgets', singular: 'widget', kind: 'Gizmo', listKind: 'WidgetList', shortNames: ['wd'] });
    const r = calculateNames(c, [other, c]);
    assert.deepEqual(r.namesAccepted, { type: 'NamesAccepted', status: 'False', reason: 'KindConflict', message: '"Gizmo" is already in use' });
    assert.equal(r.acceptedNames.kind, undefined);
    assert.equal(r.acceptedNames.shortNames, undefined);
    assert.deepEqual(r.established, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' });
    const short = calculateNames(stored('widgets', { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] }), [other]);
    assert.deepEqual(short.namesAccepted, { type: 'NamesAccepted', status: 'False', reason: 'ShortNamesConflict', message: '"wd" is already in use' });
  });

  it('default deprecation warnings name the preferred newer version', () => {
    const warnings = deprecationWarnings(
      {
        group: 'example.com',
        versions: [
          { name: 'v1alpha1', served: true, deprecated: true },
          { name: 'v1beta1', served: true, deprecated: true, deprecationWarning: 'use v1' },
          { name: 'v1', served: true },
          { name: 'v2alpha1', served: true },
        ],
      },
      'Widget',
    );
    assert.deepEqual([...warnings], [
      ['v1alpha1', 'example.com/v1alpha1 Widget is deprecated; use example.com/v1 Widget'],
      ['v1beta1', 'use v1'],
    ]);
  });
});

describe('CRD validation: the schema content', () => {
  const untyped = (c: Record<string, any>): void => {
    c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.color = { description: 'no type' };
  };

  it('a property without type is not structural (collapsed schema: spec.validation)', () => {
    assert.deepEqual(errors(crd(untyped)), ['spec.validation.openAPIV3Schema.properties[spec].properties[color].type: Required value: must not be empty for specified object fields']);
  });

  it('per-version schemas are checked at their version', () => {
    const two = crd((c) => {
      c.spec.versions.push({ name: 'v2', served: true, storage: false, schema: structuredClone(SCHEMA) });
      untyped(c);
    });
    assert.deepEqual(errors(two), ['spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[color].type: Required value: must not be empty for specified object fields']);
  });

  it('the status subresource restricts the root', () => {
    const withStatus = crd((c) => {
      c.spec.versions[0].subresources = { status: {} };
      c.spec.versions[0].schema.openAPIV3Schema.type = 'array';
      c.spec.versions[0].schema.openAPIV3Schema.items = { type: 'string' };
    });
    assert.ok(errors(withStatus).includes('spec.validation.openAPIV3Schema.type: Invalid value: "array": only "object" is allowed as the type at the root of the schema if the status subresource is enabled'));
  });

  it('an update keeps what the old schema already broke (an unpruned default), and refuses new breakage', () => {
    const unpruned = (c: Record<string, any>): void => {
      c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.m = { type: 'object', default: { a: 1, x: 2 }, properties: { a: { type: 'integer' } } };
      c.metadata.resourceVersion = '1';
    };
    const old = crd(unpruned);
    assert.deepEqual(errors(old), ['spec.validation.openAPIV3Schema.properties[spec].properties[m].default: Invalid value: {"a":1,"x":2}: must not have unknown fields']);
    const next = crd(unpruned);
    (next.spec as Record<string, any>).names.shortNames = ['wd'];
    assert.deepEqual(validateObjectUpdate(GROUP, KIND, next, old).map(fieldErrorString), []);
    assert.deepEqual(validateObjectUpdate(GROUP, KIND, next, crd((c) => (c.metadata.resourceVersion = '1'))).map(fieldErrorString), errors(old));
  });

  it('x-kubernetes-validations are compiled; an update leaving the schema unchanged does not enforce the per-rule cost limit again', () => {
    const costly = (c: Record<string, any>): void => {
      c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.tags = {
        type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 10 }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.exists(y, y == x))' }],
      };
      c.metadata.resourceVersion = '1';
    };
    const over = 'spec.validation.openAPIV3Schema.properties[spec].properties[tags].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 1.000500x ' +
      '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';
    assert.deepEqual(errors(crd(costly)), [over]);
    const next = crd(costly);
    (next.spec as Record<string, any>).names.shortNames = ['wd'];
    assert.deepEqual(validateObjectUpdate(GROUP, KIND, next, crd(costly)).map(fieldErrorString), []);
    assert.deepEqual(validateObjectUpdate(GROUP, KIND, next, crd((c) => (c.metadata.resourceVersion = '1'))).map(fieldErrorString), [over]);
  });
});
