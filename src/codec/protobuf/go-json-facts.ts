/**
 * Facts of the upstream Go structs (Kubernetes 1.36, k8s.io/api/<group>/<version>/types.go
 * and k8s.io/apimachinery/pkg/apis/meta/v1/types.go) that decide what
 * encoding/json and go-to-protobuf write, where the .proto comments and the
 * OpenAPI document do not say it. Read by scripts/generate-proto.ts only,
 * which rejects an entry that matches no field; the runtime sees the
 * FIELD_OMITEMPTY / FIELD_POINTER / FIELD_OMITZERO bits.
 *
 * The rules the generator applies first (kube-openapi's isOptional read
 * backwards): a field whose comment has neither `+optional` nor `+required`
 * has omitempty exactly when OpenAPI does not list it as required; `+optional`
 * usually goes with omitempty and `+required` usually without. A message
 * field is a Go pointer unless it is ObjectMeta/ListMeta, a `spec`/`status`,
 * or listed in GO_VALUE_STRUCTS (structs are never "empty" to encoding/json, so
 * a value struct is always written: `{}`, a zero Time as null, a zero
 * Quantity as "0", a zero IntOrString as 0).
 *
 * Keys as in go-pointer-fields.ts: "<k8s.io/api directory>.<Type>" for every
 * version of the group, "<directory>.<version>.<Type>" for one version,
 * "meta.<Type>", "util.intstr.<Type>".
 */

/**
 * `+optional` in the comment, but the json tag has no omitempty: a zero value
 * is written. Many are fields that 1.36 tagged `+optional` for declarative
 * validation although their json tag kept no omitempty; found by comparing
 * the OpenAPI `required` sets of older releases (a json tag never changes)
 * with 1.36's, and checked against the Go sources.
 */
export const GO_NOT_OMITEMPTY: Record<string, readonly string[]> = {
  'apps.StatefulSetOrdinals': ['start'],
  'apps.StatefulSetStatus': ['availableReplicas'],
  'policy.PodDisruptionBudgetStatus': ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'],
  'core.Event': ['reportingComponent', 'reportingInstance'],
  'rbac.Role': ['rules'],
  'rbac.RoleRef': ['apiGroup'],
  'apps.StatefulSetSpec': ['serviceName'],
  'discovery.EndpointSlice': ['endpoints'],
  'scheduling.PriorityClass': ['value'],
  'authentication.TokenRequestSpec': ['audiences'],
  'authentication.TokenRequestStatus': ['token'],
  'rbac.ClusterRole': ['rules'],
  'autoscaling.v2.HorizontalPodAutoscalerStatus': ['currentMetrics'],
};

/** `+required` in the comment, yet the json tag has omitempty: a zero value is not written. */
export const GO_REQUIRED_OMITEMPTY: Record<string, readonly string[]> = {};

/** encoding/json's `omitzero` (Go 1.24): the zero value is not written although the type is a struct. */
export const GO_OMITZERO: Record<string, readonly string[]> = {
  // kubernetes/kubernetes#130989 (1.33): `json:"creationTimestamp,omitempty,omitzero"`.
  'meta.ObjectMeta': ['creationTimestamp'],
};

/**
 * Message fields that are Go values, not pointers, beyond the rule above
 * (metav1.Time, resource.Quantity and intstr.IntOrString fields included).
 */
export const GO_VALUE_STRUCTS: Record<string, readonly string[]> = {
  // --- apimachinery
  'meta.ObjectMeta': ['creationTimestamp'],
  'meta.Condition': ['lastTransitionTime'],
  'meta.WatchEvent': ['object'],

  // --- core/v1
  'core.Binding': ['target'],
  'core.Container': ['resources'],
  'core.EphemeralContainerCommon': ['resources'],
  'core.ContainerStatus': ['state', 'lastState'],
  'core.ContainerStateRunning': ['startedAt'],
  'core.ContainerStateTerminated': ['startedAt', 'finishedAt'],
  'core.PodCondition': ['lastProbeTime', 'lastTransitionTime'],
  'core.NodeCondition': ['lastHeartbeatTime', 'lastTransitionTime'],
  'core.NodeStatus': ['daemonEndpoints', 'nodeInfo'],
  'core.NodeDaemonEndpoints': ['kubeletEndpoint'],
  'core.NamespaceCondition': ['lastTransitionTime'],
  'core.PersistentVolumeClaimCondition': ['lastProbeTime', 'lastTransitionTime'],
  'core.PersistentVolumeClaimSpec': ['resources'],
  'core.ReplicationControllerCondition': ['lastTransitionTime'],
  'core.ServicePort': ['targetPort'],
  'core.ServiceStatus': ['loadBalancer'],
  'core.HTTPGetAction': ['port'],
  'core.TCPSocketAction': ['port'],
  'core.Event': ['involvedObject', 'source', 'firstTimestamp', 'lastTimestamp', 'eventTime'],
  'core.EventSeries': ['lastObservedTime'],
  'core.PodTemplate': ['template'],

  // --- apps, extensions
  'apps.DeploymentSpec': ['template', 'strategy'],
  'apps.DeploymentCondition': ['lastUpdateTime', 'lastTransitionTime'],
  'apps.DaemonSetSpec': ['template', 'updateStrategy'],
  'apps.DaemonSetCondition': ['lastTransitionTime'],
  'apps.StatefulSetSpec': ['template', 'updateStrategy'],
  'apps.StatefulSetCondition': ['lastTransitionTime'],
  'apps.ReplicaSetSpec': ['template'],
  'apps.ReplicaSetCondition': ['lastTransitionTime'],
  'apps.ControllerRevision': ['data'],
  'extensions.DeploymentSpec': ['template', 'strategy'],
  'extensions.DeploymentCondition': ['lastUpdateTime', 'lastTransitionTime'],
  'extensions.DaemonSetSpec': ['template', 'updateStrategy'],
  'extensions.DaemonSetCondition': ['lastTransitionTime'],
  'extensions.ReplicaSetSpec': ['template'],
  'extensions.ReplicaSetCondition': ['lastTransitionTime'],
  'extensions.IngressBackend': ['servicePort'],
  'extensions.HTTPIngressPath': ['backend'],
  'extensions.IngressStatus': ['loadBalancer'],
  'extensions.NetworkPolicySpec': ['podSelector'],

  // --- batch
  'batch.JobSpec': ['template'],
  'batch.JobCondition': ['lastProbeTime', 'lastTransitionTime'],
  'batch.CronJobSpec': ['jobTemplate'],

  // --- autoscaling
  'autoscaling.HorizontalPodAutoscalerSpec': ['scaleTargetRef'],
  'autoscaling.HorizontalPodAutoscalerCondition': ['lastTransitionTime'],
  'autoscaling.v2.ResourceMetricSource': ['target'],
  'autoscaling.v2.ContainerResourceMetricSource': ['target'],
  'autoscaling.v2.ObjectMetricSource': ['describedObject', 'target', 'metric'],
  'autoscaling.v2.PodsMetricSource': ['metric', 'target'],
  'autoscaling.v2.ExternalMetricSource': ['metric', 'target'],
  'autoscaling.v2.ResourceMetricStatus': ['current'],
  'autoscaling.v2.ContainerResourceMetricStatus': ['current'],
  'autoscaling.v2.ObjectMetricStatus': ['metric', 'current', 'describedObject'],
  'autoscaling.v2.PodsMetricStatus': ['metric', 'current'],
  'autoscaling.v2.ExternalMetricStatus': ['metric', 'current'],

  // --- networking, rbac, events
  'networking.NetworkPolicySpec': ['podSelector'],
  'networking.HTTPIngressPath': ['backend'],
  'networking.IngressStatus': ['loadBalancer'],
  'networking.IngressServiceBackend': ['port'],
  'networking.v1beta1.IngressBackend': ['servicePort'],
  'rbac.RoleBinding': ['roleRef'],
  'rbac.ClusterRoleBinding': ['roleRef'],
  'events.Event': ['eventTime', 'regarding', 'deprecatedSource', 'deprecatedFirstTimestamp', 'deprecatedLastTimestamp'],
  'events.EventSeries': ['lastObservedTime'],

  // --- others whose conditions carry value times
  'certificates.CertificateSigningRequestCondition': ['lastUpdateTime', 'lastTransitionTime'],
  'flowcontrol.FlowSchemaCondition': ['lastTransitionTime'],
  'flowcontrol.PriorityLevelConfigurationCondition': ['lastTransitionTime'],
  'storage.VolumeAttachmentSpec': ['source'],
  'storage.VolumeError': ['time'],
  'authentication.TokenReviewStatus': ['user'],
  'authentication.TokenRequestStatus': ['expirationTimestamp'],
  'discovery.Endpoint': ['conditions'],
  'apiserverinternal.StorageVersionCondition': ['lastTransitionTime'],
};

/** Message fields the rule makes values that are Go pointers all the same. */
export const GO_POINTER_STRUCTS: Record<string, readonly string[]> = {
  // `Status *ResourcePoolStatusRequestStatus`: nil until a controller fills it (the strategy drops it on create).
  'resource.v1alpha3.ResourcePoolStatusRequest': ['status'],
};
