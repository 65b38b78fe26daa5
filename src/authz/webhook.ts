import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { dirname, resolve } from 'node:path';
import { decode } from '../codec/codec.js';
import { YAML_TYPE } from '../codec/media-type.js';
import { formatGoDuration } from '../machinery/duration.js';
import { clientGoResultError, DeadlineExceeded, goHttpClientError } from '../registry/webhook-client.js';
import type { UserInfo } from '../machinery/context.js';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer, RulesResult } from './authorizer.js';
import { MatchConditions } from './match-conditions.js';
import type { AuthorizationMetrics, WebhookCallResult } from './metrics.js';

/**
 * kube's webhook authorizer (apiserver/plugin/pkg/authorizer/webhook): each
 * request the chain asks about is POSTed as a SubjectAccessReview (v1 or
 * v1beta1) to the endpoint a kubeconfig file names; `allowed` allows,
 * `denied` denies (stopping the chain), anything else is no opinion.
 * Answers are cached (allowed for authorizedTTL, the rest for
 * unauthorizedTTL); a failed call is the failure policy's decision, with
 * the error (so the request is a 500 unless a later authorizer allows) in
 * client-go's words, as kube's 500 bodies and SubjectAccessReview
 * evaluationError quote them: `Post "<url>?timeout=<t>": <net/http error>`,
 * a failed Status's message, apimachinery's generic server response, or the
 * decoder's complaint. An answer both allowed and denied denies, with kube's
 * error.
 * Transient failures (a reset connection, a 429, 500 or 504 answer, or one
 * with Retry-After) are retried as kube's DefaultShouldRetry does, with its
 * default webhook backoff (500 ms, factor 1.5, jitter 0.2, 5 attempts).
 * matchConditions (match-conditions.ts) are evaluated first: a request
 * that does not match gets no opinion without a call.
 */

export interface WebhookOptions {
  /** The authorizer's name in the configuration file (`webhook` for the --authorization-webhook-* flags), as metrics label it. */
  name: string;
  /** Absent for connectionInfo.type InClusterConfig, which kube-apiserver cannot build (see InClusterWebhookError). */
  kubeconfigFile: string | undefined;
  version: 'v1' | 'v1beta1';
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  timeoutMs: number;
  failurePolicy: 'NoOpinion' | 'Deny';
  /** CEL expressions over the v1 SubjectAccessReviewSpec, already validated (--authorization-config only). */
  matchConditions?: string[];
  /** kube's DefaultAuthWebhookRetryBackoff unless given (tests shorten it). */
  retryBackoff?: RetryBackoff;
  /** Where round trips, fail-opens and matchCondition evaluations are counted. */
  metrics?: AuthorizationMetrics;
}

export interface RetryBackoff {
  initialMs: number;
  factor: number;
  jitter: number;
  steps: number;
}

const DEFAULT_RETRY_BACKOFF: RetryBackoff = { initialMs: 500, factor: 1.5, jitter: 0.2, steps: 5 };

/**
 * An authorization webhook whose connectionInfo.type is InClusterConfig:
 * kube's validation accepts it, but its documentation says it is not allowed
 * for kube-apiserver, and kube-apiserver 1.36 dereferences the absent
 * kubeconfig path while building the authorizer (a nil pointer panic, exit
 * code 2). Capstan refuses it with this error instead (`capstan serve`
 * exits 1 at start; a reload to such a file keeps the running chain).
 */
export class InClusterWebhookError extends Error {
  constructor() {
    super('a Webhook authorizer with connectionInfo.type InClusterConfig cannot be used by an API server (kube-apiserver 1.36 exits with a nil pointer panic building it); use connectionInfo.type KubeConfigFile');
  }
}

/** A failed call: whether kube's webhook client would try again, and how its metrics name the failure. */
class WebhookCallError extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
    readonly result: WebhookCallResult,
  ) {
    super(message);
  }
}

interface Endpoint {
  url: URL;
  ca?: string;
  cert?: string;
  key?: string;
  token?: string;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The endpoint and credentials of a kubeconfig file (its current context, else its first cluster and user). */
export function endpointFromKubeconfig(path: string): Endpoint {
  const kc = obj(decode(readFileSync(path), YAML_TYPE));
  const base = dirname(path);
  const named = (list: unknown, name: string, field: string): Obj => {
    const items = Array.isArray(list) ? list.map(obj) : [];
    return obj((items.find((i) => i.name === name) ?? items[0])?.[field]);
  };
  const contexts = Array.isArray(kc.contexts) ? kc.contexts.map(obj) : [];
  const context = obj((contexts.find((c) => c.name === kc['current-context']) ?? contexts[0])?.context);
  const cluster = named(kc.clusters, str(context.cluster), 'cluster');
  const user = named(kc.users, str(context.user), 'user');
  const pem = (data: unknown, file: unknown): string | undefined => (str(data) ? Buffer.from(str(data), 'base64').toString('utf8') : str(file) ? readFileSync(resolve(base, str(file)), 'utf8') : undefined);
  const endpoint: Endpoint = { url: new URL(str(cluster.server)) };
  const ca = pem(cluster['certificate-authority-data'], cluster['certificate-authority']);
  const cert = pem(user['client-certificate-data'], user['client-certificate']);
  const key = pem(user['client-key-data'], user['client-key']);
  if (ca) endpoint.ca = ca;
  if (cert) endpoint.cert = cert;
  if (key) endpoint.key = key;
  if (str(user.token)) endpoint.token = str(user.token);
  return endpoint;
}

/** The SubjectAccessReview spec kube sends for the attributes (v1beta1 names the groups `group`). */
export function reviewSpec(a: AuthorizationAttributes, version: 'v1' | 'v1beta1'): Obj {
  const spec: Obj = { user: a.user.username, [version === 'v1' ? 'groups' : 'group']: a.user.groups };
  if (a.user.uid) spec.uid = a.user.uid;
  if (a.user.extra && Object.keys(a.user.extra).length > 0) spec.extra = a.user.extra;
  if (a.resourceRequest) {
    const ra: Obj = { namespace: a.namespace ?? '', verb: a.verb, group: a.group ?? '', version: a.version ?? '', resource: a.resource ?? '', subresource: a.subresource ?? '', name: a.name ?? '' };
    if (a.fieldSelector) ra.fieldSelector = { rawSelector: a.fieldSelector };
    if (a.labelSelector) ra.labelSelector = { rawSelector: a.labelSelector };
    spec.resourceAttributes = ra;
  } else {
    spec.nonResourceAttributes = { path: a.path ?? '', verb: a.verb };
  }
  return spec;
}

export class WebhookAuthorizer implements Authorizer {
  private readonly endpoint: Endpoint;
  private readonly cache = new Map<string, { decision: AuthorizationDecision; expires: number }>();
  private readonly matchConditions: MatchConditions | undefined;

  constructor(private readonly opts: WebhookOptions) {
    if (opts.kubeconfigFile === undefined) throw new InClusterWebhookError();
    this.endpoint = endpointFromKubeconfig(opts.kubeconfigFile);
    if (opts.matchConditions && opts.matchConditions.length > 0) this.matchConditions = new MatchConditions(opts.matchConditions);
  }

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationDecision> {
    if (this.matchConditions) {
      const started = performance.now();
      const match = this.matchConditions.evaluate(reviewSpec(attrs, 'v1'));
      const failed = 'error' in match || match.failed === true;
      this.opts.metrics?.recordMatchConditions('Webhook', this.opts.name, (performance.now() - started) / 1000, failed, !('error' in match) && !match.matches);
      if ('error' in match) return { decision: this.opts.failurePolicy, reason: '', error: match.error };
      if (!match.matches) return { decision: 'NoOpinion', reason: '' };
    }
    const spec = reviewSpec(attrs, this.opts.version);
    const key = JSON.stringify(spec);
    const cached = this.cache.get(key);
    if (cached && cached.expires > Date.now()) return cached.decision;
    let status: Obj;
    try {
      status = obj(obj(await this.postWithRetries({ apiVersion: `authorization.k8s.io/${this.opts.version}`, kind: 'SubjectAccessReview', spec })).status);
    } catch (err) {
      // kube counts a fail-open: no opinion after the last attempt failed, the request itself still waiting
      if (this.opts.failurePolicy === 'NoOpinion' && err instanceof WebhookCallError) this.opts.metrics?.webhookFailOpen.inc([this.opts.name, err.result]);
      return { decision: this.opts.failurePolicy, reason: '', error: (err as Error).message };
    }
    const reason = str(status.reason);
    const allowed = status.allowed === true;
    const decision: AuthorizationDecision =
      allowed && status.denied === true
        ? { decision: 'Deny', reason, error: 'webhook subject access review returned both allow and deny response' }
        : allowed
          ? { decision: 'Allow', reason }
          : status.denied === true
            ? { decision: 'Deny', reason }
            : { decision: 'NoOpinion', reason };
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(key, { decision, expires: Date.now() + (allowed ? this.opts.authorizedTtlMs : this.opts.unauthorizedTtlMs) });
    return decision;
  }

  /** kube's webhook authorizer cannot list rules: incomplete, with its error (SelfSubjectRulesReview's evaluationError). */
  async rulesFor(_user: UserInfo, _namespace: string): Promise<RulesResult> {
    return { resourceRules: [], nonResourceRules: [], incomplete: true, error: 'webhook authorizer does not support user rule resolution' };
  }

  private async postWithRetries(body: unknown): Promise<unknown> {
    const backoff = this.opts.retryBackoff ?? DEFAULT_RETRY_BACKOFF;
    let delay = backoff.initialMs;
    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      try {
        const answer = await this.post(body);
        this.opts.metrics?.recordWebhookCall(this.opts.name, 'success', (performance.now() - started) / 1000);
        return answer;
      } catch (err) {
        const failure = err instanceof WebhookCallError ? err : new WebhookCallError((err as Error).message, false, 'error');
        this.opts.metrics?.recordWebhookCall(this.opts.name, failure.result, (performance.now() - started) / 1000);
        if (!failure.transient || attempt >= backoff.steps) throw failure;
      }
      await new Promise((r) => setTimeout(r, delay * (1 + Math.random() * backoff.jitter)));
      delay *= backoff.factor;
    }
  }

  private post(body: unknown): Promise<unknown> {
    const data = JSON.stringify(body);
    const e = this.endpoint;
    // client-go's rest client names its client timeout in the query it sends (and in its errors)
    const url = new URL(e.url.href);
    url.search = `timeout=${formatGoDuration(this.opts.timeoutMs)}`;
    return new Promise((resolvePost, reject) => {
      const req = request(
        url,
        {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json, */*', 'Content-Length': Buffer.byteLength(data), ...(e.token ? { Authorization: `Bearer ${e.token}` } : {}) },
          ...(e.ca ? { ca: e.ca } : {}),
          ...(e.cert ? { cert: e.cert } : {}),
          ...(e.key ? { key: e.key } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            clearTimeout(timer);
            const text = Buffer.concat(chunks).toString('utf8');
            const code = res.statusCode ?? 0;
            const failure = clientGoResultError(code, res.headers['content-type'], text);
            if (failure === undefined) return resolvePost(JSON.parse(text));
            // kube's DefaultShouldRetry: internal errors (5xx but 503), timeouts (504), 429s, or an answer naming a Retry-After
            const failed = code < 200 || code > 206;
            const transient = failed && (code === 429 || (code >= 500 && code !== 503) || res.headers['retry-after'] !== undefined);
            reject(new WebhookCallError(failure, transient, code === 504 ? 'timeout' : 'error'));
          });
          res.on('error', (err) => reject(new WebhookCallError(goHttpClientError('Post', err, url), false, err instanceof DeadlineExceeded ? 'timeout' : 'error')));
        },
      );
      const timer = setTimeout(() => req.destroy(new DeadlineExceeded()), this.opts.timeoutMs);
      req.on('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(new WebhookCallError(goHttpClientError('Post', err, url), err.code === 'ECONNRESET', err instanceof DeadlineExceeded ? 'timeout' : 'error'));
      });
      req.end(data);
    });
  }
}

