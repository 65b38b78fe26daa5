import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { decode } from '../codec/codec.js';
import { YAML_TYPE } from '../codec/media-type.js';
import type { UserInfo } from '../machinery/context.js';
import { fieldErrorString, type FieldError } from '../machinery/errors.js';
import { isDns1123Subdomain } from '../machinery/name-validation.js';
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
    if (type === 'Webhook' && a.webhook == null) errs.push({ type: 'FieldValueRequired', field: `${path}.webhook`, detail: 'required when type=Webhook' });
    if (type !== 'Webhook' && a.webhook != null) errs.push({ type: 'FieldValueInvalid', field: `${path}.webhook`, value: 'non-null', detail: 'may only be specified when type=Webhook' });
    out.push({ type, name });
  });
  if (errs.length > 0) throw new AuthorizationConfigError(aggregate(errs.map(fieldErrorString)));
  const unbuilt = out.find((a) => !(BUILT_MODES as readonly string[]).includes(a.type));
  if (unbuilt) throw new AuthorizationConfigError(`authorizer type ${unbuilt.type} is not supported by this server yet`);
  return out;
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
