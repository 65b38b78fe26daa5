/**
 * Scalar fields that are Go pointers (*string, *int32, *int64, *bool) in the
 * Kubernetes 1.36 API types. Neither the .proto files nor the OpenAPI document
 * say so, yet the JSON form depends on it: go-to-protobuf marshals every
 * non-pointer scalar, zero or not, while Go's JSON encoder drops a zero
 * non-pointer field tagged omitempty and keeps a present pointer. So a zero in
 * a protobuf body means "unset" for a non-pointer field and "explicitly zero"
 * for a pointer one (Deployment replicas: 0, storageClassName: "").
 *
 * Keys: "<k8s.io/api directory>.<Type>" (one entry serves every version of the
 * group) or "meta.<Type>" for apimachinery meta/v1. Read by
 * scripts/generate-proto.ts only; the runtime sees the FIELD_POINTER bit.
 */
export const GO_POINTER_FIELDS: Record<string, readonly string[]> = {
  'meta.ObjectMeta': ['deletionGracePeriodSeconds'],
  'meta.ListMeta': ['remainingItemCount'],
  'meta.OwnerReference': ['controller', 'blockOwnerDeletion'],
  'apps.DeploymentSpec': ['replicas', 'revisionHistoryLimit', 'progressDeadlineSeconds'],
};
