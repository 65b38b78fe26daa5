import { readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import { isAbsolute } from 'node:path';
import { decode } from '../codec/codec.js';
import { YAML_TYPE } from '../codec/media-type.js';
import type { UserInfo } from '../machinery/context.js';
import { fieldErrorString, type FieldError } from '../machinery/errors.js';
import { isDns1123Subdomain } from '../machinery/name-validation.js';
import { formatGoDuration, parseGoDuration } from '../machinery/duration.js';
import type { WebhookOptions } from './webhook.js';
import { validateMatchConditions } from './match-conditions.js';
import { UnionAuthorizer, type AuthorizationAttributes, type AuthorizationDecision, type Authorizer, type RulesResult } from './authorizer.js';
import { AUTHORIZATION_MODES, BUILT_MODES } from './modes.js';

/**
 * `--authorization-config`: an AuthorizationConfiguration
 * (apiserver.config.k8s.io/v1) naming the authorizer chain, validated as
 * kube's ValidateAuthorizationConfiguration does, and reloaded when the
 * file changes and every 60 s; a file that no longer loads or validates
 * keeps the chain that was running.
 */

export interface AuthorizerEntry {
  type: string;
  name: string;
  /** For type Webhook. */
  webhook?: WebhookOptions;
}

const API_VERSIONS = ['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1beta1', 'apiserver.config.k8s.io/v1alpha1'];
const RELOAD_INTERVAL_MS = 60_000;

/** A configuration file that does not load or validate (at start: the server does not start). */
export class AuthorizationConfigError extends Error {}

/** utilerrors.NewAggregate: one error as itself, several as [a, b]. */
function aggregate(errs: readonly string[]): string {
  return errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`;
}

/** The file's authorizers, or an Error with kube's messages (load errors prefixed as kube's options do). */
export function loadAuthorizationConfiguration(path: string): AuthorizerEntry[] {
  let doc: unknown;
  try {
    doc = decode(readFileSync(path), YAML_TYPE);
  } catch (err) {
    throw new AuthorizationConfigError(`failed to load config from file ${path}: ${(err as Error).message}`);
  }
  const c = (doc && typeof doc === 'object' ? doc : {}) as { apiVersion?: unknown; kind?: unknown; authorizers?: unknown };
  if (c.kind !== 'AuthorizationConfiguration' || !API_VERSIONS.includes(String(c.apiVersion))) {
    throw new AuthorizationConfigError(`failed to load config from file ${path}: no kind "${String(c.kind ?? '')}" is registered for version "${String(c.apiVersion ?? '')}"`);
  }
  const raw = Array.isArray(c.authorizers) ? c.authorizers : [];
  const errs: FieldError[] = [];
  if (raw.length === 0) errs.push({ type: 'FieldValueRequired', field: 'authorizers', detail: 'at least one authorization mode must be defined' });
  const known: string[] = [...AUTHORIZATION_MODES].sort();
  const types = new Set<string>();
  const names = new Set<string>();
  const out: AuthorizerEntry[] = [];
  raw.forEach((item, i) => {
    const a = (item && typeof item === 'object' ? item : {}) as { type?: unknown; name?: unknown; webhook?: unknown };
    const path = `authorizers[${i}]`;
    const type = typeof a.type === 'string' ? a.type : '';
    const name = typeof a.name === 'string' ? a.name : '';
    if (!type) return void errs.push({ type: 'FieldValueRequired', field: `${path}.type` });
    if (!known.includes(type)) return void errs.push({ type: 'FieldValueNotSupported', field: `${path}.type`, value: type, supported: known });
    if (types.has(type) && type !== 'Webhook') return void errs.push({ type: 'FieldValueDuplicate', field: `${path}.type`, value: type });
    types.add(type);
    if (!name) errs.push({ type: 'FieldValueRequired', field: `${path}.name` });
    else if (names.has(name)) errs.push({ type: 'FieldValueDuplicate', field: `${path}.name`, value: name });
    else {
      const invalid = isDns1123Subdomain(name);
      if (invalid.length > 0) errs.push({ type: 'FieldValueInvalid', field: `${path}.name`, value: name, detail: `authorizer name is invalid: ${invalid.join(', ')}` });
    }
    names.add(name);
    if (type === 'Webhook' && a.webhook == null) return void errs.push({ type: 'FieldValueRequired', field: `${path}.webhook`, detail: 'required when type=Webhook' });
    if (type !== 'Webhook' && a.webhook != null) errs.push({ type: 'FieldValueInvalid', field: `${path}.webhook`, value: 'non-null', detail: 'may only be specified when type=Webhook' });
    const entry: AuthorizerEntry = { type, name };
    if (type === 'Webhook') {
      const webhook = validateWebhook(path, name, a.webhook, errs);
      if (webhook) entry.webhook = webhook;
    }
    out.push(entry);
  });
  if (errs.length > 0) throw new AuthorizationConfigError(aggregate(errs.map(fieldErrorString)));
  const unbuilt = out.find((a) => !(BUILT_MODES as readonly string[]).includes(a.type));
  if (unbuilt) throw new AuthorizationConfigError(`authorizer type ${unbuilt.type} is not supported by this server yet`);
  return out;
}

/** kube's ValidateWebhookConfiguration (its errors are under the authorizer's own path). */
function validateWebhook(path: string, name: string, raw: unknown, errs: FieldError[]): WebhookOptions | undefined {
  const w = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const before = errs.length;
  const duration = (field: string): number => {
    const text = typeof w[field] === 'string' ? (w[field] as string) : '';
    const ms = text ? parseGoDuration(text) : 0;
    if (ms === undefined) {
      errs.push({ type: 'FieldValueInvalid', field: `${path}.${field}`, value: text, detail: 'not a duration' });
      return 0;
    }
    if (ms === 0) errs.push({ type: 'FieldValueRequired', field: `${path}.${field}` });
    return ms;
  };
  const timeout = duration('timeout');
  if (timeout > 30_000 || timeout < 0) errs.push({ type: 'FieldValueInvalid', field: `${path}.timeout`, value: formatGoDuration(timeout), detail: 'must be > 0s and <= 30s' });
  const authorizedTtl = duration('authorizedTTL');
  if (authorizedTtl < 0) errs.push({ type: 'FieldValueInvalid', field: `${path}.authorizedTTL`, value: formatGoDuration(authorizedTtl), detail: 'must be > 0s' });
  const unauthorizedTtl = duration('unauthorizedTTL');
  if (unauthorizedTtl < 0) errs.push({ type: 'FieldValueInvalid', field: `${path}.unauthorizedTTL`, value: formatGoDuration(unauthorizedTtl), detail: 'must be > 0s' });
  const version = typeof w.subjectAccessReviewVersion === 'string' ? w.subjectAccessReviewVersion : '';
  if (!version) errs.push({ type: 'FieldValueRequired', field: `${path}.subjectAccessReviewVersion` });
  else if (version !== 'v1' && version !== 'v1beta1') errs.push({ type: 'FieldValueNotSupported', field: `${path}.subjectAccessReviewVersion`, value: version, supported: ['v1', 'v1beta1'] });
  const conditions = Array.isArray(w.matchConditions) ? w.matchConditions : [];
  const mcVersion = typeof w.matchConditionSubjectAccessReviewVersion === 'string' ? w.matchConditionSubjectAccessReviewVersion : '';
  if (!mcVersion && conditions.length > 0) errs.push({ type: 'FieldValueRequired', field: `${path}.matchConditionSubjectAccessReviewVersion`, detail: 'required if match conditions are specified' });
  else if (mcVersion && mcVersion !== 'v1') errs.push({ type: 'FieldValueNotSupported', field: `${path}.matchConditionSubjectAccessReviewVersion`, value: mcVersion, supported: ['v1'] });
  const failurePolicy = typeof w.failurePolicy === 'string' ? w.failurePolicy : '';
  if (!failurePolicy) errs.push({ type: 'FieldValueRequired', field: `${path}.failurePolicy` });
  else if (failurePolicy !== 'NoOpinion' && failurePolicy !== 'Deny') errs.push({ type: 'FieldValueNotSupported', field: `${path}.failurePolicy`, value: failurePolicy, supported: ['NoOpinion', 'Deny'] });
  const conn = (w.connectionInfo && typeof w.connectionInfo === 'object' ? w.connectionInfo : {}) as Record<string, unknown>;
  const connType = typeof conn.type === 'string' ? conn.type : '';
  const file = typeof conn.kubeConfigFile === 'string' ? conn.kubeConfigFile : undefined;
  if (!connType) errs.push({ type: 'FieldValueRequired', field: `${path}.connectionInfo.type` });
  else if (connType === 'InClusterConfig') {
    if (file !== undefined) errs.push({ type: 'FieldValueInvalid', field: `${path}.connectionInfo.kubeConfigFile`, value: file, detail: 'can only be set when type=KubeConfigFile' });
  } else if (connType === 'KubeConfigFile') {
    if (!file) errs.push({ type: 'FieldValueRequired', field: `${path}.connectionInfo.kubeConfigFile` });
    else if (!isAbsolute(file)) errs.push({ type: 'FieldValueInvalid', field: `${path}.connectionInfo.kubeConfigFile`, value: file, detail: 'must be an absolute path' });
    else {
      try {
        if (!statSync(file).isFile()) errs.push({ type: 'FieldValueInvalid', field: `${path}.connectionInfo.kubeConfigFile`, value: file, detail: 'must be a regular file' });
      } catch (err) {
        errs.push({ type: 'FieldValueInvalid', field: `${path}.connectionInfo.kubeConfigFile`, value: file, detail: `error loading file: ${(err as Error).message}` });
      }
    }
  } else errs.push({ type: 'FieldValueNotSupported', field: `${path}.connectionInfo.type`, value: connType, supported: ['InClusterConfig', 'KubeConfigFile'] });
  const expressions = conditions.map((c) => (c && typeof c === 'object' && typeof (c as { expression?: unknown }).expression === 'string' ? (c as { expression: string }).expression : ''));
  errs.push(...validateMatchConditions(expressions, path));
  if (errs.length > before) return undefined;
  // InClusterConfig passes kube's validation with no kubeconfig path; building the webhook then fails (webhook.ts).
  const options: WebhookOptions = { name, kubeconfigFile: connType === 'KubeConfigFile' ? file : undefined, version: version as 'v1' | 'v1beta1', authorizedTtlMs: authorizedTtl, unauthorizedTtlMs: unauthorizedTtl, timeoutMs: timeout, failurePolicy: failurePolicy as 'NoOpinion' | 'Deny' };
  if (expressions.length > 0) options.matchConditions = expressions;
  return options;
}

/** The chain a configuration file names, rebuilt whenever the file changes to another valid configuration. */
export class ReloadingAuthorizer implements Authorizer {
  private current: Authorizer;
  private loaded: string;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly path: string,
    private readonly build: (entries: AuthorizerEntry[]) => Authorizer[],
    private readonly log: (message: string) => void,
  ) {
    this.loaded = readFileSync(path, 'utf8');
    this.current = new UnionAuthorizer(build(loadAuthorizationConfiguration(path)));
  }

  start(): void {
    this.timer = setInterval(() => this.reload(), RELOAD_INTERVAL_MS);
    this.timer.unref();
    try {
      this.watcher = watch(this.path, () => this.reload());
      this.watcher.unref();
    } catch {
      // No file events here: the interval still reloads.
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.watcher?.close();
  }

  /** Loads the file again; an unchanged, unreadable or invalid file keeps the running chain. */
  reload(): void {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      this.log(`error reloading authorization config ${this.path}, keeping the running one: ${(err as Error).message}`);
      return;
    }
    if (text === this.loaded) return;
    try {
      this.current = new UnionAuthorizer(this.build(loadAuthorizationConfiguration(this.path)));
      this.loaded = text;
      this.log(`authorization config ${this.path} reloaded`);
    } catch (err) {
      this.log(`error reloading authorization config ${this.path}, keeping the running one: ${(err as Error).message}`);
    }
  }

  authorize(attrs: AuthorizationAttributes): Promise<AuthorizationDecision> {
    return this.current.authorize(attrs);
  }

  rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
    return this.current.rulesFor!(user, namespace);
  }
}
