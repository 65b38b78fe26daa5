import { request } from 'node:https';

/**
 * The small HTTPS client the authenticators call out with (OIDC discovery
 * and keys, the token webhook): its own trust roots and client credentials,
 * a deadline, and a bound on the answer's size, since the peer is outside
 * this server's control.
 */

export interface HttpsTarget {
  /** PEM trust roots; absent: Node's default roots. */
  ca?: string;
  cert?: string;
  key?: string;
  bearerToken?: string;
  insecureSkipTlsVerify?: boolean;
}

export interface HttpsAnswer {
  status: number;
  body: string;
}

const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export function httpsRequest(url: string, target: HttpsTarget, opts: { method?: string; body?: string; timeoutMs: number }): Promise<HttpsAnswer> {
  const u = new URL(url);
  if (u.protocol !== 'https:') return Promise.reject(new Error(`unsupported URL scheme ${JSON.stringify(u.protocol.replace(/:$/, ''))}: only https is allowed`));
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (opts.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(opts.body));
  }
  if (target.bearerToken) headers.Authorization = `Bearer ${target.bearerToken}`;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        method: opts.method ?? 'GET',
        hostname: u.hostname.replace(/^\[|\]$/g, ''),
        port: u.port || 443,
        path: u.pathname + u.search,
        headers,
        ...(target.ca ? { ca: target.ca } : {}),
        ...(target.cert ? { cert: target.cert } : {}),
        ...(target.key ? { key: target.key } : {}),
        rejectUnauthorized: !target.insecureSkipTlsVerify,
        agent: false,
        timeout: opts.timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_ANSWER_BYTES) {
            req.destroy(new Error(`answer from ${u.host} is larger than ${MAX_ANSWER_BYTES} bytes`));
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request to ${u.host} timed out after ${opts.timeoutMs}ms`)));
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}
