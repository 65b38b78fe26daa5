import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  addQuantities,
  canonicalQuantityJson,
  compareQuantities,
  formatQuantity,
  isWholeQuantity,
  parseQuantity,
  type Quantity,
  QUANTITY_FORMAT_ERROR,
  QUANTITY_NUMERIC_ERROR,
  QUANTITY_SUFFIX_ERROR,
  quantityError,
  quantityFromJson,
  QuantityParseError,
  quantityPtrString,
  quantitySign,
  quantityString,
  type QuantityFormat,
} from '../../src/api/quantity.js';
import { decodeProtobufObject, encodeProtobufObject } from '../../src/codec/protobuf/index.js';
import { canonicalizeQuantities } from '../../src/registry/defaults/quantities.js';
import type { KubeObject } from '../../src/machinery/object.js';

/** mantissa × 10^exponent in a format. */
function q(mantissa: bigint | number, exponent: number, format: QuantityFormat = 'DecimalSI'): Quantity {
  return { mantissa: BigInt(mantissa), exponent, format };
}

const KI = 1024n;

describe('resource.ParseQuantity: values and formats', () => {
  // Expectations from upstream's TestQuantityParse (our own table).
  const cases: Array<[string, Quantity]> = [
    ['0', q(0, 0)],
    ['0n', q(0, 0)],
    ['0u', q(0, 0)],
    ['0m', q(0, 0)],
    ['0Ki', q(0, 0, 'BinarySI')],
    ['0k', q(0, 0)],
    ['0Mi', q(0, 0, 'BinarySI')],
    ['0M', q(0, 0)],
    ['0Gi', q(0, 0, 'BinarySI')],
    ['0Ti', q(0, 0, 'BinarySI')],
    ['0T', q(0, 0)],
    ['1', q(1, 0)],
    ['1Ki', q(KI, 0, 'BinarySI')],
    ['8Ki', q(8n * KI, 0, 'BinarySI')],
    ['7Mi', q(7n * KI ** 2n, 0, 'BinarySI')],
    ['6Gi', q(6n * KI ** 3n, 0, 'BinarySI')],
    ['5Ti', q(5n * KI ** 4n, 0, 'BinarySI')],
    ['4Pi', q(4n * KI ** 5n, 0, 'BinarySI')],
    ['3Ei', q(3n * KI ** 6n, 0, 'BinarySI')],
    ['10Ti', q(10n * KI ** 4n, 0, 'BinarySI')],
    ['100Ti', q(100n * KI ** 4n, 0, 'BinarySI')],
    ['5n', q(5, -9)],
    ['4u', q(4, -6)],
    ['3m', q(3, -3)],
    ['9', q(9, 0)],
    ['8k', q(8, 3)],
    ['50k', q(5, 4)],
    ['7M', q(7, 6)],
    ['6G', q(6, 9)],
    ['5T', q(5, 12)],
    ['40T', q(4, 13)],
    ['300T', q(3, 14)],
    ['2P', q(2, 15)],
    ['1E', q(1, 18)],
    ['1E-3', q(1, -3, 'DecimalExponent')],
    ['1e3', q(1, 3, 'DecimalExponent')],
    ['1E6', q(1, 6, 'DecimalExponent')],
    ['1e9', q(1, 9, 'DecimalExponent')],
    ['1E12', q(1, 12, 'DecimalExponent')],
    ['1e15', q(1, 15, 'DecimalExponent')],
    ['1E18', q(1, 18, 'DecimalExponent')],
    ['1e14', q(1, 14, 'DecimalExponent')],
    ['1e13', q(1, 13, 'DecimalExponent')],
    ['100.035k', q(100035, 0)],
    ['0.001', q(1, -3)],
    ['0.0005k', q(5, -1)],
    ['0.005', q(5, -3)],
    ['0.05', q(5, -2)],
    ['0.5', q(5, -1)],
    ['0.00050k', q(5, -1)],
    ['0.00500', q(5, -3)],
    ['0.05000', q(5, -2)],
    ['0.50000', q(5, -1)],
    ['0.5e0', q(5, -1, 'DecimalExponent')],
    ['0.5e-1', q(5, -2, 'DecimalExponent')],
    ['0.5e-2', q(5, -3, 'DecimalExponent')],
    ['10.035M', q(10035, 3)],
    ['1.2e3', q(12, 2, 'DecimalExponent')],
    ['1.3E+6', q(13, 5, 'DecimalExponent')],
    ['1.40e9', q(14, 8, 'DecimalExponent')],
    ['1.53E12', q(153, 10, 'DecimalExponent')],
    ['1.6e15', q(16, 14, 'DecimalExponent')],
    ['1.7E18', q(17, 17, 'DecimalExponent')],
    ['9.01', q(901, -2)],
    ['8.1k', q(81, 2)],
    ['7.123456M', q(7123456, 0)],
    ['6.987654321G', q(6987654321, 0)],
    ['5.444T', q(5444, 9)],
    ['40.1T', q(401, 11)],
    ['300.2T', q(3002, 11)],
    ['2.5P', q(25, 14)],
    ['1.01E', q(101, 16)],
    // Below a nano-unit, values round up (away from zero).
    ['3.001n', q(4, -9)],
    ['1.1E-9', q(2, -9, 'DecimalExponent')],
    ['0.0000000001', q(1, -9)],
    ['0.0000000005', q(1, -9)],
    ['0.00000000050', q(1, -9)],
    ['0.5e-9', q(1, -9, 'DecimalExponent')],
    ['0.9n', q(1, -9)],
    ['0.00000012345', q(124, -9)],
    ['0.00000012354', q(124, -9)],
    // Binary-SI values are capped at 2^63-1.
    ['9Ei', q((1n << 63n) - 1n, 0, 'BinarySI')],
    ['9223372036854775807Ki', q((1n << 63n) - 1n, 0, 'BinarySI')],
    ['12E', q(12, 18)],
    ['100.035Ki', q(10243584, -2, 'BinarySI')],
    ['0.5Mi', q(512n * KI, 0, 'BinarySI')],
    ['0.05Gi', q(536870912, -1, 'BinarySI')],
    ['0.025Ti', q(274877906944, -1, 'BinarySI')],
    // A binary value under one becomes decimal.
    ['0.000000000001Ki', q(2, -9)],
    ['.001', q(1, -3)],
    ['.0001k', q(100, -3)],
    ['1.', q(1, 0)],
    ['1.G', q(1, 9)],
  ];
  for (const [input, want] of cases) {
    it(`${input}`, () => {
      const got = parseQuantity(input);
      assert.equal(compareQuantities(got, want), 0, `${input}: ${formatQuantity(got)} != ${formatQuantity(want)}`);
      assert.equal(got.format, want.format, input);
    });
    it(`-${input} and +${input}`, () => {
      const neg = parseQuantity(`-${input}`);
      assert.equal(compareQuantities(neg, { ...want, mantissa: -want.mantissa }), 0, `-${input}`);
      assert.equal(neg.format, want.format);
      const pos = parseQuantity(`+${input}`);
      assert.equal(compareQuantities(pos, want), 0, `+${input}`);
      assert.equal(pos.format, want.format);
    });
  }

  it('odd but accepted: a sign, a dot or a suffix alone is zero', () => {
    for (const s of ['.', '-.', '+', '-', 'm', 'Ki', '000', '-0']) {
      const got = parseQuantity(s);
      assert.equal(quantitySign(got), 0, s);
      assert.equal(formatQuantity(got), '0', s);
    }
  });
});

describe('resource.ParseQuantity: errors', () => {
  const cases: Array<[string, string]> = [
    ['', QUANTITY_FORMAT_ERROR],
    ['1.1.M', QUANTITY_FORMAT_ERROR],
    ['1+1.0M', QUANTITY_FORMAT_ERROR],
    ['0.1am', QUANTITY_FORMAT_ERROR],
    ['aoeu', QUANTITY_FORMAT_ERROR],
    ['Non-Numeric', QUANTITY_FORMAT_ERROR],
    // No spaces, on either side (UnmarshalJSON trims before it parses).
    [' 1', QUANTITY_FORMAT_ERROR],
    ['1 ', QUANTITY_FORMAT_ERROR],
    ['0.1mi', QUANTITY_SUFFIX_ERROR],
    ['.5i', QUANTITY_SUFFIX_ERROR],
    ['1i', QUANTITY_SUFFIX_ERROR],
    ['-3.01i', QUANTITY_SUFFIX_ERROR],
    ['-3.01e-', QUANTITY_SUFFIX_ERROR],
    ['1e', QUANTITY_SUFFIX_ERROR],
    ['1mm', QUANTITY_SUFFIX_ERROR],
    ['1ki', QUANTITY_SUFFIX_ERROR],
    ['1KI', QUANTITY_FORMAT_ERROR],
    ['1e9223372036854775808', QUANTITY_SUFFIX_ERROR],
    // No digits, on the paths that read the number as a decimal.
    ['.e-10', QUANTITY_NUMERIC_ERROR],
    ['e-10', QUANTITY_NUMERIC_ERROR],
    ['Ei', QUANTITY_NUMERIC_ERROR],
    ['+.Pi', QUANTITY_NUMERIC_ERROR],
  ];
  for (const [input, want] of cases) {
    it(JSON.stringify(input), () => {
      assert.equal(quantityError(input), want);
      assert.throws(() => parseQuantity(input), (err: unknown) => err instanceof QuantityParseError && err.message === want);
      // UnmarshalJSON trims spaces before it parses.
      if (input.trim() === input) assert.equal(quantityFromJson(input), undefined);
      else assert.equal(formatQuantity(quantityFromJson(input)!), '1');
    });
  }

  it('the format error quotes the regular expression', () => {
    assert.equal(QUANTITY_FORMAT_ERROR, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  });

  it('exponents: int64 text, narrowed to int32 as 1.36 does', () => {
    // Later releases reject exponents outside int32 instead (kubernetes/kubernetes#141203).
    assert.equal(formatQuantity(parseQuantity('1e4294967297')), '10');
    assert.equal(formatQuantity(parseQuantity('1E2147483647')), '10e2147483646');
  });
});

describe('Quantity.String()', () => {
  // Expectations from upstream's TestQuantityString: [value, canonical, another spelling of it].
  const cases: Array<[Quantity, string, string?]> = [
    [q(KI ** 3n, 0, 'BinarySI'), '1Gi', '1024Mi'],
    [q(300n * KI ** 2n, 0, 'BinarySI'), '300Mi', '307200Ki'],
    [q(6n * KI, 0, 'BinarySI'), '6Ki'],
    [q(1001n * KI ** 3n, 0, 'BinarySI'), '1001Gi', '1025024Mi'],
    [q(KI ** 4n, 0, 'BinarySI'), '1Ti', '1024Gi'],
    [q(5, 0, 'BinarySI'), '5', '5000m'],
    [q(500, -3, 'BinarySI'), '500m', '0.5'],
    [q(1, 9), '1G', '1000M'],
    [q(1000, 6), '1G', '0.001T'],
    [q(1000000, 3), '1G'],
    [q(1000000000, 0), '1G'],
    [q(1, -3), '1m', '1000u'],
    [q(80, -3), '80m'],
    [q(1080, -3), '1080m', '1.08'],
    [q(108, -2), '1080m', '1080000000n'],
    [q(10800, -4), '1080m'],
    [q(300, 6), '300M'],
    [q(1, 12), '1T'],
    [q(1, 18), '1E'],
    [q(1234567, 6), '1234567M'],
    [q(1234567, -3, 'BinarySI'), '1234567m'],
    [q(3, 3), '3k'],
    [q(1025, 0, 'BinarySI'), '1025'],
    [q(0, 0), '0'],
    [q(0, 0, 'BinarySI'), '0'],
    [q(1, 9, 'DecimalExponent'), '1e9', '.001e12'],
    [q(1, -3, 'DecimalExponent'), '1e-3', '0.001e0'],
    [q(1, -9, 'DecimalExponent'), '1e-9', '1000e-12'],
    [q(80, -3, 'DecimalExponent'), '80e-3'],
    [q(300, 6, 'DecimalExponent'), '300e6'],
    [q(1, 12, 'DecimalExponent'), '1e12'],
    [q(1, 3, 'DecimalExponent'), '1e3'],
    [q(3, 3, 'DecimalExponent'), '3e3'],
    [q(0, 0, 'DecimalExponent'), '0', '00'],
    [q(1, -9), '1n'],
    [q(80, -9), '80n'],
    [q(1080, -9), '1080n'],
    [q(108, -8), '1080n'],
    [q(10800, -10), '1080n'],
    [q(1, -6), '1u'],
    [q(80, -6), '80u'],
    [q(1080, -6), '1080u'],
  ];
  for (const [value, want, alternate] of cases) {
    it(`${want}${alternate ? ` (from ${alternate})` : ''}`, () => {
      assert.equal(formatQuantity(value), want);
      // The canonical text parses back to itself, kept as written.
      const reparsed = parseQuantity(want);
      assert.equal(reparsed.text, want);
      assert.equal(compareQuantities(reparsed, value), 0);
      if (alternate !== undefined) {
        const alt = parseQuantity(alternate);
        assert.equal(alt.text, undefined, `${alternate} is not canonical`);
        assert.equal(formatQuantity(alt), want);
      }
      if (value.mantissa !== 0n) assert.equal(formatQuantity({ ...value, mantissa: -value.mantissa }), `-${want}`);
    });
  }

  // Expectations from upstream's TestQuantityParseEmit, and the examples in the Quantity docs.
  const emit: Array<[string, string]> = [
    ['1Ki', '1Ki'],
    ['1Mi', '1Mi'],
    ['1Gi', '1Gi'],
    ['1024Mi', '1Gi'],
    ['1000M', '1G'],
    ['.001Ki', '1024m'],
    ['.000001Ki', '1024u'],
    ['.000000001Ki', '1024n'],
    ['.000000000001Ki', '2n'],
    ['1.5', '1500m'],
    ['1.5Gi', '1536Mi'],
    ['1000m', '1'],
    ['0.1', '100m'],
    ['0.1m', '100u'],
    ['1e3', '1e3'],
    ['1.5e3', '1500'],
    ['1.3E+6', '1300e3'],
    ['2000', '2k'],
    ['1.5Ki', '1536'],
    ['9Ei', '9223372036854775807'],
    ['7Ei', '7Ei'],
    ['0Gi', '0'],
  ];
  for (const [input, want] of emit) {
    it(`${input} → ${want}`, () => {
      assert.equal(formatQuantity(parseQuantity(input)), want);
      assert.equal(formatQuantity(parseQuantity(`-${input}`)), want === '0' ? '0' : `-${want}`);
    });
  }

  it('binary-SI values with no binary suffix print as plain integers', () => {
    // Upstream's TestBinarySIZeroExponentString.
    assert.equal(formatQuantity(q(2000, 0, 'BinarySI')), '2000');
    assert.equal(formatQuantity(q(-2000, 0, 'BinarySI')), '-2000');
  });

  it('keeps the text ParseQuantity found canonical, even in odd spellings', () => {
    for (const s of ['0', '+1', '01', '1.', '1.G', '1.500', '100.035k', '1023Ki', '10Ti']) assert.equal(formatQuantity(parseQuantity(s)), s);
    for (const [s, want] of [['8Ki', '8Ki'], ['1024Ki', '1Mi'], ['1.50', '1500m'], ['.5', '500m'], ['-0', '0']]) {
      const parsed = parseQuantity(s as string);
      assert.equal(parsed.text, undefined, s);
      assert.equal(formatQuantity(parsed), want);
    }
  });

  it('1.36 prints no suffix past E (later releases print an exponent, kubernetes/kubernetes#140459)', () => {
    assert.equal(formatQuantity(parseQuantity('1000E')), '1');
    assert.equal(formatQuantity(q(5, 21)), '5');
  });
});

describe('Quantity.Cmp, Add, Sign', () => {
  // Expectations from upstream's TestQuantityCmp and TestQuantityCmpInt64AndDec.
  const I64_MAX = (1n << 63n) - 1n;
  const I64_MIN = -(1n << 63n);
  const cases: Array<[Quantity, Quantity, -1 | 0 | 1]> = [
    [parseQuantity('0'), parseQuantity('0'), 0],
    [parseQuantity('100m'), parseQuantity('50m'), 1],
    [parseQuantity('50m'), parseQuantity('100m'), -1],
    [parseQuantity('10000T'), parseQuantity('100Gi'), 1],
    [q(901, -2), q(901, -2), 0],
    [q(90, -1), q(901, -2), -1],
    [q(901, -2), q(900, -2), 1],
    [q(0, 1), q(0, -1), 0],
    [q(800, -3), q(1, 0), -1],
    [q(800, -3), q(79, -2), 1],
    [q(I64_MAX, 0), q(1, -1), 1],
    [q(I64_MAX, 1), q(1, 0), 1],
    [q(I64_MAX, 1), q(1, 1), 1],
    [q(I64_MAX, 1), q(0, 1), 1],
    [q(I64_MAX, -16), q(1, 3), -1],
    [q(I64_MIN, 0), q(0, 0), -1],
    [q(I64_MIN, -18), q(-1, 0), -1],
    [q(I64_MIN, -19), q(-1, 0), 1],
    [q(10n ** 18n, -17), q(1, 1), 0],
    [q(10n ** 18n, -17), q(-10, 0), 1],
    [q(-(10n ** 18n), -17), q(-10, 0), 0],
    [q(10n ** 18n, -17), q(1, 0), 1],
    [q(10n ** 18n + 1n, -17), q(1, 1), 1],
    [q(10n ** 18n - 1n, -17), q(1, 1), -1],
    // Far-apart exponents compare without building the numbers.
    [parseQuantity('1e2000000000'), parseQuantity('1'), 1],
    [parseQuantity('-1e2000000000'), parseQuantity('1n'), -1],
  ];
  cases.forEach(([a, b, want], i) => {
    it(`case ${i}: ${formatQuantity(a)} vs ${formatQuantity(b)}`, () => {
      assert.equal(compareQuantities(a, b), want);
      assert.equal(compareQuantities(b, a), want === 0 ? 0 : -want);
    });
  });

  it('adds exactly; adding to zero takes the other format', () => {
    assert.equal(formatQuantity(addQuantities(parseQuantity('100m'), parseQuantity('1.9'))), '2');
    assert.equal(formatQuantity(addQuantities(parseQuantity('1Gi'), parseQuantity('512Mi'))), '1536Mi');
    assert.equal(formatQuantity(addQuantities(parseQuantity('1'), parseQuantity('-1500m'))), '-500m');
    // Upstream's TestQuantityAddZeroPreservesSuffix.
    for (const s of ['100m', '1Gi']) {
      assert.equal(formatQuantity(addQuantities(parseQuantity(s), parseQuantity('0'))), s);
      assert.equal(formatQuantity(addQuantities(parseQuantity('0'), parseQuantity(s))), s);
    }
    assert.throws(() => addQuantities(parseQuantity('1e20000'), parseQuantity('1')), RangeError);
  });

  it('sign and whole numbers', () => {
    assert.equal(quantitySign(parseQuantity('-1m')), -1);
    assert.equal(quantitySign(parseQuantity('0Ki')), 0);
    assert.equal(quantitySign(parseQuantity('1n')), 1);
    assert.equal(isWholeQuantity(parseQuantity('1500m')), false);
    assert.equal(isWholeQuantity(parseQuantity('2000m')), true);
    assert.equal(isWholeQuantity(parseQuantity('1k')), true);
    assert.equal(isWholeQuantity(parseQuantity('1n')), false);
  });
});

describe('quantities in JSON', () => {
  it('UnmarshalJSON: strings are trimmed, numbers read as written', () => {
    assert.equal(formatQuantity(quantityFromJson(' 1000m ')!), '1');
    assert.equal(formatQuantity(quantityFromJson(2)!), '2');
    assert.equal(formatQuantity(quantityFromJson(0.5)!), '500m');
    assert.equal(quantityFromJson(null), undefined);
    assert.equal(quantityFromJson(true), undefined);
    assert.equal(quantityFromJson('half'), undefined);
    assert.equal(quantityFromJson(Number.NaN), undefined);
  });

  it('String() of a JSON value, and of a pointer', () => {
    assert.equal(quantityString(undefined), '0');
    assert.equal(quantityString('1.5Gi'), '1536Mi');
    assert.equal(quantityString('half'), 'half');
    assert.equal(quantityPtrString(null), '<nil>');
    assert.equal(quantityPtrString('2000'), '2k');
  });

  it('canonical JSON values leave non-quantities alone', () => {
    assert.equal(canonicalQuantityJson('1000m'), '1');
    assert.equal(canonicalQuantityJson(2), '2');
    assert.equal(canonicalQuantityJson(null), null);
    assert.equal(canonicalQuantityJson('half'), 'half');
    assert.deepEqual(canonicalQuantityJson({ a: 1 }), { a: 1 });
  });
});

describe('canonicalizeQuantities', () => {
  const container = (resources: unknown): Record<string, unknown> => ({ name: 'c', image: 'nginx', resources });

  it('Pod: container, init container and pod-level resources, emptyDir sizeLimit, overhead', () => {
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', annotations: { cpu: '1000m' }, labels: { memory: '1024Mi' } },
      spec: {
        containers: [container({ limits: { cpu: '1000m', memory: '1.5Gi' }, requests: { cpu: 2, memory: '1024Mi', 'example.com/gpu': '1' } })],
        initContainers: [container({ requests: { cpu: '0.1' } })],
        resources: { limits: { cpu: '2000m' } },
        overhead: { cpu: '250m', memory: '0.5Gi' },
        volumes: [{ name: 'v', emptyDir: { sizeLimit: '1000Mi' } }, { name: 'w', emptyDir: { sizeLimit: '1024Mi' } }],
      },
    };
    canonicalizeQuantities('io.k8s.api.core.v1.Pod', pod);
    const spec = pod.spec as Record<string, any>;
    assert.deepEqual(spec.containers[0].resources, { limits: { cpu: '1', memory: '1536Mi' }, requests: { cpu: '2', memory: '1Gi', 'example.com/gpu': '1' } });
    assert.deepEqual(spec.initContainers[0].resources, { requests: { cpu: '100m' } });
    assert.deepEqual(spec.resources, { limits: { cpu: '2' } });
    assert.deepEqual(spec.overhead, { cpu: '250m', memory: '512Mi' });
    assert.equal(spec.volumes[0].emptyDir.sizeLimit, '1000Mi');
    assert.equal(spec.volumes[1].emptyDir.sizeLimit, '1Gi');
    // Strings that are not quantities by type stay as written.
    assert.deepEqual(pod.metadata, { name: 'p', annotations: { cpu: '1000m' }, labels: { memory: '1024Mi' } });
    assert.equal(spec.containers[0].image, 'nginx');
  });

  it('Deployment: the pod template', () => {
    const d: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { replicas: 1, template: { spec: { containers: [container({ limits: { cpu: 0.5, memory: '2048Ki' } })] } } },
    };
    canonicalizeQuantities('io.k8s.api.apps.v1.Deployment', d);
    const spec = d.spec as Record<string, any>;
    assert.deepEqual(spec.template.spec.containers[0].resources, { limits: { cpu: '500m', memory: '2Mi' } });
    assert.equal(spec.replicas, 1);
  });

  it('ResourceQuota: spec.hard and status', () => {
    const rq: KubeObject = {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'q' },
      spec: { hard: { pods: 10, 'requests.cpu': '4000m', 'limits.memory': '8192Mi', 'requests.storage': '1e3' }, scopes: ['BestEffort'] },
      status: { hard: { pods: '10' }, used: { pods: 0 } },
    };
    canonicalizeQuantities('io.k8s.api.core.v1.ResourceQuota', rq);
    assert.deepEqual(rq.spec, { hard: { pods: '10', 'requests.cpu': '4', 'limits.memory': '8Gi', 'requests.storage': '1e3' }, scopes: ['BestEffort'] });
    assert.deepEqual(rq.status, { hard: { pods: '10' }, used: { pods: '0' } });
  });

  it('PersistentVolumeClaim: requests, limits and status capacity', () => {
    const pvc: KubeObject = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'c' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1000Mi' }, limits: { storage: '10240Mi' } } },
      status: { capacity: { storage: '1.0Gi' } },
    };
    canonicalizeQuantities('io.k8s.api.core.v1.PersistentVolumeClaim', pvc);
    assert.deepEqual((pvc.spec as Record<string, any>).resources, { requests: { storage: '1000Mi' }, limits: { storage: '10Gi' } });
    assert.deepEqual(pvc.status, { capacity: { storage: '1Gi' } });
  });

  it('LimitRange: every limit map', () => {
    const lr: KubeObject = {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'l' },
      spec: {
        limits: [
          {
            type: 'Container',
            max: { cpu: '2000m' },
            min: { memory: '0.5Gi' },
            default: { cpu: 1 },
            defaultRequest: { cpu: '0.25' },
            maxLimitRequestRatio: { cpu: '10' },
          },
        ],
      },
    };
    canonicalizeQuantities('io.k8s.api.core.v1.LimitRange', lr);
    assert.deepEqual((lr.spec as Record<string, any>).limits[0], {
      type: 'Container',
      max: { cpu: '2' },
      min: { memory: '512Mi' },
      default: { cpu: '1' },
      defaultRequest: { cpu: '250m' },
      maxLimitRequestRatio: { cpu: '10' },
    });
  });

  it('leaves null, invalid text and unknown definitions alone', () => {
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [container({ limits: { cpu: 'half', memory: null } })], volumes: [{ name: 'v', emptyDir: { sizeLimit: null } }] },
    };
    const before = structuredClone(pod);
    canonicalizeQuantities('io.k8s.api.core.v1.Pod', pod);
    assert.deepEqual(pod, before);
    const other: KubeObject = { apiVersion: 'example.com/v1', kind: 'Thing', spec: { cpu: '1000m' } };
    canonicalizeQuantities('com.example.v1.Thing', other);
    assert.deepEqual(other.spec, { cpu: '1000m' });
  });

  it('keeps __proto__ map keys as data', () => {
    const limits = JSON.parse('{"__proto__": "1000m", "cpu": "1000m"}') as Record<string, unknown>;
    const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [container({ limits })] } };
    canonicalizeQuantities('io.k8s.api.core.v1.Pod', pod);
    assert.deepEqual(Object.entries(limits), [
      ['__proto__', '1'],
      ['cpu', '1'],
    ]);
    assert.equal(Object.getPrototypeOf(limits), Object.prototype);
  });
});

describe('quantities in protobuf', () => {
  it('Marshal writes String(); Unmarshal parses, so JSON reads the canonical form', () => {
    const rq = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { cpu: '1000m', memory: '1.5Gi', pods: 10 } } };
    const wire = encodeProtobufObject(rq);
    assert.ok(wire.includes(Buffer.from('1536Mi')));
    assert.ok(!wire.includes(Buffer.from('1000m')));
    assert.deepEqual(decodeProtobufObject(wire).object['spec'], { hard: { cpu: '1', memory: '1536Mi', pods: '10' } });
  });
});
