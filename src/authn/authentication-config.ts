import { X509Certificate } from 'node:crypto';
import { load } from 'js-yaml';
import { fieldErrorString, type FieldError } from '../machinery/errors.js';
import { goStruct } from '../machinery/field-value.js';
import { compileAuthnExpression, type ExpressionInput, type ExpressionResult } from './claim-expressions.js';

/**
 * AuthenticationConfiguration (apiserver.config.k8s.io/v1), the file of
 * --authentication-config: its shape, decoding and kube's validation
 * (k8s.io/apiserver/pkg/apis/apiserver/validation), field paths and
 * messages included. The --oidc-* flags are turned into the same shape
 * (oidc.ts), so both are checked and served by one code path.
 */

export interface Issuer {
  url: string;
  discoveryURL?: string;
  certificateAuthority?: string;
  audiences: string[];
  audienceMatchPolicy?: string;
  egressSelectorType?: string;
}

export interface ClaimValidationRule {
  claim?: string;
  requiredValue?: string;
  expression?: string;
  message?: string;
}

export interface PrefixedClaimOrExpression {
  claim?: string;
  /** Required with `claim`; '' disables prefixing. */
  prefix?: string;
  expression?: string;
}

export interface ClaimOrExpression {
  claim?: string;
  expression?: string;
}

export interface ExtraMapping {
  key: string;
  valueExpression: string;
}

export interface ClaimMappings {
  username: PrefixedClaimOrExpression;
  groups?: PrefixedClaimOrExpression;
  uid?: ClaimOrExpression;
  extra?: ExtraMapping[];
}

export interface UserValidationRule {
  expression: string;
  message?: string;
}

export interface JwtAuthenticatorConfig {
  issuer: Issuer;
  claimValidationRules?: ClaimValidationRule[];
  claimMappings: ClaimMappings;
  userValidationRules?: UserValidationRule[];
}

export interface AnonymousConfig {
  enabled: boolean;
  conditions?: Array<{ path: string }>;
}

export interface AuthenticationConfiguration {
  jwt: JwtAuthenticatorConfig[];
  anonymous?: AnonymousConfig;
}

const API_VERSIONS = ['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1beta1', 'apiserver.config.k8s.io/v1alpha1'];
const MAX_JWT_AUTHENTICATORS = 64;
export const AUDIENCE_MATCH_ANY = 'MatchAny';

/** Decodes the file's YAML or JSON text (kube's loadAuthenticationConfigFromData). */
export function parseAuthenticationConfig(data: string): AuthenticationConfiguration {
  if (data.trim() === '') throw new Error('empty config data');
  let doc: unknown;
  try {
    doc = load(data);
  } catch (err) {
    throw new Error(`error converting YAML to JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isObject(doc)) throw new Error("couldn't get version/kind; json parse error: the file does not hold an object");
  const { apiVersion, kind } = doc;
  if (typeof kind !== 'string' || kind === '') throw new Error(`Object 'Kind' is missing in '${JSON.stringify(doc)}'`);
  if (typeof apiVersion !== 'string' || !API_VERSIONS.includes(apiVersion) || kind !== 'AuthenticationConfiguration') {
    throw new Error(`no kind "${kind}" is registered for version "${String(apiVersion)}" in scheme "pkg/runtime/scheme.go:100"`);
  }
  const jwt = doc.jwt ?? [];
  if (!Array.isArray(jwt)) throw new Error('json: cannot unmarshal into Go struct field AuthenticationConfiguration.jwt of type []v1.JWTAuthenticator');
  const config: AuthenticationConfiguration = { jwt: jwt.map((j, i) => jwtFrom(j, i)) };
  if (doc.anonymous !== undefined && doc.anonymous !== null) {
    const a = doc.anonymous;
    if (!isObject(a)) throw new Error('json: cannot unmarshal into Go struct field AuthenticationConfiguration.anonymous');
    config.anonymous = { enabled: a.enabled === true };
    if (Array.isArray(a.conditions)) config.anonymous.conditions = a.conditions.map((c) => ({ path: isObject(c) ? str(c.path) ?? '' : '' }));
  }
  return config;
}

function jwtFrom(j: unknown, i: number): JwtAuthenticatorConfig {
  if (!isObject(j)) throw new Error(`json: cannot unmarshal jwt[${i}] into Go struct of type v1.JWTAuthenticator`);
  const issuer = isObject(j.issuer) ? j.issuer : {};
  const mappings = isObject(j.claimMappings) ? j.claimMappings : {};
  const out: JwtAuthenticatorConfig = {
    issuer: {
      url: str(issuer.url) ?? '',
      audiences: Array.isArray(issuer.audiences) ? issuer.audiences.map((a) => String(a)) : [],
    },
    claimMappings: { username: prefixed(mappings.username) },
  };
  assign(out.issuer, 'discoveryURL', str(issuer.discoveryURL));
  assign(out.issuer, 'certificateAuthority', str(issuer.certificateAuthority));
  assign(out.issuer, 'audienceMatchPolicy', str(issuer.audienceMatchPolicy));
  assign(out.issuer, 'egressSelectorType', str(issuer.egressSelectorType));
  if (mappings.groups !== undefined) out.claimMappings.groups = prefixed(mappings.groups);
  if (isObject(mappings.uid)) {
    const uid: ClaimOrExpression = {};
    assign(uid, 'claim', str(mappings.uid.claim));
    assign(uid, 'expression', str(mappings.uid.expression));
    out.claimMappings.uid = uid;
  }
  if (Array.isArray(mappings.extra)) out.claimMappings.extra = mappings.extra.map((e) => ({ key: isObject(e) ? str(e.key) ?? '' : '', valueExpression: isObject(e) ? str(e.valueExpression) ?? '' : '' }));
  if (Array.isArray(j.claimValidationRules)) {
    out.claimValidationRules = j.claimValidationRules.map((r) => {
      const rule: ClaimValidationRule = {};
      if (isObject(r)) for (const k of ['claim', 'requiredValue', 'expression', 'message'] as const) assign(rule, k, str(r[k]));
      return rule;
    });
  }
  if (Array.isArray(j.userValidationRules)) {
    out.userValidationRules = j.userValidationRules.map((r) => {
      const rule: UserValidationRule = { expression: isObject(r) ? str(r.expression) ?? '' : '' };
      if (isObject(r)) assign(rule, 'message', str(r.message));
      return rule;
    });
  }
  return out;
}

function prefixed(v: unknown): PrefixedClaimOrExpression {
  const out: PrefixedClaimOrExpression = {};
  if (!isObject(v)) return out;
  assign(out, 'claim', str(v.claim));
  // Present-but-empty differs from absent: '' is how a claim asks for no prefix.
  if (typeof v.prefix === 'string') out.prefix = v.prefix;
  assign(out, 'expression', str(v.expression));
  return out;
}

export interface ValidationContext {
  /** The service account issuers (--service-account-issuer): a JWT issuer must differ from them. */
  disallowedIssuers: string[];
}

/** kube's ValidateAuthenticationConfiguration; an empty list means valid. */
export function validateAuthenticationConfig(c: AuthenticationConfiguration, ctx: ValidationContext): FieldError[] {
  const errs: FieldError[] = [];
  if (c.jwt.length > MAX_JWT_AUTHENTICATORS) {
    errs.push({ type: 'FieldValueTooMany', field: 'jwt', value: c.jwt.length, detail: `must have at most ${MAX_JWT_AUTHENTICATORS} items` });
    return errs;
  }
  const seenIssuers = new Set<string>();
  const seenDiscovery = new Set<string>();
  c.jwt.forEach((a, i) => {
    const path = `jwt[${i}]`;
    errs.push(...validateJwtAuthenticator(a, path, ctx));
    if (a.issuer.url) {
      if (seenIssuers.has(a.issuer.url)) errs.push({ type: 'FieldValueDuplicate', field: `${path}.issuer.url`, value: a.issuer.url });
      seenIssuers.add(a.issuer.url);
    }
    if (a.issuer.discoveryURL) {
      if (seenDiscovery.has(a.issuer.discoveryURL)) errs.push({ type: 'FieldValueDuplicate', field: `${path}.issuer.discoveryURL`, value: a.issuer.discoveryURL });
      seenDiscovery.add(a.issuer.discoveryURL);
    }
  });
  if (c.anonymous) {
    const conditions = c.anonymous.conditions ?? [];
    if (!c.anonymous.enabled && conditions.length > 0) {
      errs.push({ type: 'FieldValueInvalid', field: 'anonymous.conditions', value: conditions.map((x) => goStruct([['Path', x.path]])), detail: 'enabled should be set to true when conditions are defined' });
    }
    const seen = new Set<string>();
    conditions.forEach((cond, i) => {
      if (seen.has(cond.path)) errs.push({ type: 'FieldValueDuplicate', field: `anonymous.conditions[${i}].path`, value: cond.path });
      seen.add(cond.path);
    });
  }
  return errs;
}

function validateJwtAuthenticator(a: JwtAuthenticatorConfig, path: string, ctx: ValidationContext): FieldError[] {
  const errs: FieldError[] = [];
  const issuerPath = `${path}.issuer`;
  const iss = a.issuer;
  if (!iss.url) errs.push({ type: 'FieldValueRequired', field: `${issuerPath}.url`, detail: 'URL is required' });
  else errs.push(...validateUrl(iss.url, ctx.disallowedIssuers, `${issuerPath}.url`));
  if (iss.discoveryURL) {
    if (iss.url && trimSlashes(iss.url) === trimSlashes(iss.discoveryURL)) {
      errs.push({ type: 'FieldValueInvalid', field: `${issuerPath}.discoveryURL`, value: iss.discoveryURL, detail: 'discoveryURL must be different from URL' });
    }
    errs.push(...validateUrl(iss.discoveryURL, [], `${issuerPath}.discoveryURL`));
  }
  const audPath = `${issuerPath}.audiences`;
  if (iss.audiences.length === 0) {
    errs.push({ type: 'FieldValueRequired', field: audPath, detail: `at least one ${audPath} is required` });
  } else {
    const seen = new Set<string>();
    iss.audiences.forEach((aud, i) => {
      if (aud === '') errs.push({ type: 'FieldValueRequired', field: `${audPath}[${i}]`, detail: "audience can't be empty" });
      if (seen.has(aud)) errs.push({ type: 'FieldValueDuplicate', field: `${audPath}[${i}]`, value: aud });
      seen.add(aud);
    });
    const policy = iss.audienceMatchPolicy ?? '';
    if (iss.audiences.length > 1 && policy !== AUDIENCE_MATCH_ANY) {
      errs.push({ type: 'FieldValueInvalid', field: `${issuerPath}.audienceMatchPolicy`, value: policy, detail: 'audienceMatchPolicy must be MatchAny for multiple audiences' });
    }
    if (iss.audiences.length === 1 && policy !== '' && policy !== AUDIENCE_MATCH_ANY) {
      errs.push({ type: 'FieldValueInvalid', field: `${issuerPath}.audienceMatchPolicy`, value: policy, detail: 'audienceMatchPolicy must be empty or MatchAny for single audience' });
    }
  }
  if (iss.certificateAuthority && !hasCertificate(iss.certificateAuthority)) {
    errs.push({ type: 'FieldValueInvalid', field: `${issuerPath}.certificateAuthority`, value: '<omitted>', detail: 'data does not contain any valid RSA or ECDSA certificates' });
  }
  if (iss.egressSelectorType !== undefined && iss.egressSelectorType !== 'controlplane' && iss.egressSelectorType !== 'cluster') {
    errs.push({ type: 'FieldValueNotSupported', field: `${issuerPath}.egressSelectorType`, value: iss.egressSelectorType, supported: ['cluster', 'controlplane'] });
  }
  const email: EmailUse = { email: false, emailVerified: false };
  errs.push(...validateClaimValidationRules(a.claimValidationRules ?? [], `${path}.claimValidationRules`, email));
  errs.push(...validateClaimMappings(a.claimMappings, `${path}.claimMappings`, email));
  errs.push(...validateUserValidationRules(a.userValidationRules ?? [], `${path}.userValidationRules`));
  return errs;
}

function validateUrl(raw: string, disallowed: string[], field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (disallowed.includes(raw)) errs.push({ type: 'FieldValueInvalid', field, value: raw, detail: `URL must not overlap with disallowed issuers: [${[...disallowed].sort().join(' ')}]` });
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    errs.push({ type: 'FieldValueInvalid', field, value: raw, detail: 'URL scheme must be https' });
    return errs;
  }
  if (u.protocol !== 'https:') errs.push({ type: 'FieldValueInvalid', field, value: raw, detail: 'URL scheme must be https' });
  if (u.username || u.password) errs.push({ type: 'FieldValueInvalid', field, value: raw, detail: 'URL must not contain a username or password' });
  if (u.search.length > 1 || raw.includes('?')) errs.push({ type: 'FieldValueInvalid', field, value: raw, detail: 'URL must not contain a query' });
  if (u.hash.length > 1) errs.push({ type: 'FieldValueInvalid', field, value: raw, detail: 'URL must not contain a fragment' });
  return errs;
}

/**
 * Whether the username expression reads claims.email and whether some
 * expression reads claims.email_verified: kube refuses the first without
 * the second (an unverified address must not become a username).
 */
interface EmailUse {
  email: boolean;
  emailVerified: boolean;
}

export const EMAIL_VERIFIED_REQUIRED = 'claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression';

function validateClaimValidationRules(rules: ClaimValidationRule[], path: string, email: EmailUse): FieldError[] {
  const errs: FieldError[] = [];
  const seenClaims = new Set<string>();
  const seenExpressions = new Set<string>();
  rules.forEach((rule, i) => {
    const p = `${path}[${i}]`;
    if (rule.claim && rule.expression) errs.push({ type: 'FieldValueInvalid', field: p, value: rule.claim, detail: "claim and expression can't both be set" });
    else if (!rule.claim && !rule.expression) errs.push({ type: 'FieldValueRequired', field: p, detail: 'claim or expression is required' });
    else if (rule.claim) {
      if (rule.message) errs.push({ type: 'FieldValueInvalid', field: `${p}.message`, value: rule.message, detail: "message can't be set when claim is set" });
      if (seenClaims.has(rule.claim)) errs.push({ type: 'FieldValueDuplicate', field: `${p}.claim`, value: rule.claim });
      seenClaims.add(rule.claim);
    } else if (rule.expression) {
      if (rule.requiredValue) errs.push({ type: 'FieldValueInvalid', field: `${p}.requiredValue`, value: rule.requiredValue, detail: "requiredValue can't be set when expression is set" });
      if (seenExpressions.has(rule.expression)) {
        errs.push({ type: 'FieldValueDuplicate', field: `${p}.expression`, value: rule.expression });
        return;
      }
      seenExpressions.add(rule.expression);
      errs.push(...compileError(rule.expression, 'claims', 'bool', `${p}.expression`, email));
    }
  });
  return errs;
}

function validateClaimMappings(m: ClaimMappings, path: string, email: EmailUse): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...validatePrefixed(m.username, `${path}.username`, true, email));
  if (m.groups) errs.push(...validatePrefixed(m.groups, `${path}.groups`, false));
  if (m.uid?.claim && m.uid.expression) errs.push({ type: 'FieldValueInvalid', field: `${path}.uid`, value: '', detail: "claim and expression can't both be set" });
  else if (m.uid?.expression) errs.push(...compileError(m.uid.expression, 'claims', 'any', `${path}.uid.expression`));
  const seenKeys = new Set<string>();
  (m.extra ?? []).forEach((mapping, i) => {
    const p = `${path}.extra[${i}]`;
    errs.push(...validateExtraKey(mapping.key, `${p}.key`));
    if (seenKeys.has(mapping.key)) {
      errs.push({ type: 'FieldValueDuplicate', field: `${p}.key`, value: mapping.key });
      return;
    }
    seenKeys.add(mapping.key);
    if (!mapping.valueExpression) {
      errs.push({ type: 'FieldValueRequired', field: `${p}.valueExpression`, detail: 'valueExpression is required' });
      return;
    }
    errs.push(...compileError(mapping.valueExpression, 'claims', 'any', `${p}.valueExpression`, email));
  });
  if (email.email && !email.emailVerified) {
    errs.push({ type: 'FieldValueInvalid', field: `${path}.username.expression`, value: m.username.expression ?? '', detail: EMAIL_VERIFIED_REQUIRED });
  }
  return errs;
}

/** `email` is given for the username mapping, whose use of claims.email is tracked. */
function validatePrefixed(m: PrefixedClaimOrExpression, path: string, required: boolean, email?: EmailUse): FieldError[] {
  if (m.expression && m.claim) return [{ type: 'FieldValueInvalid', field: path, value: '', detail: "claim and expression can't both be set" }];
  if (!m.expression && !m.claim) return required ? [{ type: 'FieldValueRequired', field: path, detail: 'claim or expression is required' }] : [];
  if (m.expression) {
    const errs: FieldError[] = [];
    if (m.prefix !== undefined) errs.push({ type: 'FieldValueInvalid', field: `${path}.prefix`, value: m.prefix, detail: "prefix can't be set when expression is set" });
    errs.push(...compileError(m.expression, 'claims', 'any', `${path}.expression`, email, true));
    return errs;
  }
  if (m.prefix === undefined) return [{ type: 'FieldValueRequired', field: `${path}.prefix`, detail: 'prefix is required when claim is set. It can be set to an empty string to disable prefixing' }];
  return [];
}

function validateUserValidationRules(rules: UserValidationRule[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  rules.forEach((rule, i) => {
    const p = `${path}[${i}]`;
    if (!rule.expression) {
      errs.push({ type: 'FieldValueRequired', field: `${p}.expression`, detail: 'expression is required' });
      return;
    }
    if (seen.has(rule.expression)) {
      errs.push({ type: 'FieldValueDuplicate', field: `${p}.expression`, value: rule.expression });
      return;
    }
    seen.add(rule.expression);
    errs.push(...compileError(rule.expression, 'user', 'bool', `${p}.expression`));
  });
  return errs;
}

const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function validateExtraKey(key: string, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const slash = key.indexOf('/');
  const domain = slash > 0 ? key.slice(0, slash) : '';
  if (slash <= 0 || slash === key.length - 1 || !DNS_SUBDOMAIN.test(domain)) {
    errs.push({ type: 'FieldValueInvalid', field, value: key, detail: 'must be a domain-prefixed path (such as "acme.io/foo")' });
  }
  if (key !== key.toLowerCase()) errs.push({ type: 'FieldValueInvalid', field, value: key, detail: 'key must be lowercase' });
  const d = domain.toLowerCase();
  if (['k8s.io', 'kubernetes.io'].some((r) => d === r || d.endsWith(`.${r}`))) {
    errs.push({ type: 'FieldValueInvalid', field, value: key, detail: 'k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use' });
  }
  return errs;
}

/**
 * Compiles an expression (kube compiles at load, so a broken one refuses the
 * file) and notes its use of claims.email_verified (and, for the username,
 * of claims.email).
 */
function compileError(expression: string, over: ExpressionInput, returns: ExpressionResult, field: string, email?: EmailUse, isUsername = false): FieldError[] {
  const compiled = compileAuthnExpression(expression, over, returns, field);
  if ('error' in compiled) return [compiled.error];
  if (email) {
    if (compiled.program.selects('claims', 'email_verified')) email.emailVerified = true;
    if (isUsername && compiled.program.selects('claims', 'email')) email.email = true;
  }
  return [];
}

export { aggregateMessage } from '../machinery/errors.js';

function hasCertificate(pem: string): boolean {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.some((b) => {
    try {
      new X509Certificate(b);
      return true;
    } catch {
      return false;
    }
  });
}

function trimSlashes(s: string): string {
  return s.replace(/\/+$/, '');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function assign<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined) target[key] = value;
}
