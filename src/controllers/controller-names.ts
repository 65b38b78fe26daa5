/**
 * kube-controller-manager's controller names and its `--controllers`
 * syntax: `*` turns on everything on by default, `name` turns one on,
 * `-name` turns one off; the first mention of a controller decides; old
 * names are aliases of the canonical ones. Capstan runs only some of them
 * (README: which and why), but accepts every name kube does.
 */

export const GARBAGE_COLLECTOR = 'garbage-collector-controller';
export const NAMESPACE = 'namespace-controller';
export const SERVICE_ACCOUNT = 'serviceaccount-controller';
export const SERVICE_ACCOUNT_TOKEN = 'serviceaccount-token-controller';
export const ROOT_CA_PUBLISHER = 'root-ca-certificate-publisher-controller';
export const CLUSTERROLE_AGGREGATION = 'clusterrole-aggregation-controller';
export const BOOTSTRAP_SIGNER = 'bootstrap-signer-controller';
export const TOKEN_CLEANER = 'token-cleaner-controller';
export const RESOURCE_QUOTA = 'resourcequota-controller';
export const LEGACY_SA_TOKEN_CLEANER = 'legacy-serviceaccount-token-cleaner-controller';

/** Canonical name → its old names (cmd/kube-controller-manager/names and the descriptors' aliases). */
const KNOWN: Record<string, string[]> = {
  [SERVICE_ACCOUNT_TOKEN]: ['serviceaccount-token'],
  'endpoints-controller': ['endpoint'],
  'endpointslice-controller': ['endpointslice'],
  'endpointslice-mirroring-controller': ['endpointslicemirroring'],
  'replicationcontroller-controller': ['replicationcontroller'],
  'pod-garbage-collector-controller': ['podgc'],
  'resourcequota-controller': ['resourcequota'],
  [NAMESPACE]: ['namespace'],
  [SERVICE_ACCOUNT]: ['serviceaccount'],
  [GARBAGE_COLLECTOR]: ['garbagecollector'],
  'daemonset-controller': ['daemonset'],
  'job-controller': ['job'],
  'deployment-controller': ['deployment'],
  'replicaset-controller': ['replicaset'],
  'horizontal-pod-autoscaler-controller': ['horizontalpodautoscaling'],
  'disruption-controller': ['disruption'],
  'statefulset-controller': ['statefulset'],
  'cronjob-controller': ['cronjob'],
  'certificatesigningrequest-signing-controller': ['csrsigning'],
  'certificatesigningrequest-approving-controller': ['csrapproving'],
  'certificatesigningrequest-cleaner-controller': ['csrcleaner'],
  'ttl-controller': ['ttl'],
  [BOOTSTRAP_SIGNER]: ['bootstrapsigner'],
  [TOKEN_CLEANER]: ['tokencleaner'],
  'node-ipam-controller': ['nodeipam'],
  'node-lifecycle-controller': ['nodelifecycle'],
  'taint-eviction-controller': [],
  'persistentvolume-binder-controller': ['persistentvolume-binder'],
  'persistentvolume-attach-detach-controller': ['attachdetach'],
  'persistentvolume-expander-controller': ['persistentvolume-expander'],
  [CLUSTERROLE_AGGREGATION]: ['clusterrole-aggregation'],
  'persistentvolumeclaim-protection-controller': ['pvc-protection'],
  'persistentvolume-protection-controller': ['pv-protection'],
  'ttl-after-finished-controller': ['ttl-after-finished'],
  [ROOT_CA_PUBLISHER]: ['root-ca-cert-publisher'],
  'ephemeral-volume-controller': ['ephemeral-volume'],
  'storageversion-garbage-collector-controller': ['storage-version-gc'],
  'resourceclaim-controller': ['resource-claim-controller'],
  [LEGACY_SA_TOKEN_CLEANER]: ['legacy-service-account-token-cleaner'],
  'validatingadmissionpolicy-status-controller': [],
  'service-cidr-controller': [],
  'storage-version-migrator-controller': [],
  'selinux-warning-controller': [],
};

/** Off unless named (kube's disabled-by-default set). */
const DISABLED_BY_DEFAULT = new Set([BOOTSTRAP_SIGNER, TOKEN_CLEANER, 'selinux-warning-controller']);

const ALIASES = new Map<string, string>(Object.entries(KNOWN).flatMap(([name, aliases]) => aliases.map((a) => [a, name] as [string, string])));

function canonical(name: string): string {
  return ALIASES.get(name) ?? name;
}

/** kube's GenericControllerManagerConfigurationOptions.Validate texts, one per unknown name. */
export function validateControllers(values: readonly string[]): string[] {
  const errs: string[] = [];
  for (const v of values) {
    if (v === '*') continue;
    const name = v.startsWith('-') ? v.slice(1) : v;
    if (!(canonical(name) in KNOWN)) errs.push(`"${name}" is not in the list of known controllers`);
  }
  return errs;
}

/** Whether `--controllers=<values>` turns the controller `name` (canonical) on. */
export function isControllerEnabled(values: readonly string[], name: string): boolean {
  let star = false;
  for (const v of values) {
    if (v === '*') star = true;
    else if (v.startsWith('-')) {
      if (canonical(v.slice(1)) === name) return false;
    } else if (canonical(v) === name) return true;
  }
  return star && !DISABLED_BY_DEFAULT.has(name);
}

export const DEFAULT_CONTROLLERS: readonly string[] = ['*'];
