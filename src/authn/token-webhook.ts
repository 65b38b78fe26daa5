import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { load } from 'js-yaml';
import type { UserInfo } from '../machinery/context.js';
import { AuthenticationError, type AuthenticationResult } from './authenticator.js';
import type { TokenAuthenticator } from './bearer-token.js';
import { httpsRequest, type HttpsTarget } from './https-client.js';

/**
 * kube-apiserver's token webhook (--authentication-token-webhook-*): a
 * token is POSTed in a TokenReview to the service the kubeconfig
 * file names; its answer, success or refusal, is kept for the cache TTL per
 * token and audiences. A refusal with `status.error` fails with that text
 * (logged; the client sees kube's plain 401). Failed calls are retried with
 * kube's backoff and never kept.
 */

export interface TokenWebhookOptions {
  /** Path of the kubeconfig-format file (clusters: the service; users: this server's credentials). */
  configFile: string;
  /** Milliseconds an answer is kept (--authentication-token-webhook-cache-ttl, default 2m); 0: none. */
  cacheTtlMs: number;
  /** TokenReview version sent and expected (--authentication-token-webhook-version). */
  version: 'v1' | 'v1beta1';
  /** The API's audiences (--api-audiences): asked for when the caller names none (sent as spec.audiences; the answer must share one). */
  audiences?: readonly string[];
}

interface WebhookTarget extends HttpsTarget {
  server: string;
}

const WEBHOOK_TIMEOUT_MS = 30_000;
const MAX_CACHE_ENTRIES = 10_000;
const RETRY_STEPS = 5;
const RETRY_INITIAL_MS = 500;
const RETRY_FACTOR = 1.5;
const RETRY_JITTER = 0.2;

interface Cached {
  expires: number;
  result: AuthenticationResult | undefined;
  error?: string;
}

export class TokenWebhookAuthenticator implements TokenAuthenticator {
  private readonly target: WebhookTarget;
  private readonly cache = new Map<string, Cached>();
  /** Reviews under way, so concurrent requests with one token make one call. */
  private readonly inFlight = new Map<string, Promise<Cached>>();
  /** Calls made to the webhook (tests observe the cache through it). */
  calls = 0;

  constructor(private readonly opts: TokenWebhookOptions) {
    this.target = loadWebhookKubeconfig(opts.configFile);
  }

  async authenticateToken(token: string, wanted: readonly string[] | undefined): Promise<AuthenticationResult | undefined> {
    // kube's webhook: the request's audiences, else the API's (its implicit audiences).
    const audiences = [...(wanted && wanted.length > 0 ? wanted : (this.opts.audiences ?? []))];
    const key = createHash('sha256').update(JSON.stringify([audiences, token])).digest('base64');
    const now = Date.now();
    let entry = this.cache.get(key);
    if (!entry || entry.expires <= now) {
      let pending = this.inFlight.get(key);
      if (!pending) {
        pending = this.review(token, audiences).finally(() => this.inFlight.delete(key));
        this.inFlight.set(key, pending);
      }
      entry = await pending;
    }
    if (entry.error !== undefined) throw new AuthenticationError(entry.error);
    return entry.result;
  }

  private async review(token: string, audiences: string[]): Promise<Cached> {
    const apiVersion = `authentication.k8s.io/${this.opts.version}`;
    const body = JSON.stringify({ apiVersion, kind: 'TokenReview', metadata: { creationTimestamp: null }, spec: { token, ...(audiences.length > 0 ? { audiences } : {}) }, status: { user: {} } });
    // Transport failures and bad answers are not kept: the next request asks again.
    const answer = await this.post(body);
    if (answer.status < 200 || answer.status > 299) throw new AuthenticationError(`the server responded with the status code ${answer.status}`);
    let review: TokenReviewAnswer;
    try {
      review = JSON.parse(answer.body) as TokenReviewAnswer;
    } catch {
      throw new AuthenticationError('unable to decode the webhook\'s TokenReview');
    }
    if (review?.apiVersion !== apiVersion || review.kind !== 'TokenReview') throw new AuthenticationError(`expected response of kind TokenReview in ${apiVersion}, got ${String(review?.kind)} in ${String(review?.apiVersion)}`);
    const entry = this.entryFrom(review.status ?? {}, audiences);
    if (this.opts.cacheTtlMs > 0) {
      if (this.cache.size >= MAX_CACHE_ENTRIES) this.evictExpired();
      if (this.cache.size < MAX_CACHE_ENTRIES) this.cache.set(createHash('sha256').update(JSON.stringify([audiences, token])).digest('base64'), { ...entry, expires: Date.now() + this.opts.cacheTtlMs });
    }
    return entry;
  }

  /**
   * kube's webhook client with DefaultAuthWebhookRetryBackoff: a transport
   * failure, a 429 or a 5xx is tried again, up to RETRY_STEPS times, waiting
   * 500 ms × 1.5ⁿ (with up to 20 % jitter) in between.
   */
  private async post(body: string): Promise<{ status: number; body: string }> {
    let delay = RETRY_INITIAL_MS;
    for (let attempt = 1; ; attempt++) {
      this.calls++;
      let answer: { status: number; body: string } | undefined;
      let failure: Error | undefined;
      try {
        answer = await httpsRequest(this.target.server, this.target, { method: 'POST', body, timeoutMs: WEBHOOK_TIMEOUT_MS });
      } catch (err) {
        failure = err as Error;
      }
      const retriable = failure !== undefined || answer!.status === 429 || answer!.status >= 500;
      if (!retriable || attempt >= RETRY_STEPS) {
        if (failure) throw new AuthenticationError(`Post "${this.target.server}": ${failure.message}`);
        return answer!;
      }
      await new Promise((r) => setTimeout(r, delay * (1 + Math.random() * RETRY_JITTER)));
      delay *= RETRY_FACTOR;
    }
  }

  private entryFrom(status: TokenReviewStatus, audiences: string[]): Cached {
    if (!status.authenticated) {
      return status.error ? { expires: 0, result: undefined, error: status.error } : { expires: 0, result: undefined };
    }
    let resultAudiences: string[] | undefined;
    if (audiences.length > 0) {
      const given = status.audiences && status.audiences.length > 0 ? status.audiences : audiences;
      resultAudiences = audiences.filter((a) => given.includes(a));
      if (resultAudiences.length === 0) return { expires: 0, result: undefined };
    }
    const u = status.user ?? {};
    const user: UserInfo = { username: u.username ?? '', groups: Array.isArray(u.groups) ? u.groups.map(String) : [] };
    if (u.uid) user.uid = u.uid;
    if (u.extra && typeof u.extra === 'object') {
      user.extra = Object.fromEntries(Object.entries(u.extra).map(([k, v]) => [k, Array.isArray(v) ? v.map(String) : []]));
    }
    return { expires: 0, result: { user, ...(resultAudiences ? { audiences: resultAudiences } : {}) } };
  }

  private evictExpired(): void {
    const now = Date.now();
    for (const [k, v] of this.cache) if (v.expires <= now) this.cache.delete(k);
  }
}

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: unknown[]; extra?: Record<string, unknown> };
  audiences?: string[];
  error?: string;
}

interface TokenReviewAnswer {
  apiVersion?: string;
  kind?: string;
  status?: TokenReviewStatus;
}

interface KubeconfigFile {
  clusters?: Array<{ name?: string; cluster?: Record<string, unknown> }>;
  users?: Array<{ name?: string; user?: Record<string, unknown> }>;
  contexts?: Array<{ name?: string; context?: { cluster?: string; user?: string } }>;
  'current-context'?: string;
}

/** The webhook's address and credentials from a kubeconfig-format file (current context, else the first cluster and user). */
export function loadWebhookKubeconfig(path: string): WebhookTarget {
  const doc = load(readFileSync(path, 'utf8')) as KubeconfigFile | undefined;
  if (!doc || typeof doc !== 'object') throw new Error(`invalid configuration: no configuration has been provided in ${path}`);
  const context = doc.contexts?.find((c) => c.name === doc['current-context'])?.context;
  const cluster = (context?.cluster !== undefined ? doc.clusters?.find((c) => c.name === context.cluster) : doc.clusters?.[0])?.cluster;
  const user = (context?.user !== undefined ? doc.users?.find((u) => u.name === context.user) : doc.users?.[0])?.user ?? {};
  if (!cluster || typeof cluster.server !== 'string' || cluster.server === '') throw new Error(`invalid configuration: no server found for cluster in ${path}`);
  const base = dirname(path);
  const file = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? readFileSync(isAbsolute(v) ? v : join(base, v), 'utf8') : undefined);
  const data = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? Buffer.from(v, 'base64').toString('utf8') : undefined);
  const target: WebhookTarget = { server: cluster.server };
  const ca = data(cluster['certificate-authority-data']) ?? file(cluster['certificate-authority']);
  if (ca) target.ca = ca;
  if (cluster['insecure-skip-tls-verify'] === true) target.insecureSkipTlsVerify = true;
  const cert = data(user['client-certificate-data']) ?? file(user['client-certificate']);
  const key = data(user['client-key-data']) ?? file(user['client-key']);
  if (cert) target.cert = cert;
  if (key) target.key = key;
  const token = typeof user.token === 'string' && user.token !== '' ? user.token : typeof user.tokenFile === 'string' ? file(user.tokenFile)?.trim() : undefined;
  if (token) target.bearerToken = token;
  return target;
}
