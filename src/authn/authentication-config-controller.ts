import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Logger } from '../machinery/logger.js';
import type { AuthenticationResult } from './authenticator.js';
import type { TokenAuthenticator } from './bearer-token.js';
import {
  aggregateMessage,
  parseAuthenticationConfig,
  validateAuthenticationConfig,
  type AnonymousConfig,
  type AuthenticationConfiguration,
} from './authentication-config.js';
import { ALL_SIGNING_ALGS, JwtIssuerAuthenticator } from './jwt-issuer.js';
import { jwtAuthenticatorFromOidcFlags, type OidcFlags } from './oidc.js';

/**
 * The JWT authenticators and anonymous rules of --authentication-config (or
 * of the --oidc-* flags), and the file's reload: the file is read again
 * every interval; a changed file that decodes, validates and whose issuers
 * answer replaces the authenticators at once, and anything else keeps the
 * running configuration and is logged and counted
 * (apiserver_authentication_config_controller_* metrics).
 */

export interface JwtSetupOptions {
  /** --authentication-config. */
  configFile?: string;
  /** The --oidc-* flags, when --oidc-issuer-url and --oidc-client-id are given. */
  oidc?: OidcFlags;
  /** --anonymous-auth was given on the command line. */
  anonymousFlagSet?: boolean;
  /** The service account issuers: no JWT issuer may be one of them. */
  disallowedIssuers?: string[];
  /** How often the file is read again (ms). */
  reloadIntervalMs?: number;
  /** Identifies this server in the metrics' apiserver_id_hash label. */
  apiServerId: string;
  logger: Logger;
}

/** What the metrics report: reload outcomes and the configuration in use. */
export interface AuthenticationConfigMetrics {
  apiServerIdHash: string;
  reloads: { success: number; failure: number };
  /** Unix seconds of the last reload of each outcome (0: none yet). */
  lastReload: { success: number; failure: number };
  /** sha256 of the configuration in use. */
  configHash: string;
}

const RELOAD_TIMEOUT_MS = 10_000;
const DEFAULT_RELOAD_INTERVAL_MS = 1_000;

/** The error kube-apiserver exits with when --anonymous-auth and the file's anonymous section meet. */
export const ANONYMOUS_CONFLICT = 'anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file';

export class JwtAuthenticators implements TokenAuthenticator {
  private authenticators: JwtIssuerAuthenticator[] = [];
  private anonymous: AnonymousConfig | undefined;
  private trackedData = '';
  private timer: NodeJS.Timeout | undefined;
  private reloading = false;
  private readonly signingAlgs: string[];
  readonly metrics: AuthenticationConfigMetrics;

  /** Loads and validates the configuration; throws kube-apiserver's start-up error when it is unusable. */
  constructor(private readonly opts: JwtSetupOptions) {
    this.metrics = { apiServerIdHash: sha256(opts.apiServerId), reloads: { success: 0, failure: 0 }, lastReload: { success: 0, failure: 0 }, configHash: '' };
    let config: AuthenticationConfiguration;
    if (opts.configFile) {
      let data: string;
      try {
        data = readFileSync(opts.configFile, 'utf8');
        config = parseAuthenticationConfig(data);
      } catch (err) {
        throw new Error(`failed to load authentication configuration from file ${JSON.stringify(opts.configFile)}: ${(err as Error).message}`);
      }
      this.trackedData = data;
      this.metrics.configHash = sha256(data);
      if (config.anonymous && opts.anonymousFlagSet) throw new Error(ANONYMOUS_CONFLICT);
      this.signingAlgs = ALL_SIGNING_ALGS;
    } else {
      config = { jwt: opts.oidc ? [jwtAuthenticatorFromOidcFlags(opts.oidc)] : [] };
      this.signingAlgs = opts.oidc?.signingAlgs ?? ALL_SIGNING_ALGS;
      const unsupported = this.signingAlgs.find((alg) => !ALL_SIGNING_ALGS.includes(alg));
      if (unsupported !== undefined) throw new Error(`oidc: unsupported signing alg: ${JSON.stringify(unsupported)}`);
    }
    const errs = this.validate(config);
    if (errs) throw new Error(`invalid authentication configuration: ${errs}`);
    this.install(config);
  }

  private validate(config: AuthenticationConfiguration): string | undefined {
    const errs = validateAuthenticationConfig(config, { disallowedIssuers: this.opts.disallowedIssuers ?? [] });
    return errs.length > 0 ? aggregateMessage(errs) : undefined;
  }

  private install(config: AuthenticationConfiguration, built?: JwtIssuerAuthenticator[]): void {
    this.authenticators = built ?? config.jwt.map((j) => new JwtIssuerAuthenticator(j, this.signingAlgs));
    this.anonymous = config.anonymous;
  }

  /** Starts fetching the issuers' keys and, with a configuration file, watching it. */
  start(): void {
    for (const a of this.authenticators) {
      a.initialize().catch((err: Error) => this.opts.logger.error(`oidc authenticator for ${a.config.issuer.url}: initializing failed (tokens of this issuer are refused until it answers): ${err.message}`));
    }
    if (!this.opts.configFile) return;
    this.timer = setInterval(() => void this.reload(), this.opts.reloadIntervalMs ?? DEFAULT_RELOAD_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  get configured(): boolean {
    return this.authenticators.length > 0;
  }

  /** The file's `anonymous` section, when it has one (it then decides instead of --anonymous-auth). */
  get anonymousConfig(): AnonymousConfig | undefined {
    return this.anonymous;
  }

  /** Whether an anonymous request to `path` is allowed by the file's section; undefined when the file has none. */
  anonymousAllowed(path: string): boolean | undefined {
    const a = this.anonymous;
    if (!a) return undefined;
    if (!a.enabled) return false;
    const conditions = a.conditions ?? [];
    return conditions.length === 0 || conditions.some((c) => c.path === path);
  }

  async authenticateToken(token: string): Promise<AuthenticationResult | undefined> {
    // Issuers are unique: at most one authenticator has an opinion on a token.
    for (const a of this.authenticators) {
      const result = await a.authenticateToken(token);
      if (result) return result;
    }
    return undefined;
  }

  /** One look at the file (kube's authentication config controller); exposed for tests. */
  async reload(): Promise<void> {
    if (this.reloading || !this.opts.configFile) return;
    this.reloading = true;
    try {
      await this.reloadOnce(this.opts.configFile);
    } finally {
      this.reloading = false;
    }
  }

  private async reloadOnce(file: string): Promise<void> {
    let data: string;
    try {
      data = readFileSync(file, 'utf8');
    } catch (err) {
      // Not tracked: the file may come back.
      this.fail(`failed to read authentication config file: ${(err as Error).message}`);
      return;
    }
    if (data === this.trackedData) return;
    let config: AuthenticationConfiguration;
    try {
      config = parseAuthenticationConfig(data);
    } catch (err) {
      this.trackedData = data;
      this.fail(`failed to load authentication config: ${(err as Error).message}`);
      return;
    }
    let errs = this.validate(config);
    if (!sameAnonymous(this.anonymous, config.anonymous)) {
      const changed = 'anonymous: Forbidden: changed from initial configuration file';
      errs = errs ? `[${errs.replace(/^\[|\]$/g, '')}, ${changed}]` : changed;
    }
    if (errs) {
      this.trackedData = data;
      this.fail(`failed to validate authentication config: ${errs}`);
      return;
    }
    const built = config.jwt.map((j) => new JwtIssuerAuthenticator(j, ALL_SIGNING_ALGS));
    try {
      await withTimeout(Promise.all(built.map((a) => a.initialize())), RELOAD_TIMEOUT_MS);
    } catch (err) {
      // Not tracked: an issuer that is down now may answer at the next look.
      this.fail(`failed to update authentication config: ${(err as Error).message}`);
      return;
    }
    this.install(config, built);
    this.trackedData = data;
    this.metrics.configHash = sha256(data);
    this.metrics.reloads.success++;
    this.metrics.lastReload.success = Date.now() / 1000;
    this.opts.logger.info('reloaded authentication config');
  }

  private fail(message: string): void {
    this.metrics.reloads.failure++;
    this.metrics.lastReload.failure = Date.now() / 1000;
    this.opts.logger.error(`${message} (the running authentication configuration is kept)`);
  }
}

function sameAnonymous(a: AnonymousConfig | undefined, b: AnonymousConfig | undefined): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

function sha256(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms}ms waiting for the issuers to answer`)), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}
