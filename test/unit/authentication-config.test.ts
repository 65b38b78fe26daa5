import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  aggregateMessage,
  EMAIL_VERIFIED_REQUIRED,
  parseAuthenticationConfig,
  validateAuthenticationConfig,
  type AuthenticationConfiguration,
  type JwtAuthenticatorConfig,
} from '../../src/authn/authentication-config.js';
import { ANONYMOUS_CONFLICT, JwtAuthenticators } from '../../src/authn/authentication-config-controller.js';
import { jwtAuthenticatorFromOidcFlags, type OidcFlags } from '../../src/authn/oidc.js';
import { stderrLogger } from '../../src/machinery/logger.js';
import { configFromFlags } from '../../src/server/options.js';
import { FlagError } from '../../src/server/flags.js';
import { AuthenticationSetupError, buildTokenAuthentication } from '../../src/server/token-authn.js';
import { ROOT, removeDir, tempDir } from '../helpers/server.js';

/** AuthenticationConfiguration: decoding, kube's validation messages, the --oidc-* flag mapping and the start-up refusals. */

const jwt = (over: Partial<JwtAuthenticatorConfig> = {}): JwtAuthenticatorConfig => ({
  issuer: { url: 'https://issuer.example', audiences: ['capstan'] },
  claimMappings: { username: { claim: 'sub', prefix: '' } },
  ...over,
});

function messages(c: AuthenticationConfiguration, disallowedIssuers: string[] = []): string {
  return aggregateMessage(validateAuthenticationConfig(c, { disallowedIssuers }));
}

describe('AuthenticationConfiguration validation', () => {
  it('accepts a claim-based configuration', () => {
    assert.deepEqual(validateAuthenticationConfig({ jwt: [jwt()] }, { disallowedIssuers: [] }), []);
  });

  it('reports issuer problems with kube field paths and texts', () => {
    assert.equal(messages({ jwt: [jwt({ issuer: { url: '', audiences: ['a'] } })] }), 'jwt[0].issuer.url: Required value: URL is required');
    assert.equal(messages({ jwt: [jwt({ issuer: { url: 'http://issuer.example', audiences: ['a'] } })] }), 'jwt[0].issuer.url: Invalid value: "http://issuer.example": URL scheme must be https');
    assert.equal(
      messages({ jwt: [jwt({ issuer: { url: 'https://u:p@issuer.example?x=1', audiences: ['a'] } })] }),
      '[jwt[0].issuer.url: Invalid value: "https://u:p@issuer.example?x=1": URL must not contain a username or password, jwt[0].issuer.url: Invalid value: "https://u:p@issuer.example?x=1": URL must not contain a query]',
    );
    assert.equal(messages({ jwt: [jwt({ issuer: { url: 'https://issuer.example', discoveryURL: 'https://issuer.example/', audiences: ['a'] } })] }), 'jwt[0].issuer.discoveryURL: Invalid value: "https://issuer.example/": discoveryURL must be different from URL');
    assert.equal(messages({ jwt: [jwt({ issuer: { url: 'https://issuer.example', audiences: [] } })] }), 'jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required');
    assert.equal(messages({ jwt: [jwt({ issuer: { url: 'https://issuer.example', audiences: ['a', 'b'] } })] }), 'jwt[0].issuer.audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences');
    assert.equal(messages({ jwt: [jwt({ issuer: { url: 'https://issuer.example', audiences: ['a'], audienceMatchPolicy: 'MatchAll' } })] }), 'jwt[0].issuer.audienceMatchPolicy: Invalid value: "MatchAll": audienceMatchPolicy must be empty or MatchAny for single audience');
    assert.equal(messages({ jwt: [jwt({ issuer: { url: 'https://issuer.example', audiences: ['a'], certificateAuthority: 'nope' } })] }), 'jwt[0].issuer.certificateAuthority: Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates');
    assert.equal(messages({ jwt: [jwt(), jwt()] }), 'jwt[1].issuer.url: Duplicate value: "https://issuer.example"');
    assert.equal(messages({ jwt: [jwt()] }, ['https://issuer.example']), 'jwt[0].issuer.url: Invalid value: "https://issuer.example": URL must not overlap with disallowed issuers: [https://issuer.example]');
    assert.equal(messages({ jwt: Array.from({ length: 65 }, (_, i) => jwt({ issuer: { url: `https://i${i}.example`, audiences: ['a'] } })) }), 'jwt: Too many: 65: must have at most 64 items');
  });

  it('reports claim rules and mappings problems', () => {
    assert.equal(messages({ jwt: [jwt({ claimMappings: { username: { claim: 'sub' } } })] }), 'jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing');
    assert.equal(messages({ jwt: [jwt({ claimMappings: { username: {} } })] }), 'jwt[0].claimMappings.username: Required value: claim or expression is required');
    assert.equal(messages({ jwt: [jwt({ claimValidationRules: [{}] })] }), 'jwt[0].claimValidationRules[0]: Required value: claim or expression is required');
    assert.equal(messages({ jwt: [jwt({ claimValidationRules: [{ claim: 'hd', message: 'm' }] })] }), 'jwt[0].claimValidationRules[0].message: Invalid value: "m": message can\'t be set when claim is set');
    assert.equal(messages({ jwt: [jwt({ claimValidationRules: [{ claim: 'hd' }, { claim: 'hd' }] })] }), 'jwt[0].claimValidationRules[1].claim: Duplicate value: "hd"');
    assert.equal(
      messages({ jwt: [jwt({ claimMappings: { username: { claim: 'sub', prefix: '' }, extra: [{ key: 'Example.org/Foo', valueExpression: '' }, { key: 'kubernetes.io/x', valueExpression: '' }] } })] }),
      '[jwt[0].claimMappings.extra[0].key: Invalid value: "Example.org/Foo": must be a domain-prefixed path (such as "acme.io/foo"), jwt[0].claimMappings.extra[0].key: Invalid value: "Example.org/Foo": key must be lowercase, jwt[0].claimMappings.extra[0].valueExpression: Required value: valueExpression is required, jwt[0].claimMappings.extra[1].key: Invalid value: "kubernetes.io/x": k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use, jwt[0].claimMappings.extra[1].valueExpression: Required value: valueExpression is required]',
    );
    assert.equal(messages({ jwt: [jwt({ userValidationRules: [{ expression: '' }] })] }), 'jwt[0].userValidationRules[0].expression: Required value: expression is required');
  });

  it('compiles CEL expressions at load and reports their errors as kube does', () => {
    assert.deepEqual(validateAuthenticationConfig({ jwt: [jwt({
      claimMappings: { username: { expression: "'oidc:' + claims.sub" }, groups: { expression: 'claims.roles' }, uid: { expression: 'claims.sub' }, extra: [{ key: 'example.org/team', valueExpression: 'claims.team' }] },
      claimValidationRules: [{ expression: "claims.hd == 'example.com'", message: 'wrong domain' }],
      userValidationRules: [{ expression: "!user.username.startsWith('system:')" }],
    })] }, { disallowedIssuers: [] }), []);
    assert.equal(
      messages({ jwt: [jwt({ claimMappings: { username: { expression: 'foo.bar' } } })] }),
      "jwt[0].claimMappings.username.expression: Invalid value: \"foo.bar\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo.bar\n | ^",
    );
    assert.equal(messages({ jwt: [jwt({ claimValidationRules: [{ expression: 'claims.foo' }] })] }), 'jwt[0].claimValidationRules[0].expression: Invalid value: "claims.foo": must evaluate to bool');
    assert.equal(messages({ jwt: [jwt({ userValidationRules: [{ expression: 'user.username' }] })] }), 'jwt[0].userValidationRules[0].expression: Invalid value: "user.username": must evaluate to bool');
  });

  it('requires claims.email_verified beside a username expression reading claims.email', () => {
    const username = 'has(claims.email) ? claims.email : claims.sub';
    assert.equal(
      messages({ jwt: [jwt({ claimMappings: { username: { expression: username } } })] }),
      `jwt[0].claimMappings.username.expression: Invalid value: ${JSON.stringify(username)}: ${EMAIL_VERIFIED_REQUIRED}`,
    );
    for (const with_ of [
      { claimMappings: { username: { expression: 'claims.email_verified ? claims.email : claims.sub' } } },
      { claimMappings: { username: { expression: 'claims.email' } }, claimValidationRules: [{ expression: 'claims.?email_verified.orValue(false) == true' }] },
      { claimMappings: { username: { expression: 'claims.email' }, extra: [{ key: 'example.org/v', valueExpression: 'string(claims.email_verified)' }] } },
    ]) assert.deepEqual(validateAuthenticationConfig({ jwt: [jwt(with_)] }, { disallowedIssuers: [] }), []);
    // an index is not a select, as in kube
    assert.deepEqual(validateAuthenticationConfig({ jwt: [jwt({ claimMappings: { username: { expression: "claims['email']" } } })] }, { disallowedIssuers: [] }), []);
  });

  it('checks the anonymous section', () => {
    assert.equal(
      messages({ jwt: [], anonymous: { enabled: false, conditions: [{ path: '/livez' }] } }),
      'anonymous.conditions: Invalid value: [{"Path":"/livez"}]: enabled should be set to true when conditions are defined',
    );
    assert.equal(messages({ jwt: [], anonymous: { enabled: true, conditions: [{ path: '/livez' }, { path: '/livez' }] } }), 'anonymous.conditions[1].path: Duplicate value: "/livez"');
  });

  it('decodes YAML with its apiVersion and kind, and refuses other kinds', () => {
    const c = parseAuthenticationConfig('apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt:\n- issuer: {url: "https://a", audiences: [x]}\n  claimMappings: {username: {claim: sub, prefix: ""}}\n');
    assert.deepEqual(c, { jwt: [{ issuer: { url: 'https://a', audiences: ['x'] }, claimMappings: { username: { claim: 'sub', prefix: '' } } }] });
    assert.throws(() => parseAuthenticationConfig('apiVersion: v1\nkind: ConfigMap\n'), /no kind "ConfigMap" is registered for version "v1"/);
    assert.throws(() => parseAuthenticationConfig(''), /empty config data/);
  });
});

describe('--oidc-* flags', () => {
  const flags = (over: Partial<OidcFlags>): OidcFlags => ({ issuerUrl: 'https://idp', clientId: 'c', usernameClaim: 'sub', usernamePrefix: '', groupsClaim: '', groupsPrefix: '', requiredClaims: {}, signingAlgs: ['RS256'], ...over });

  it('prefixes usernames with the issuer unless the claim is email or the prefix is -', () => {
    assert.equal(jwtAuthenticatorFromOidcFlags(flags({})).claimMappings.username.prefix, 'https://idp#');
    assert.equal(jwtAuthenticatorFromOidcFlags(flags({ usernameClaim: 'email' })).claimMappings.username.prefix, '');
    assert.equal(jwtAuthenticatorFromOidcFlags(flags({ usernamePrefix: '-' })).claimMappings.username.prefix, '');
    assert.equal(jwtAuthenticatorFromOidcFlags(flags({ usernamePrefix: 'corp:' })).claimMappings.username.prefix, 'corp:');
    assert.deepEqual(jwtAuthenticatorFromOidcFlags(flags({ requiredClaims: { hd: 'x' } })).claimValidationRules, [{ claim: 'hd', requiredValue: 'x' }]);
  });

  it('refuses the combinations kube refuses, with its messages', () => {
    assert.throws(() => configFromFlags(['--oidc-client-id', 'c']), (e: unknown) => e instanceof FlagError && e.message === 'oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set');
    assert.throws(() => configFromFlags(['--authentication-config', '/x.yaml', '--oidc-username-claim', 'email']), (e: unknown) => e instanceof FlagError && e.message === 'authentication-config file and oidc-* flags are mutually exclusive');
    assert.throws(() => configFromFlags(['--oidc-issuer-url', 'https://i', '--oidc-client-id', 'c', '--oidc-required-claim', 'novalue']), /malformed pair, expect string=string/);
    const { config } = configFromFlags(['--oidc-issuer-url', 'https://i', '--oidc-client-id', 'c', '--oidc-required-claim', 'a=b=c', '--authentication-token-webhook-config-file', '/w']);
    assert.deepEqual(config.authnExtensions?.oidc?.requiredClaims, { a: 'b=c' });
    assert.deepEqual(config.authnExtensions?.oidc?.signingAlgs, ['RS256']);
    assert.deepEqual(config.authnExtensions?.tokenWebhook, { configFile: '/w', version: 'v1beta1', cacheTtlMs: 120_000 });
  });

  it('refuses an anonymous section together with --anonymous-auth, and an invalid configuration, at start', () => {
    const dir = tempDir();
    try {
      const file = join(dir, 'a.yaml');
      writeFileSync(file, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\nanonymous:\n  enabled: true\n');
      const logger = stderrLogger();
      assert.throws(() => new JwtAuthenticators({ configFile: file, anonymousFlagSet: true, apiServerId: 'x', logger }), (e: unknown) => (e as Error).message === ANONYMOUS_CONFLICT);
      assert.throws(
        () => new JwtAuthenticators({ oidc: flags({ issuerUrl: 'http://idp' }), apiServerId: 'x', logger }),
        (e: unknown) => (e as Error).message === 'invalid authentication configuration: jwt[0].issuer.url: Invalid value: "http://idp": URL scheme must be https',
      );
      assert.throws(() => new JwtAuthenticators({ oidc: flags({ signingAlgs: ['RS256', 'HS256'] }), apiServerId: 'x', logger }), /^Error: oidc: unsupported signing alg: "HS256"$/);
      assert.throws(() => new JwtAuthenticators({ configFile: join(dir, 'missing.yaml'), apiServerId: 'x', logger }), /^Error: failed to load authentication configuration from file ".*missing.yaml": ENOENT/);
      const broken = join(dir, 'cel.yaml');
      writeFileSync(broken, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt:\n- issuer:\n    url: https://issuer.example\n    audiences: [a]\n  claimMappings:\n    username:\n      expression: "claims.sub +"\n');
      assert.throws(
        () => new JwtAuthenticators({ configFile: broken, apiServerId: 'x', logger }),
        (e: unknown) => (e as Error).message.startsWith('invalid authentication configuration: jwt[0].claimMappings.username.expression: Invalid value: "claims.sub +": compilation failed: ERROR: <input>:1:'),
      );
    } finally {
      removeDir(dir);
    }
  });

  it('capstan serve exits at start with kube\'s message for an http issuer', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'dist/src/cli/main.js'), 'serve', '--storage-backend', 'memory', '--secure-port', '0', '--oidc-issuer-url', 'http://idp.example', '--oidc-client-id', 'c'], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /^Error: invalid authentication configuration: jwt\[0\]\.issuer\.url: Invalid value: "http:\/\/idp\.example": URL scheme must be https$/m);
  });
});

describe('authentication flags together (token and extension flags)', () => {
  const build = (argv: string[]): void => {
    const { config } = configFromFlags(argv);
    const none = async (): Promise<undefined> => undefined;
    buildTokenAuthentication(config.tokenAuthn, config.authnExtensions ?? {}, {
      keyDir: undefined,
      lookups: { serviceAccounts: none, secrets: none, pods: none, nodes: none },
      logger: stderrLogger(),
      apiServerId: 'x',
    });
  };

  it('refuses --anonymous-auth given with a file that has an anonymous section', () => {
    const dir = tempDir();
    try {
      const file = join(dir, 'a.yaml');
      writeFileSync(file, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\nanonymous:\n  enabled: true\n');
      assert.throws(() => build(['--anonymous-auth=false', '--authentication-config', file]), (e: unknown) => e instanceof AuthenticationSetupError && e.message === ANONYMOUS_CONFLICT);
      assert.doesNotThrow(() => build(['--authentication-config', file]));
    } finally {
      removeDir(dir);
    }
  });

  it('refuses a JWT issuer that is a service account issuer, as kube does', () => {
    const refused = (argv: string[], issuer: string, saIssuers: string): void =>
      assert.throws(
        () => build(argv),
        (e: unknown) => e instanceof AuthenticationSetupError && e.message === `invalid authentication configuration: jwt[0].issuer.url: Invalid value: "${issuer}": URL must not overlap with disallowed issuers: [${saIssuers}]`,
      );
    refused(['--oidc-issuer-url', 'https://kubernetes.default.svc.cluster.local', '--oidc-client-id', 'c'], 'https://kubernetes.default.svc.cluster.local', 'https://kubernetes.default.svc.cluster.local');
    refused(['--service-account-issuer', 'https://sa.example', '--service-account-issuer', 'https://a.example', '--oidc-issuer-url', 'https://sa.example', '--oidc-client-id', 'c'], 'https://sa.example', 'https://a.example https://sa.example');
    assert.doesNotThrow(() => build(['--oidc-issuer-url', 'https://idp.example', '--oidc-client-id', 'c']));
  });
});
