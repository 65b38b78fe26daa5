import { X509Certificate } from 'node:crypto';
import type { ApiClient } from '../machinery/client.js';
import { cloneObject, jsonEqual } from '../machinery/object.js';
import type { Controller } from './controller.js';
import { readModifyWrite } from './writes.js';

/**
 * kube-apiserver's cluster authentication trust controller: publishes how
 * clients and front proxies are trusted, in the ConfigMap
 * kube-system/extension-apiserver-authentication that extension API servers
 * read. What is there already is kept and this server's part added (several
 * servers may share the cluster): string lists merged without duplicates,
 * CA bundles merged without expired or repeated certificates. Written at
 * start and checked again every minute, through the server's own client.
 */

export interface ClusterAuthenticationInfo {
  /** PEM of --client-ca-file (the CA client certificates are verified with). */
  clientCa?: string;
  requestHeader?: {
    clientCa: string;
    usernameHeaders: string[];
    uidHeaders: string[];
    groupHeaders: string[];
    extraHeaderPrefixes: string[];
    allowedNames: string[];
  };
}

const NAMESPACE = 'kube-system';
export const EXTENSION_AUTH_CONFIGMAP = 'extension-apiserver-authentication';
const CONFIG_MAPS = { group: '', version: 'v1', resource: 'configmaps' };
const RESYNC_MS = 60_000;
const EXPIRY_SLACK_MS = 5 * 60_000;

export class ClusterAuthenticationTrust implements Controller {
  readonly name = 'cluster-authentication-trust-controller';
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: ApiClient,
    private readonly info: ClusterAuthenticationInfo,
    private readonly onError: (message: string) => void = () => undefined,
  ) {}

  async start(): Promise<void> {
    await this.sync().catch((err: Error) => this.onError(`${this.name}: ${err.message}`));
    this.timer = setInterval(() => void this.sync().catch((err: Error) => this.onError(`${this.name}: ${err.message}`)), RESYNC_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async sync(): Promise<void> {
    await readModifyWrite(this.client, { ...CONFIG_MAPS, namespace: NAMESPACE, name: EXTENSION_AUTH_CONFIGMAP }, (cur) => {
      const existing = (cur?.data ?? {}) as Record<string, string>;
      const data = combinedData(existing, this.info);
      if (cur && jsonEqual(cur.data ?? {}, data)) return undefined;
      if (!cur) return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: EXTENSION_AUTH_CONFIGMAP, namespace: NAMESPACE }, data };
      const next = cloneObject(cur);
      next.data = data;
      return next;
    });
  }
}

/** The ConfigMap's data: what is there merged with this server's part (kube's combinedClusterAuthenticationInfo and getConfigMapDataFor). */
export function combinedData(existing: Record<string, string>, info: ClusterAuthenticationInfo): Record<string, string> {
  const data: Record<string, string> = {};
  const clientCa = combineBundles(existing['client-ca-file'], info.clientCa);
  if (clientCa) data['client-ca-file'] = clientCa;
  const rhCa = combineBundles(existing['requestheader-client-ca-file'], info.requestHeader?.clientCa);
  if (!rhCa) return data;
  const rh = info.requestHeader;
  const list = (key: string, mine: string[] | undefined): string => JSON.stringify(unique([...jsonList(existing[key]), ...(mine ?? [])]));
  data['requestheader-username-headers'] = list('requestheader-username-headers', rh?.usernameHeaders);
  data['requestheader-uid-headers'] = list('requestheader-uid-headers', rh?.uidHeaders);
  data['requestheader-group-headers'] = list('requestheader-group-headers', rh?.groupHeaders);
  data['requestheader-extra-headers-prefix'] = list('requestheader-extra-headers-prefix', rh?.extraHeaderPrefixes);
  data['requestheader-client-ca-file'] = rhCa;
  data['requestheader-allowed-names'] = list('requestheader-allowed-names', rh?.allowedNames);
  return data;
}

function jsonList(text: string | undefined): string[] {
  if (!text) return [];
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.map(String) : [];
  } catch {
    return [];
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function combineBundles(...bundles: Array<string | undefined>): string | undefined {
  const now = Date.now();
  const seen = new Set<string>();
  const out: string[] = [];
  for (const bundle of bundles) {
    for (const block of bundle?.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []) {
      let cert: X509Certificate;
      try {
        cert = new X509Certificate(block);
      } catch {
        continue;
      }
      if (Date.parse(cert.validTo) <= now - EXPIRY_SLACK_MS) continue;
      const der = cert.raw.toString('base64');
      if (seen.has(der)) continue;
      seen.add(der);
      out.push(`-----BEGIN CERTIFICATE-----\n${der.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`);
    }
  }
  return out.length > 0 ? out.join('') : undefined;
}
