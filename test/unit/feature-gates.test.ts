import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FEATURE_GATES, FeatureGateError, FeatureGates, featureGatesHelp, type FeatureName } from '../../src/machinery/feature-gates.js';
import { KUBE_FEATURE_GATES } from '../../src/machinery/kube-feature-gates.js';
import { parseListParams } from '../../src/handlers/options.js';
import { ApiError } from '../../src/machinery/errors.js';

const refused = (value: string, message: string): void => {
  assert.throws(
    () => FeatureGates.parse([value]),
    (err: unknown) => err instanceof FeatureGateError && err.message === message,
    `${value} → ${message}`,
  );
};

describe('feature gates as kube-apiserver 1.36 has them', () => {
  it('knows the gates Capstan depends on with their 1.36 stage, default and lock', () => {
    const expected: Record<string, [string, boolean, boolean]> = {
      APIResponseCompression: ['BETA', true, false],
      DeclarativeValidation: ['BETA', true, false],
      DeclarativeValidationTakeover: ['BETA', false, false],
      AuthorizeWithSelectors: ['GA', true, true],
      ListFromCacheSnapshot: ['BETA', true, false],
      AllowUnsafeMalformedObjectDeletion: ['ALPHA', false, false],
      StructuredAuthenticationConfigurationEgressSelector: ['BETA', true, false],
      WatchList: ['BETA', true, false],
      ConsistentListFromCache: ['GA', true, true],
      StructuredAuthorizationConfiguration: ['GA', true, true],
      StructuredAuthenticationConfiguration: ['GA', true, true],
      CBORServingAndStorage: ['ALPHA', false, false],
      MutatingAdmissionPolicy: ['BETA', false, false],
      AggregatedDiscoveryRemoveBetaType: ['DEPRECATED', true, true],
      PodTopologyLabelsAdmission: ['BETA', true, false],
    };
    for (const [name, [stage, on, locked]] of Object.entries(expected)) {
      assert.deepEqual(KUBE_FEATURE_GATES.get(name), { stage, default: on, lockToDefault: locked }, name);
    }
  });

  it('every gate Capstan consults has the upstream spec', () => {
    for (const [name, spec] of Object.entries(FEATURE_GATES)) {
      const upstream = KUBE_FEATURE_GATES.get(name);
      assert.ok(upstream, `${name} is a kube gate`);
      assert.equal(spec.stage, upstream.stage, name);
      assert.equal(spec.default, upstream.default, name);
      assert.equal('lockToDefault' in spec && spec.lockToDefault === true, upstream.lockToDefault, name);
      assert.equal(FeatureGates.defaults().enabled(name as FeatureName), upstream.default, name);
    }
  });

  it('accepts every kube gate name, also ones that change nothing here, and refuses others', () => {
    const gates = FeatureGates.parse(['SidecarContainers=true,NodeSwap=true,ClusterTrustBundle=true,InOrderInformers=false']);
    assert.equal(gates.all().find((g) => g.name === 'ClusterTrustBundle')?.enabled, true);
    assert.equal(gates.all().find((g) => g.name === 'InOrderInformers')?.enabled, false);
    refused('Nope=true', 'unrecognized feature gate: Nope');
    refused('apiresponsecompression=false', 'unrecognized feature gate: apiresponsecompression');
  });

  it("locked gates refuse the other value with kube's message; several errors aggregate", () => {
    refused('AuthorizeWithSelectors=false', 'cannot set feature gate AuthorizeWithSelectors to false, feature is locked to true');
    refused('ConsistentListFromCache=false', 'cannot set feature gate ConsistentListFromCache to false, feature is locked to true');
    refused('WatchFromStorageWithoutResourceVersion=true', 'cannot set feature gate WatchFromStorageWithoutResourceVersion to true, feature is locked to false');
    refused(
      'AuthorizeWithSelectors=false,StructuredAuthorizationConfiguration=false',
      '[cannot set feature gate AuthorizeWithSelectors to false, feature is locked to true, cannot set feature gate StructuredAuthorizationConfiguration to false, feature is locked to true]',
    );
    // An unknown name ends the check; the errors before it stay.
    refused('AuthorizeWithSelectors=false,Nope=true', '[cannot set feature gate AuthorizeWithSelectors to false, feature is locked to true, unrecognized feature gate: Nope]');
  });

  it("setting a GA or deprecated gate warns as kube's klog does", () => {
    const gates = FeatureGates.parse(['AuthorizeWithSelectors=true,KMSv1=true,WatchList=false']);
    assert.deepEqual(gates.warnings, [
      'Setting GA feature gate AuthorizeWithSelectors=true. It will be removed in a future release.',
      'Setting deprecated feature gate KMSv1=true. It will be removed in a future release.',
    ]);
    assert.equal(gates.enabled('WatchList'), false);
  });

  it('AllAlpha and AllBeta set the gates of their stage not set by name', () => {
    const alpha = FeatureGates.parse(['AllAlpha=true']);
    assert.equal(alpha.enabled('AllowUnsafeMalformedObjectDeletion'), true);
    assert.equal(alpha.enabled('WatchList'), true);
    const beta = FeatureGates.parse(['AllBeta=false,WatchList=true']);
    assert.equal(beta.enabled('APIResponseCompression'), false);
    assert.equal(beta.enabled('WatchList'), true);
    assert.equal(beta.enabled('AuthorizeWithSelectors'), true, 'GA gates are not beta');
  });

  it('metrics view: every gate with its stage and state', () => {
    const all = FeatureGates.parse(['APIResponseCompression=false']).all();
    assert.equal(all.length, KUBE_FEATURE_GATES.size);
    assert.deepEqual(all.find((g) => g.name === 'APIResponseCompression'), { name: 'APIResponseCompression', stage: 'BETA', enabled: false });
    assert.deepEqual(all.find((g) => g.name === 'AllAlpha'), { name: 'AllAlpha', stage: 'ALPHA', enabled: false });
  });

  it('the flag help lists alpha and beta gates sorted, GA and deprecated hidden, as KnownFeatures', () => {
    const help = featureGatesHelp();
    assert.ok(help.startsWith('A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:\n'));
    const lines = help.split('\n').slice(1);
    assert.deepEqual(lines, [...lines].sort());
    assert.ok(lines.includes('APIResponseCompression=true|false (BETA - default=true)'));
    assert.ok(lines.includes('AllAlpha=true|false (ALPHA - default=false)'));
    assert.ok(!help.includes('AuthorizeWithSelectors'));
    assert.ok(!help.includes('KMSv1'));
  });

  it('WatchList off: a watch may not ask for sendInitialEvents (validateWatchOptions)', () => {
    const q = new URLSearchParams('sendInitialEvents=true&resourceVersionMatch=NotOlderThan');
    assert.equal(parseListParams(q, true).sendInitialEvents, true);
    assert.throws(
      () => parseListParams(q, true, false),
      (err: unknown) =>
        err instanceof ApiError &&
        err.status.code === 422 &&
        err.status.message === 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
    );
    // Plain watches are unaffected.
    assert.equal(parseListParams(new URLSearchParams('resourceVersion=0'), true, false).sendInitialEvents, undefined);
  });
});
