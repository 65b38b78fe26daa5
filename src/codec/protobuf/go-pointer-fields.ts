/**
 * Scalar fields that are Go pointers (*string, *int32, *int64, *bool, or a
 * pointer to a string enum type) in the Kubernetes 1.36 API types. Neither the
 * .proto files nor the OpenAPI document say so, yet the JSON form depends on
 * it: go-to-protobuf marshals every non-pointer scalar, zero or not, while
 * Go's JSON encoder drops a zero non-pointer field tagged omitempty and keeps
 * a present pointer. So a zero on the wire means "unset" for a plain field and
 * "explicitly zero" for a pointer one (Deployment replicas: 0,
 * storageClassName: "").
 *
 * Facts of the upstream Go types (k8s.io/api/<group>/<version>/types.go and
 * k8s.io/apimachinery/pkg/apis/meta/v1/types.go). Keys: "<k8s.io/api
 * directory>.<Type>" (one entry serves every version of the group that has the
 * field), "<directory>.<version>.<Type>" (replaces it for a version that
 * differs) or "meta.<Type>". Read by scripts/generate-proto.ts only, which
 * rejects a name that matches no singular scalar field; the runtime sees the
 * FIELD_POINTER bit. A field missing here decodes a zero as unset (omitted).
 */
export const GO_POINTER_FIELDS: Record<string, readonly string[]> = {
  // --- apimachinery meta/v1
  'meta.ObjectMeta': ['deletionGracePeriodSeconds'],
  'meta.ListMeta': ['remainingItemCount'],
  'meta.OwnerReference': ['controller', 'blockOwnerDeletion'],
  'meta.DeleteOptions': ['gracePeriodSeconds', 'orphanDependents', 'propagationPolicy', 'ignoreStoreReadErrorWithClusterBreakingPotential'],
  'meta.Preconditions': ['uid', 'resourceVersion'],
  'meta.ListOptions': ['timeoutSeconds', 'sendInitialEvents'],
  'meta.PatchOptions': ['force'],

  // --- core/v1
  'core.AzureDiskVolumeSource': ['cachingMode', 'fsType', 'readOnly', 'kind'],
  'core.AzureFilePersistentVolumeSource': ['secretNamespace'],
  'core.CSIVolumeSource': ['readOnly', 'fsType'],
  'core.ClientIPConfig': ['timeoutSeconds'],
  'core.ClusterTrustBundleProjection': ['name', 'signerName', 'optional'],
  'core.ConfigMap': ['immutable'],
  'core.ConfigMapEnvSource': ['optional'],
  'core.ConfigMapKeySelector': ['optional'],
  'core.ConfigMapProjection': ['optional'],
  'core.ConfigMapVolumeSource': ['defaultMode', 'optional'],
  'core.Container': ['restartPolicy'],
  'core.ContainerStatus': ['started', 'stopSignal'],
  'core.DownwardAPIVolumeFile': ['mode'],
  'core.DownwardAPIVolumeSource': ['defaultMode'],
  'core.EndpointAddress': ['nodeName'],
  'core.EndpointPort': ['appProtocol'],
  'core.EphemeralContainerCommon': ['restartPolicy'],
  'core.FCVolumeSource': ['lun'],
  'core.FileKeySelector': ['optional'],
  'core.GRPCAction': ['service'],
  'core.HostPathVolumeSource': ['type'],
  'core.ISCSIPersistentVolumeSource': ['initiatorName'],
  'core.ISCSIVolumeSource': ['initiatorName'],
  'core.KeyToPath': ['mode'],
  'core.Lifecycle': ['stopSignal'],
  'core.LoadBalancerIngress': ['ipMode'],
  'core.LocalVolumeSource': ['fsType'],
  'core.NodeFeatures': ['supplementalGroupsPolicy'],
  'core.NodeRuntimeHandlerFeatures': ['recursiveReadOnlyMounts', 'userNamespaces'],
  'core.NodeSwapStatus': ['capacity'],
  'core.PersistentVolumeClaimSpec': ['storageClassName', 'volumeMode', 'volumeAttributesClassName'],
  'core.PersistentVolumeClaimStatus': ['currentVolumeAttributesClassName'],
  'core.PersistentVolumeSpec': ['volumeMode', 'volumeAttributesClassName'],
  'core.PodCertificateProjection': ['maxExpirationSeconds'],
  'core.PodDNSConfigOption': ['value'],
  'core.PodLogOptions': ['sinceSeconds', 'tailLines', 'limitBytes', 'stream'],
  'core.PodResourceClaim': ['resourceClaimName', 'resourceClaimTemplateName'],
  'core.PodResourceClaimStatus': ['resourceClaimName'],
  'core.PodSecurityContext': ['runAsUser', 'runAsGroup', 'runAsNonRoot', 'fsGroup', 'fsGroupChangePolicy', 'supplementalGroupsPolicy', 'seLinuxChangePolicy'],
  'core.PodSpec': [
    'terminationGracePeriodSeconds',
    'activeDeadlineSeconds',
    'automountServiceAccountToken',
    'shareProcessNamespace',
    'priority',
    'enableServiceLinks',
    'preemptionPolicy',
    'runtimeClassName',
    'setHostnameAsFQDN',
    'hostUsers',
    'hostnameOverride',
  ],
  'core.PortStatus': ['error'],
  'core.Probe': ['terminationGracePeriodSeconds'],
  'core.ReplicationControllerSpec': ['replicas'],
  'core.SeccompProfile': ['localhostProfile'],
  'core.AppArmorProfile': ['localhostProfile'],
  'core.Secret': ['immutable'],
  'core.SecretEnvSource': ['optional'],
  'core.SecretKeySelector': ['optional'],
  'core.SecretProjection': ['optional'],
  'core.SecretVolumeSource': ['defaultMode', 'optional'],
  'core.SecurityContext': ['privileged', 'runAsUser', 'runAsGroup', 'runAsNonRoot', 'readOnlyRootFilesystem', 'allowPrivilegeEscalation', 'procMount'],
  'core.ServiceAccount': ['automountServiceAccountToken'],
  'core.ServiceAccountTokenProjection': ['expirationSeconds'],
  'core.ServicePort': ['appProtocol'],
  'core.ServiceSpec': ['allocateLoadBalancerNodePorts', 'loadBalancerClass', 'internalTrafficPolicy', 'ipFamilyPolicy', 'trafficDistribution'],
  'core.Toleration': ['tolerationSeconds'],
  'core.TopologySpreadConstraint': ['minDomains', 'nodeAffinityPolicy', 'nodeTaintsPolicy'],
  'core.TypedLocalObjectReference': ['apiGroup'],
  'core.TypedObjectReference': ['apiGroup', 'namespace'],
  'core.VolumeMount': ['mountPropagation', 'recursiveReadOnly'],
  'core.VolumeMountStatus': ['recursiveReadOnly'],
  'core.WindowsSecurityContextOptions': ['gmsaCredentialSpecName', 'gmsaCredentialSpec', 'runAsUserName', 'hostProcess'],

  // --- apps
  'apps.DeploymentSpec': ['replicas', 'revisionHistoryLimit', 'progressDeadlineSeconds'],
  'apps.DeploymentStatus': ['terminatingReplicas', 'collisionCount'],
  'apps.ReplicaSetSpec': ['replicas'],
  'apps.ReplicaSetStatus': ['terminatingReplicas'],
  'apps.StatefulSetSpec': ['replicas', 'revisionHistoryLimit'],
  'apps.StatefulSetStatus': ['collisionCount'],
  'apps.RollingUpdateStatefulSetStrategy': ['partition'],
  'apps.DaemonSetSpec': ['revisionHistoryLimit'],
  'apps.DaemonSetStatus': ['collisionCount'],
  'extensions.DeploymentSpec': ['replicas', 'revisionHistoryLimit', 'progressDeadlineSeconds'],
  'extensions.DeploymentStatus': ['terminatingReplicas', 'collisionCount'],
  'extensions.ReplicaSetSpec': ['replicas'],
  'extensions.ReplicaSetStatus': ['terminatingReplicas'],
  'extensions.DaemonSetSpec': ['revisionHistoryLimit'],
  'extensions.DaemonSetStatus': ['collisionCount'],
  'extensions.IngressSpec': ['ingressClassName'],
  'extensions.HTTPIngressPath': ['pathType'],
  'extensions.IngressPortStatus': ['error'],
  'extensions.NetworkPolicyPort': ['protocol', 'endPort'],

  // --- batch
  'batch.JobSpec': [
    'parallelism',
    'completions',
    'activeDeadlineSeconds',
    'backoffLimit',
    'backoffLimitPerIndex',
    'maxFailedIndexes',
    'manualSelector',
    'ttlSecondsAfterFinished',
    'completionMode',
    'suspend',
    'podReplacementPolicy',
    'managedBy',
  ],
  'batch.JobStatus': ['terminating', 'ready', 'failedIndexes'],
  'batch.CronJobSpec': ['timeZone', 'startingDeadlineSeconds', 'suspend', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit'],
  'batch.PodFailurePolicyOnExitCodesRequirement': ['containerName'],
  'batch.SuccessPolicyRule': ['succeededIndexes', 'succeededCount'],

  // --- networking
  'networking.IngressSpec': ['ingressClassName'],
  'networking.IngressClassParametersReference': ['apiGroup', 'scope', 'namespace'],
  'networking.NetworkPolicyPort': ['protocol', 'endPort'],
  'networking.HTTPIngressPath': ['pathType'],
  'networking.IngressPortStatus': ['error'],

  // --- policy, autoscaling
  'policy.PodDisruptionBudgetSpec': ['unhealthyPodEvictionPolicy'],
  'autoscaling.HorizontalPodAutoscalerSpec': ['minReplicas', 'targetCPUUtilizationPercentage'],
  'autoscaling.HorizontalPodAutoscalerStatus': ['observedGeneration', 'currentCPUUtilizationPercentage'],
  'autoscaling.MetricTarget': ['averageUtilization'],
  'autoscaling.MetricValueStatus': ['averageUtilization'],
  'autoscaling.HPAScalingRules': ['stabilizationWindowSeconds', 'selectPolicy'],
  'autoscaling.ResourceMetricSource': ['targetAverageUtilization'],
  'autoscaling.ResourceMetricStatus': ['currentAverageUtilization'],
  'autoscaling.ContainerResourceMetricSource': ['targetAverageUtilization'],
  'autoscaling.ContainerResourceMetricStatus': ['currentAverageUtilization'],

  // --- storage, scheduling, coordination, discovery
  'storage.CSIDriverSpec': [
    'attachRequired',
    'podInfoOnMount',
    'fsGroupPolicy',
    'storageCapacity',
    'requiresRepublish',
    'seLinuxMount',
    'nodeAllocatableUpdatePeriodSeconds',
    'serviceAccountTokenInSecrets',
  ],
  'storage.StorageClass': ['reclaimPolicy', 'allowVolumeExpansion', 'volumeBindingMode'],
  'storage.VolumeAttachmentSource': ['persistentVolumeName'],
  'storage.VolumeError': ['errorCode'],
  'storage.VolumeNodeResources': ['count'],
  'scheduling.PriorityClass': ['preemptionPolicy'],
  'coordination.LeaseSpec': ['holderIdentity', 'leaseDurationSeconds', 'leaseTransitions', 'strategy', 'preferredHolder'],
  'discovery.Endpoint': ['hostname', 'nodeName', 'zone'],
  'discovery.EndpointConditions': ['ready', 'serving', 'terminating'],
  'discovery.EndpointPort': ['name', 'protocol', 'port', 'appProtocol'],

  // --- certificates, authentication
  'certificates.CertificateSigningRequestSpec': ['expirationSeconds'],
  'certificates.PodCertificateRequestSpec': ['maxExpirationSeconds'],
  'authentication.TokenRequestSpec': ['expirationSeconds'],

  // --- admissionregistration
  'admissionregistration.ValidatingWebhook': ['failurePolicy', 'matchPolicy', 'sideEffects', 'timeoutSeconds'],
  'admissionregistration.MutatingWebhook': ['failurePolicy', 'matchPolicy', 'sideEffects', 'timeoutSeconds', 'reinvocationPolicy'],
  'admissionregistration.Rule': ['scope'],
  'admissionregistration.WebhookClientConfig': ['url'],
  'admissionregistration.ServiceReference': ['path', 'port'],
  'admissionregistration.ValidatingAdmissionPolicySpec': ['failurePolicy'],
  'admissionregistration.MutatingAdmissionPolicySpec': ['failurePolicy'],
  'admissionregistration.MatchResources': ['matchPolicy'],
  'admissionregistration.ParamRef': ['parameterNotFoundAction'],
  'admissionregistration.Validation': ['reason'],

  // --- flowcontrol
  'flowcontrol.LimitedPriorityLevelConfiguration': ['nominalConcurrencyShares', 'lendablePercent', 'borrowingLimitPercent'],
  'flowcontrol.ExemptPriorityLevelConfiguration': ['nominalConcurrencyShares', 'lendablePercent'],

  // --- resource (DRA)
  'resource.DeviceAttribute': ['int', 'bool', 'string', 'version'],
  'resource.DeviceToleration': ['tolerationSeconds'],
  'resource.ResourceSliceSpec': ['nodeName', 'allNodes', 'perDeviceNodeSelection'],
  // v1beta1 kept plain nodeName/allNodes; v1beta2 and v1 made them pointers
  'resource.v1beta1.ResourceSliceSpec': ['perDeviceNodeSelection'],
  'resource.Device': ['nodeName', 'allNodes', 'bindsToNode', 'allowMultipleAllocations'],
  'resource.BasicDevice': ['nodeName', 'allNodes', 'bindsToNode', 'allowMultipleAllocations'],
  'resource.DeviceRequestAllocationResult': ['adminAccess'],
  'resource.DeviceRequest': ['adminAccess'],
  'resource.ExactDeviceRequest': ['adminAccess'],
  'resource.DeviceClassSpec': ['extendedResourceName'],
};
