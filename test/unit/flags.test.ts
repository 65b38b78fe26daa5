/**
 * Command-line flags in pflag's syntax (kube-apiserver's): `--name=value`,
 * `--name value`, bool forms, one-letter shorthands, Go durations, repeatable
 * list flags, pflag's error texts; and `capstan serve` config defaults and
 * validation.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { join } from 'node:path';

import { FlagError, parseDuration, parseFlags, usage, type FlagSpec, type FlagValue } from '../../src/server/flags.js';
import { FLAG_SPECS, configFromFlags, defaultConfig } from '../../src/server/options.js';
import { FeatureGates } from '../../src/machinery/feature-gates.js';

const SPECS: FlagSpec[] = [
  { name: 'name', type: 'string', default: 'd', help: 'A name.' },
  { name: 'port', type: 'int', default: '6443', help: 'A port.' },
  { name: 'help', type: 'bool', default: 'false', help: 'Help.' },
  { name: 'delay', type: 'duration', default: '0s', help: 'A delay.' },
  { name: 'rc', type: 'stringList', default: '', help: 'Pairs.' },
  { name: 'fg', type: 'stringArray', default: '', help: 'Whole values.' },
  { name: 'v', type: 'int', default: '0', help: 'Verbosity.' },
];

function flagError(fn: () => unknown, message: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof FlagError, `expected a FlagError, got ${String(err)}`);
    assert.equal(err.message, message);
    return true;
  });
}

describe('parseDuration (Go time.ParseDuration)', () => {
  const ok: Array<[string, number]> = [
    ['0', 0],
    ['0s', 0],
    ['300ms', 300],
    ['5s', 5000],
    ['1m30s', 90_000],
    ['2h', 7_200_000],
    ['1.5h', 5_400_000],
    ['1h2m3s4ms', 3_723_004],
    ['1500us', 1.5],
    ['1500µs', 1.5],
    ['2000000ns', 2],
  ];
  for (const [text, ms] of ok) it(`${text} = ${ms}ms`, () => assert.equal(parseDuration(text), ms));

  for (const text of ['', '1', 's', '1x', '1m30', 'm1', '1 s', 'abc']) {
    it(`rejects ${JSON.stringify(text)}`, () => flagError(() => parseDuration(text), `invalid duration "${text}"`));
  }
});

describe('parseFlags', () => {
  const cases: Array<{ argv: string[]; values?: Record<string, FlagValue>; set?: string[]; args?: string[] }> = [
    { argv: [], values: { name: 'd', port: 6443, help: false, delay: 0, rc: [], fg: [], v: 0 }, set: [], args: [] },
    { argv: ['--name=x'], values: { name: 'x' }, set: ['name'] },
    { argv: ['--name', 'x'], values: { name: 'x' }, set: ['name'] },
    { argv: ['--name='], values: { name: '' }, set: ['name'] },
    { argv: ['--name=a=b'], values: { name: 'a=b' } },
    { argv: ['--name', '--port'], values: { name: '--port', port: 6443 } },
    { argv: ['--name=a', '--name=b'], values: { name: 'b' } },
    { argv: ['--port=8443'], values: { port: 8443 } },
    { argv: ['--port', '-1'], values: { port: -1 } },
    // Bool flags: bare means true; a value needs `=`.
    { argv: ['--help'], values: { help: true }, set: ['help'] },
    { argv: ['--help=false'], values: { help: false }, set: ['help'] },
    { argv: ['--help=0'], values: { help: false } },
    { argv: ['--help=1'], values: { help: true } },
    { argv: ['--help=t'], values: { help: true } },
    { argv: ['--help=F'], values: { help: false } },
    { argv: ['--help=TRUE'], values: { help: true } },
    { argv: ['--help', 'false'], values: { help: true }, args: ['false'] },
    { argv: ['--delay=1m30s'], values: { delay: 90_000 } },
    { argv: ['--delay', '250ms'], values: { delay: 250 } },
    // List flags: comma-separated, repeatable; the first use replaces the default.
    { argv: ['--rc=api/all=true,batch/v1=false', '--rc', 'x=1'], values: { rc: ['api/all=true', 'batch/v1=false', 'x=1'] } },
    { argv: ['--rc='], values: { rc: [] } },
    // stringArray: each use is one element, commas and all.
    { argv: ['--fg=A=true,B=false', '--fg', 'C=true'], values: { fg: ['A=true,B=false', 'C=true'] } },
    { argv: [], values: { fg: [] } },
    // One-letter flags take a single dash: -v=2, -v 3, -v4.
    { argv: ['-v=2'], values: { v: 2 }, set: ['v'] },
    { argv: ['-v', '3'], values: { v: 3 } },
    { argv: ['-v4'], values: { v: 4 } },
    { argv: ['--v=5'], values: { v: 5 } },
    // Positional arguments, `--` and `-`.
    { argv: ['serve', '--port', '1', 'extra'], values: { port: 1 }, args: ['serve', 'extra'] },
    { argv: ['--', '--port=1', '-x'], values: { port: 6443 }, args: ['--port=1', '-x'] },
    { argv: ['-'], args: ['-'] },
  ];
  for (const c of cases) {
    it(c.argv.join(' ') || '(none)', () => {
      const p = parseFlags(c.argv, SPECS);
      for (const [k, v] of Object.entries(c.values ?? {})) assert.deepEqual(p.values.get(k), v, k);
      if (c.set) assert.deepEqual([...p.set].sort(), [...c.set].sort());
      if (c.args) assert.deepEqual(p.args, c.args);
    });
  }

  const errors: Array<{ argv: string[]; message: string }> = [
    { argv: ['--foo'], message: 'unknown flag: --foo' },
    { argv: ['--foo=bar'], message: 'unknown flag: --foo' },
    { argv: ['serve', '--nam=x'], message: 'unknown flag: --nam' },
    { argv: ['-x'], message: "unknown shorthand flag: 'x' in -x" },
    // A long name with one dash is a run of shorthands to pflag.
    { argv: ['-name=x'], message: "unknown shorthand flag: 'n' in -name=x" },
    { argv: ['-port', '1'], message: "unknown shorthand flag: 'p' in -port" },
    { argv: ['--name'], message: 'flag needs an argument: --name' },
    { argv: ['--delay'], message: 'flag needs an argument: --delay' },
    { argv: ['-v'], message: "flag needs an argument: 'v' in -v" },
    { argv: ['--port=x'], message: 'invalid argument "x" for "--port" flag: strconv.ParseInt: parsing "x": invalid syntax' },
    { argv: ['--port', '1.5'], message: 'invalid argument "1.5" for "--port" flag: strconv.ParseInt: parsing "1.5": invalid syntax' },
    { argv: ['--help=maybe'], message: 'invalid argument "maybe" for "--help" flag: strconv.ParseBool: parsing "maybe": invalid syntax' },
    { argv: ['--delay=abc'], message: 'invalid argument "abc" for "--delay" flag: time: invalid duration "abc"' },
    { argv: ['--delay', '10'], message: 'invalid argument "10" for "--delay" flag: time: invalid duration "10"' },
  ];
  for (const c of errors) it(`rejects ${c.argv.join(' ')}`, () => flagError(() => parseFlags(c.argv, SPECS), c.message));
});

describe('usage', () => {
  it('lists each flag with its type, help and default', () => {
    const text = usage(SPECS);
    assert.ok(text.includes('      --name string\n            A name. (default "d")'), text);
    assert.ok(text.includes('      --port int\n            A port. (default 6443)'), text);
    assert.ok(text.includes('      --help\n            Help. (default false)'), text);
    assert.ok(text.includes('      --rc strings\n            Pairs.\n'), text);
    assert.equal(text.split('\n').length, SPECS.length * 2);
  });
});

describe('serve configuration', () => {
  const cwd = '/srv/capstan';

  it('defaults', () => {
    const { config, help, args } = configFromFlags([], cwd);
    assert.equal(help, false);
    assert.deepEqual(args, []);
    assert.deepEqual(config, {
      securePort: 6443,
      bindAddress: '127.0.0.1',
      dataDir: '/srv/capstan/.capstan',
      certDir: '/srv/capstan/.capstan/pki',
      storageBackend: 'sqlite',
      etcdServers: [],
      etcdPrefix: '/registry',
      etcdCompactionInterval: 300_000,
      sqliteSynchronous: 'NORMAL',
      runtimeConfig: [],
      adminKubeconfig: '/srv/capstan/.capstan/admin.kubeconfig',
      livezGracePeriod: 0,
      shutdownDelay: 0,
      watchHistory: 300_000,
      watchCacheCapacity: 100_000,
      serviceClusterIpRange: '10.0.0.0/24',
      serviceNodePortRange: '30000-32767',
      enableAggregatorRouting: true,
      leaderElect: true,
      leaderElectLeaseDuration: 15_000,
      leaderElectRenewDeadline: 10_000,
      leaderElectRetryPeriod: 2000,
      requestTimeout: 60_000,
      maxRequestsInflight: 400,
      minRequestTimeout: 1800,
      maxMutatingRequestsInflight: 200,
      verbosity: 0,
      featureGates: FeatureGates.defaults(),
      anonymousAuth: true,
      tokenAuthn: {
        enableBootstrapTokenAuth: false,
        serviceAccountKeyFiles: [],
        serviceAccountIssuers: ['https://kubernetes.default.svc.cluster.local'],
        serviceAccountJwksUri: '',
        apiAudiences: ['https://kubernetes.default.svc.cluster.local'],
        serviceAccountLookup: true,
        serviceAccountMaxTokenExpiration: 0,
        serviceAccountExtendTokenExpiration: true,
      },
      // --authorization-mode's default (added with RBAC).
      authorizationModes: ['Node', 'RBAC'],
    });
  });

  it("token authentication flags: kube's names, defaults and checks", () => {
    const { config } = configFromFlags(
      ['--anonymous-auth=false', '--token-auth-file', 't.csv', '--enable-bootstrap-token-auth', '--service-account-key-file', 'a.pem', '--service-account-key-file=b.pem', '--service-account-signing-key-file', 'sa.key', '--service-account-issuer', 'https://one', '--service-account-issuer', 'https://two', '--service-account-max-token-expiration', '2h', '--service-account-lookup=false'],
      cwd,
    );
    assert.equal(config.anonymousAuth, false);
    assert.equal(config.tokenAuthn.tokenAuthFile, '/srv/capstan/t.csv');
    assert.equal(config.tokenAuthn.enableBootstrapTokenAuth, true);
    assert.deepEqual(config.tokenAuthn.serviceAccountKeyFiles, ['/srv/capstan/a.pem', '/srv/capstan/b.pem']);
    assert.equal(config.tokenAuthn.serviceAccountSigningKeyFile, '/srv/capstan/sa.key');
    assert.deepEqual(config.tokenAuthn.serviceAccountIssuers, ['https://one', 'https://two']);
    assert.deepEqual(config.tokenAuthn.apiAudiences, ['https://one', 'https://two'], '--api-audiences defaults to the issuers');
    assert.equal(config.tokenAuthn.serviceAccountMaxTokenExpiration, 7_200_000);
    assert.equal(config.tokenAuthn.serviceAccountLookup, false);
    assert.deepEqual(configFromFlags(['--api-audiences=a,b'], cwd).config.tokenAuthn.apiAudiences, ['a', 'b']);
    assert.throws(() => configFromFlags(['--service-account-max-token-expiration=30m'], cwd), { message: 'the service-account-max-token-expiration must be between 1 hour and 2^32 seconds' });
    assert.throws(() => configFromFlags(['--service-account-issuer=https://x', '--service-account-issuer=https://x'], cwd), { message: 'service-account-issuer "https://x" is already specified' });
    assert.throws(() => configFromFlags(['--service-account-jwks-uri=http://x/jwks'], cwd), { message: 'service-account-jwks-uri requires https scheme, parsed as: http://x/jwks' });
  });

  it('--request-timeout, --max-requests-inflight, --max-mutating-requests-inflight: kube defaults and validation', () => {
    const { config } = configFromFlags(['--request-timeout=30s', '--max-requests-inflight=0', '--max-mutating-requests-inflight', '7'], cwd);
    assert.equal(config.requestTimeout, 30_000);
    assert.equal(config.maxRequestsInflight, 0);
    assert.equal(config.maxMutatingRequestsInflight, 7);
    assert.throws(() => configFromFlags(['--max-requests-inflight=-1'], cwd), /--max-requests-inflight can not be negative value/);
    assert.throws(() => configFromFlags(['--max-mutating-requests-inflight=-1'], cwd), /--max-mutating-requests-inflight can not be negative value/);
  });

  it('--min-request-timeout: kube default 1800 seconds, 0 allowed, negative refused with kube\'s text', () => {
    assert.equal(configFromFlags([], cwd).config.minRequestTimeout, 1800);
    assert.equal(defaultConfig().minRequestTimeout, 1800);
    assert.equal(configFromFlags(['--min-request-timeout=0'], cwd).config.minRequestTimeout, 0);
    assert.equal(configFromFlags(['--min-request-timeout', '60'], cwd).config.minRequestTimeout, 60);
    assert.throws(() => configFromFlags(['--min-request-timeout=-1'], cwd), { message: '--min-request-timeout can not be negative value' });
  });

  it('--feature-gates: kube syntax, later values win, AllowUnsafeMalformedObjectDeletion off by default (alpha in 1.36)', () => {
    const gate = 'AllowUnsafeMalformedObjectDeletion';
    const gates = (...argv: string[]): FeatureGates => configFromFlags(argv, cwd).config.featureGates;
    assert.equal(gates().enabled(gate), false);
    assert.equal(gates(`--feature-gates=${gate}=true`).enabled(gate), true);
    assert.equal(gates('--feature-gates', ` ${gate} = True ,`).enabled(gate), true);
    assert.equal(gates(`--feature-gates=${gate}=true`, `--feature-gates=${gate}=false`).enabled(gate), false);
    assert.equal(gates(`--feature-gates=${gate}=t`, '--feature-gates=').enabled(gate), true);
  });

  it('--feature-gates: unknown gates and bad values exit with kube\'s messages', () => {
    const gate = 'AllowUnsafeMalformedObjectDeletion';
    const cases: Array<[string, string]> = [
      [`Nope=true,${gate}=true`, `invalid argument "Nope=true,${gate}=true" for "--feature-gates" flag: unrecognized feature gate: Nope`],
      [gate, `invalid argument "${gate}" for "--feature-gates" flag: missing bool value for ${gate}`],
      [`${gate}=yes`, `invalid argument "${gate}=yes" for "--feature-gates" flag: invalid value of ${gate}=yes, err: strconv.ParseBool: parsing "yes": invalid syntax`],
    ];
    for (const [value, message] of cases) flagError(() => configFromFlags([`--feature-gates=${value}`], cwd), message);
  });

  it('--default-not-ready-toleration-seconds / --default-unreachable-toleration-seconds: 300 each unless given', () => {
    assert.equal(configFromFlags([], cwd).config.defaultTolerationSeconds, undefined, 'the plugin\'s own 300 s');
    const { config } = configFromFlags(['--default-not-ready-toleration-seconds=60', '--default-unreachable-toleration-seconds', '90'], cwd);
    assert.deepEqual(config.defaultTolerationSeconds, { notReady: 60, unreachable: 90 });
    assert.deepEqual(configFromFlags(['--default-unreachable-toleration-seconds=5'], cwd).config.defaultTolerationSeconds, { notReady: 300, unreachable: 5 });
  });

  it('every flag has help text and a parseable default', () => {
    for (const s of FLAG_SPECS) assert.ok(s.help.length > 0, s.name);
    assert.doesNotThrow(() => parseFlags([], FLAG_SPECS));
  });

  it('paths resolve against the working directory; TLS files are optional', () => {
    const { config } = configFromFlags(
      ['--data-dir', 'state', '--cert-dir=/etc/pki', '--tls-cert-file', 'tls.crt', '--tls-private-key-file=tls.key', '--client-ca-file', '../ca.crt', '--admin-kubeconfig', 'kc'],
      cwd,
    );
    assert.equal(config.dataDir, '/srv/capstan/state');
    assert.equal(config.certDir, '/etc/pki');
    assert.equal(config.tlsCertFile, '/srv/capstan/tls.crt');
    assert.equal(config.tlsPrivateKeyFile, '/srv/capstan/tls.key');
    assert.equal(config.clientCaFile, '/srv/ca.crt');
    assert.equal(config.adminKubeconfig, '/srv/capstan/kc');
    assert.equal(configFromFlags([], cwd).config.tlsCertFile, undefined);
  });

  it('--cluster-signing-*: kube-controller-manager\'s flags, default duration a year, its Validate texts', () => {
    assert.equal(configFromFlags([], cwd).config.csrSigning, undefined);
    const one = configFromFlags(['--cluster-signing-cert-file', 'ca.crt', '--cluster-signing-key-file=/k/ca.key', '--cluster-signing-duration', '2h'], cwd).config.csrSigning!;
    assert.deepEqual(one.cluster, { certFile: '/srv/capstan/ca.crt', keyFile: '/k/ca.key' });
    assert.equal(one.perSigner.size, 0);
    assert.equal(one.durationMs, 2 * 3600_000);
    const per = configFromFlags(['--cluster-signing-kubelet-serving-cert-file=s.crt', '--cluster-signing-kubelet-serving-key-file=s.key'], cwd).config.csrSigning!;
    assert.deepEqual([...per.perSigner], [['kubernetes.io/kubelet-serving', { certFile: '/srv/capstan/s.crt', keyFile: '/srv/capstan/s.key' }]]);
    assert.equal(per.durationMs, 8760 * 3600_000);
    assert.throws(() => configFromFlags(['--cluster-signing-kubelet-client-key-file=k'], cwd), { message: '"cluster-signing-kube-apiserver-client": cannot specify key without cert' });
    assert.throws(() => configFromFlags(['--cluster-signing-kube-apiserver-client-cert-file=c', '--cluster-signing-legacy-unknown-cert-file=c'], cwd), {
      message: '["cluster-signing-kube-apiserver": cannot specify cert without key, "cluster-signing-legacy-unknown": cannot specify cert without key]',
    });
    assert.throws(() => configFromFlags(['--cluster-signing-cert-file=c', '--cluster-signing-key-file=k', '--cluster-signing-legacy-unknown-cert-file=c', '--cluster-signing-legacy-unknown-key-file=k'], cwd), {
      message: 'cannot specify --cluster-signing-{cert,key}-file and other --cluster-signing-*-file flags at the same time',
    });
  });

  it('reads the other flags', () => {
    const { config, help, args } = configFromFlags(
      [
        'serve',
        '--secure-port=0',
        '--bind-address',
        '0.0.0.0',
        '--storage-backend=memory',
        '--sqlite-synchronous=full',
        '--runtime-config=api/all=true',
        '--runtime-config',
        'batch/v1=false',
        '--livez-grace-period=1m',
        '--shutdown-delay-duration=1500ms',
        '--watch-cache-history=10m',
        '-v=4',
        '--help',
      ],
      cwd,
    );
    assert.equal(help, true);
    assert.deepEqual(args, ['serve']);
    assert.equal(config.securePort, 0);
    assert.equal(config.bindAddress, '0.0.0.0');
    assert.equal(config.storageBackend, 'memory');
    assert.equal(config.sqliteSynchronous, 'FULL');
    assert.deepEqual(config.runtimeConfig, ['api/all=true', 'batch/v1=false']);
    assert.equal(config.livezGracePeriod, 60_000);
    assert.equal(config.shutdownDelay, 1500);
    assert.equal(config.watchHistory, 600_000);
    assert.equal(config.verbosity, 4);
  });

  const invalid: Array<{ argv: string[]; message: string }> = [
    { argv: ['--storage-backend=etcd3'], message: '--etcd-servers must be specified' },
    { argv: ['--storage-backend=etcd3', '--etcd-servers=http://a:2379/x'], message: 'invalid argument "http://a:2379/x" for "--etcd-servers": must be scheme://host:port' },
    { argv: ['--etcd-prefix=registry'], message: 'invalid argument "registry" for "--etcd-prefix": must start with /' },
    { argv: ['--storage-backend=bolt'], message: 'invalid argument "bolt" for "--storage-backend": must be one of sqlite, etcd3, memory' },
    { argv: ['--sqlite-synchronous=extra'], message: 'invalid argument "EXTRA" for "--sqlite-synchronous": must be NORMAL or FULL' },
    { argv: ['--secure-port=65536'], message: '--secure-port 65536 must be between 0 and 65535, inclusive' },
    { argv: ['--secure-port=-1'], message: '--secure-port -1 must be between 0 and 65535, inclusive' },
    { argv: ['--leader-elect-lease-duration=10s'], message: 'leaseDuration must be greater than renewDeadline' },
    { argv: ['--leader-elect-renew-deadline=2s'], message: 'renewDeadline must be greater than retryPeriod*JitterFactor' },
    { argv: ['--etcd-compaction-interval=soon'], message: 'invalid argument "soon" for "--etcd-compaction-interval" flag: time: invalid duration "soon"' },
    { argv: ['--watch-cache-history=forever'], message: 'invalid argument "forever" for "--watch-cache-history" flag: time: invalid duration "forever"' },
  ];
  for (const c of invalid) it(`rejects ${c.argv.join(' ')}`, () => flagError(() => configFromFlags(c.argv, cwd), c.message));

  it('reads the etcd3 flags with kube-apiserver defaults', () => {
    const { config } = configFromFlags(['--storage-backend=etcd3', '--etcd-servers=http://127.0.0.1:2379,https://10.0.0.2:2379', '--etcd-servers', '127.0.0.1:3379', '--etcd-cafile=ca.pem', '--etcd-certfile', 'c.pem', '--etcd-keyfile=k.pem'], cwd);
    assert.equal(config.storageBackend, 'etcd3');
    assert.deepEqual(config.etcdServers, ['http://127.0.0.1:2379', 'https://10.0.0.2:2379', '127.0.0.1:3379']);
    assert.equal(config.etcdPrefix, '/registry');
    assert.equal(config.etcdCompactionInterval, 300_000);
    assert.equal(config.etcdCaFile, join(cwd, 'ca.pem'));
    assert.equal(config.etcdCertFile, join(cwd, 'c.pem'));
    assert.equal(config.etcdKeyFile, join(cwd, 'k.pem'));
    const other = configFromFlags(['--etcd-prefix=/kubernetes.io', '--etcd-compaction-interval=0'], cwd).config;
    assert.equal(other.etcdPrefix, '/kubernetes.io');
    assert.equal(other.etcdCompactionInterval, 0);
    assert.equal(config.leaderElect, true);
    assert.deepEqual([config.leaderElectLeaseDuration, config.leaderElectRenewDeadline, config.leaderElectRetryPeriod], [15_000, 10_000, 2000]);
  });

  it('defaultConfig overrides and derives paths from dataDir', () => {
    const config = defaultConfig({ dataDir: '/tmp/cap', storageBackend: 'memory', securePort: 0 });
    assert.equal(config.dataDir, '/tmp/cap');
    assert.equal(config.certDir, '/tmp/cap/pki');
    assert.equal(config.adminKubeconfig, '/tmp/cap/admin.kubeconfig');
    assert.equal(config.storageBackend, 'memory');
    assert.equal(config.securePort, 0);
    assert.equal(defaultConfig({ dataDir: '/tmp/cap', certDir: '/c' }).certDir, '/c');
  });
});
