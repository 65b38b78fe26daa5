import { notFound } from '../machinery/errors.js';
import type { KubeObject } from '../machinery/object.js';
import type { ObjectLookup } from '../registry/object-lookup.js';
import { generateName } from '../registry/resource-store.js';
import { podReferences } from '../authz/node/graph.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './admission.js';
import { admissionForbidden, plainAdmissionError } from './admission-errors.js';
import { isPodRequest, listOf, podSpecOf, type Container, type PodSpec } from './pod-spec.js';

/**
 * The ServiceAccount admission plugin (plugin/pkg/admission/serviceaccount):
 * on pod create it defaults spec.serviceAccountName to `default`, requires
 * the account to exist, mounts the projected API token volume
 * (kube-api-access-<5>) into every container and init container unless the
 * pod or the account opts out, copies the account's imagePullSecrets, and,
 * for accounts annotated kubernetes.io/enforce-mountable-secrets=true, only
 * allows the secrets the account lists (also for ephemeral containers
 * added later). Mirror pods are left alone but may reference no account,
 * secret or token projection.
 */

export const DEFAULT_SERVICE_ACCOUNT_NAME = 'default';
export const ENFORCE_MOUNTABLE_SECRETS_ANNOTATION = 'kubernetes.io/enforce-mountable-secrets';
export const DEFAULT_API_TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
/** The projected volume's name prefix (ServiceAccountVolumeName). */
export const SERVICE_ACCOUNT_VOLUME_NAME = 'kube-api-access';
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
/** WarnOnlyBoundTokenExpirationSeconds: a little over an hour, so kubelets refresh before kube's warning threshold. */
const TOKEN_EXPIRATION_SECONDS = 3607;
/** ProjectedVolumeSourceDefaultMode (0644), set explicitly because admission runs after defaulting. */
const PROJECTED_DEFAULT_MODE = 0o644;
/** The default account is made by a controller just after its namespace: kube asks this often before giving up. */
const DEFAULT_ACCOUNT_ATTEMPTS = 10;

interface ServiceAccount extends KubeObject {
  automountServiceAccountToken?: boolean;
  secrets?: Array<{ name?: string }>;
  imagePullSecrets?: Array<{ name?: string }>;
}

/** The projected volume source kube mounts (serviceaccount.TokenVolumeSource). */
export function tokenVolumeSource(): Record<string, unknown> {
  return {
    defaultMode: PROJECTED_DEFAULT_MODE,
    sources: [
      { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
  };
}

export class ServiceAccountAdmission implements AdmissionPlugin {
  readonly name = 'ServiceAccount';

  constructor(
    private readonly serviceAccounts: ObjectLookup,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (!isPodRequest(attrs, ['', 'ephemeralcontainers']) || attrs.operation !== 'CREATE') return;
    const pod = attrs.object!;
    if (isMirrorPod(pod)) return this.validate(attrs);
    const spec = podSpecOf(pod);
    if (!spec.serviceAccountName) {
      spec.serviceAccountName = DEFAULT_SERVICE_ACCOUNT_NAME;
      // The conversion back to v1 writes the name into its deprecated alias too.
      spec.serviceAccount = DEFAULT_SERVICE_ACCOUNT_NAME;
    }
    const account = await this.account(attrs, spec.serviceAccountName);
    if (shouldAutomount(account, spec)) mountServiceAccountToken(spec);
    if (listOf(spec.imagePullSecrets).length === 0 && (account.imagePullSecrets?.length ?? 0) > 0) {
      spec.imagePullSecrets = listOf(account.imagePullSecrets).map((s) => ({ name: s.name ?? '' }));
    }
    return this.validate(attrs);
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!isPodRequest(attrs, ['', 'ephemeralcontainers'])) return;
    const pod = attrs.object!;
    const spec = podSpecOf(pod);
    if (attrs.operation === 'UPDATE' && attrs.subresource === 'ephemeralcontainers') return this.validateEphemeralContainers(attrs, spec);
    if (attrs.operation !== 'CREATE') return;
    if (isMirrorPod(pod)) return validateMirrorPod(attrs, pod, spec);
    if (!spec.serviceAccountName) throw admissionForbidden(attrs, `no service account specified for pod ${attrs.namespace}/${pod.metadata?.name ?? ''}`);
    const account = await this.account(attrs, spec.serviceAccountName);
    if (enforceMountableSecrets(account)) {
      const why = limitSecretReferences(account, spec);
      if (why) throw admissionForbidden(attrs, why);
    }
  }

  private async validateEphemeralContainers(attrs: AdmissionAttributes, spec: PodSpec): Promise<void> {
    if (!spec.serviceAccountName) throw admissionForbidden(attrs, `no service account specified for pod ${attrs.namespace}/${attrs.object?.metadata?.name ?? ''}`);
    const account = await this.account(attrs, spec.serviceAccountName);
    if (!enforceMountableSecrets(account)) return;
    const mountable = new Set(listOf(account.secrets).map((s) => s.name));
    const why = containerSecretReferences(listOf(spec.ephemeralContainers), 'ephemeral container', mountable, account);
    // kube returns this one as a plain error, not a Forbidden.
    if (why) throw plainAdmissionError(why);
  }

  /** getServiceAccount: the cache, then live reads (several for `default`, which a controller is about to create). */
  private async account(attrs: AdmissionAttributes, name: string): Promise<ServiceAccount> {
    const attempts = name === DEFAULT_SERVICE_ACCOUNT_NAME ? DEFAULT_ACCOUNT_ATTEMPTS : 1;
    const interval = 100 + Math.floor(Math.random() * 100);
    for (let i = 0; i < attempts; i++) {
      if (i > 0) await this.sleep(interval);
      const found = await this.serviceAccounts(attrs.namespace, name);
      if (found) return found as ServiceAccount;
    }
    const missing = notFound({ group: '', resource: 'serviceaccount' }, name);
    throw admissionForbidden(attrs, `error looking up service account ${attrs.namespace}/${name}: ${missing.message}`);
  }
}

function isMirrorPod(pod: KubeObject): boolean {
  return Object.hasOwn(pod.metadata?.annotations ?? {}, MIRROR_POD_ANNOTATION);
}

function validateMirrorPod(attrs: AdmissionAttributes, pod: KubeObject, spec: PodSpec): void {
  if (spec.serviceAccountName) throw admissionForbidden(attrs, 'a mirror pod may not reference service accounts');
  // podutil.VisitPodSecretNames (the service account is not a secret).
  if (podReferences(pod).some(([type]) => type === 'secret')) throw admissionForbidden(attrs, 'a mirror pod may not reference secrets');
  for (const v of listOf(spec.volumes)) {
    for (const source of listOf(v.projected?.sources)) {
      if (source.serviceAccountToken) throw admissionForbidden(attrs, 'a mirror pod may not use ServiceAccountToken volume projections');
    }
  }
}

function shouldAutomount(account: ServiceAccount, spec: PodSpec): boolean {
  // The pod's preference wins, then the account's; true by default.
  if (typeof spec.automountServiceAccountToken === 'boolean') return spec.automountServiceAccountToken;
  if (typeof account.automountServiceAccountToken === 'boolean') return account.automountServiceAccountToken;
  return true;
}

/** strconv.ParseBool of the annotation. */
function enforceMountableSecrets(account: ServiceAccount): boolean {
  const value = account.metadata?.annotations?.[ENFORCE_MOUNTABLE_SECRETS_ANNOTATION];
  return value !== undefined && ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value);
}

function limitSecretReferences(account: ServiceAccount, spec: PodSpec): string | undefined {
  const mountable = new Set(listOf(account.secrets).map((s) => s.name));
  for (const volume of listOf(spec.volumes)) {
    if (!volume.secret) continue;
    const secretName = volume.secret.secretName ?? '';
    if (!mountable.has(secretName)) return `volume with secret.secretName="${secretName}" is not allowed because service account ${account.metadata?.name} does not reference that secret`;
  }
  const why =
    containerSecretReferences(listOf(spec.initContainers), 'init container', mountable, account) ??
    containerSecretReferences(listOf(spec.containers), 'container', mountable, account);
  if (why) return why;
  const pullSecrets = new Set(listOf(account.imagePullSecrets).map((s) => s.name));
  const refs = listOf(spec.imagePullSecrets);
  for (let i = 0; i < refs.length; i++) {
    const name = refs[i]!.name ?? '';
    if (!pullSecrets.has(name)) return `imagePullSecrets[${i}].name="${name}" is not allowed because service account ${account.metadata?.name} does not reference that imagePullSecret`;
  }
  return undefined;
}

function containerSecretReferences(containers: Container[], what: string, mountable: Set<string | undefined>, account: ServiceAccount): string | undefined {
  const sa = account.metadata?.name;
  for (const c of containers) {
    for (const env of listOf(c.env)) {
      const ref = env.valueFrom?.secretKeyRef;
      if (ref && !mountable.has(ref.name ?? '')) {
        return `${what} ${c.name} with envVar ${env.name} referencing secret.secretName="${ref.name ?? ''}" is not allowed because service account ${sa} does not reference that secret`;
      }
    }
    for (const from of listOf(c.envFrom)) {
      const ref = from.secretRef;
      if (ref && !mountable.has(ref.name ?? '')) {
        return `${what} ${c.name} with envFrom referencing secret.secretName="${ref.name ?? ''}" is not allowed because service account ${sa} does not reference that secret`;
      }
    }
  }
  return undefined;
}

/** mountServiceAccountToken: the projected volume (one named kube-api-access-* is reused) and its read-only mount where none is at the path. */
function mountServiceAccountToken(spec: PodSpec): void {
  const volumes = listOf(spec.volumes);
  const existing = volumes.find((v) => typeof v.name === 'string' && v.name.startsWith(`${SERVICE_ACCOUNT_VOLUME_NAME}-`));
  const volumeName = existing?.name ?? generateName(`${SERVICE_ACCOUNT_VOLUME_NAME}-`);
  let needsVolume = false;
  for (const c of [...listOf(spec.initContainers), ...listOf(spec.containers)]) {
    const mounts = listOf(c.volumeMounts);
    // A mount already at the path keeps the container's own.
    if (mounts.some((m) => m.mountPath === DEFAULT_API_TOKEN_MOUNT_PATH)) continue;
    c.volumeMounts = [...mounts, { name: volumeName, readOnly: true, mountPath: DEFAULT_API_TOKEN_MOUNT_PATH }];
    needsVolume = true;
  }
  if (!existing && needsVolume) spec.volumes = [...volumes, { name: volumeName, projected: tokenVolumeSource() }];
}
