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
export const VAP_STATUS = 'validatingadmissionpolicy-status-controller';
export const PVC_PROTECTION = 'persistentvolumeclaim-protection-controller';
export const PV_PROTECTION = 'persistentvolume-protection-controller';
export const CSR_SIGNING = 'certificatesigningrequest-signing-controller';
export const CSR_CLEANER = 'certificatesigningrequest-cleaner-controller';
export const ENDPOINTSLICE_MIRRORING = 'endpointslice-mirroring-controller';

/**
 * kube-controller-manager 1.36's controllers (app.NewControllerDescriptors):
 * canonical name → its old names (the descriptors' aliases). From the 1.34
 * `--controllers` help (50 names) plus 1.36's resourcepoolstatusrequest-controller
 * (resource.k8s.io/v1alpha3 ResourcePoolStatusRequest) and
 * podgroup-protection-controller (scheduling.k8s.io/v1alpha2 PodGroup).
 */
const KNOWN: Record<string, string[]> = {
  [SERVICE_ACCOUNT_TOKEN]: ['serviceaccount-token'],
  'endpoints-controller': ['endpoint'],
  'endpointslice-controller': ['endpointslice'],
  [ENDPOINTSLICE_MIRRORING]: ['endpointslicemirroring'],
  'replicationcontroller-controller': ['replicationcontroller'],
  'pod-garbage-collector-controller': ['podgc'],
  [RESOURCE_QUOTA]: ['resourcequota'],
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
  [CSR_SIGNING]: ['csrsigning'],
  'certificatesigningrequest-approving-controller': ['csrapproving'],
  [CSR_CLEANER]: ['csrcleaner'],
  'podcertificaterequest-cleaner-controller': [],
  'ttl-controller': ['ttl'],
  [BOOTSTRAP_SIGNER]: ['bootstrapsigner'],
  [TOKEN_CLEANER]: ['tokencleaner'],
  'node-ipam-controller': ['nodeipam'],
  'node-lifecycle-controller': ['nodelifecycle'],
  // Cloud provider controllers (k8s.io/cloud-provider/names).
  'service-lb-controller': ['service'],
  'node-route-controller': ['route'],
  'cloud-node-lifecycle-controller': ['cloud-node-lifecycle'],
  'persistentvolume-binder-controller': ['persistentvolume-binder'],
  'persistentvolume-attach-detach-controller': ['attachdetach'],
  'persistentvolume-expander-controller': ['persistentvolume-expander'],
  [CLUSTERROLE_AGGREGATION]: ['clusterrole-aggregation'],
  [PVC_PROTECTION]: ['pvc-protection'],
  [PV_PROTECTION]: ['pv-protection'],
  'volumeattributesclass-protection-controller': [],
  'ttl-after-finished-controller': ['ttl-after-finished'],
  [ROOT_CA_PUBLISHER]: ['root-ca-cert-publisher'],
  'kube-apiserver-serving-clustertrustbundle-publisher-controller': [],
  'ephemeral-volume-controller': ['ephemeral-volume'],
  // Feature-gated in kube.
  'storageversion-garbage-collector-controller': ['storage-version-gc'],
  'resourceclaim-controller': ['resource-claim-controller'],
  'device-taint-eviction-controller': [],
  'resourcepoolstatusrequest-controller': [],
  'podgroup-protection-controller': [],
  [LEGACY_SA_TOKEN_CLEANER]: ['legacy-service-account-token-cleaner'],
  [VAP_STATUS]: [],
  'taint-eviction-controller': [],
  'service-cidr-controller': [],
  'storage-version-migrator-controller': [],
  'selinux-warning-controller': [],
};

/** Off unless named (kube's IsDisabledByDefault descriptors). */
const DISABLED_BY_DEFAULT = new Set([BOOTSTRAP_SIGNER, 'selinux-warning-controller', TOKEN_CLEANER]);

/** Every canonical name, sorted (kube's KnownControllers). */
export const KNOWN_CONTROLLERS: readonly string[] = Object.keys(KNOWN).sort();
/** kube's ControllersDisabledByDefault, sorted. */
export const CONTROLLERS_DISABLED_BY_DEFAULT: readonly string[] = [...DISABLED_BY_DEFAULT].sort();

/**
 * The controllers Capstan runs in-process (README: "In-process
 * controllers" says why the others do not run); a test holds the README's
 * table to this and to KNOWN_CONTROLLERS.
 */
export const RUN_IN_CAPSTAN: ReadonlySet<string> = new Set([
  GARBAGE_COLLECTOR,
  NAMESPACE,
  SERVICE_ACCOUNT,
  ROOT_CA_PUBLISHER,
  SERVICE_ACCOUNT_TOKEN,
  CLUSTERROLE_AGGREGATION,
  TOKEN_CLEANER,
  BOOTSTRAP_SIGNER,
  RESOURCE_QUOTA,
  LEGACY_SA_TOKEN_CLEANER,
  VAP_STATUS,
  PVC_PROTECTION,
  PV_PROTECTION,
  CSR_SIGNING,
  CSR_CLEANER,
  ENDPOINTSLICE_MIRRORING,
]);

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
