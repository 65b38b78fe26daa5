import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { toYaml } from '../codec/codec.js';

export interface KubeconfigSpec {
  server: string;
  /** CA that verifies the serving certificate; absent when the server uses certificates we did not issue. */
  caPem?: string | undefined;
  /** The user's client certificate and key, or `token` instead. */
  clientCertPem?: string;
  clientKeyPem?: string;
  token?: string;
  user: string;
  contextName?: string;
}

/** A kubeconfig for kubectl and client libraries, written with owner-only permissions. */
export function writeKubeconfig(path: string, spec: KubeconfigSpec): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, renderKubeconfig(spec), { mode: 0o600 });
}

/** The kubeconfig's YAML text. */
export function renderKubeconfig(spec: KubeconfigSpec): string {
  const name = spec.contextName ?? 'capstan';
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  const cluster: Record<string, string> = { server: spec.server };
  if (spec.caPem) cluster['certificate-authority-data'] = b64(spec.caPem);
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name: spec.user, user: spec.token !== undefined ? { token: spec.token } : { 'client-certificate-data': b64(spec.clientCertPem ?? ''), 'client-key-data': b64(spec.clientKeyPem ?? '') } }],
    contexts: [{ name, context: { cluster: name, user: spec.user } }],
    'current-context': name,
    preferences: {},
  };
  return toYaml(doc);
}
