package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

const (
	GroupName               = "rbac.authorization.k8s.io"
	AutoUpdateAnnotationKey = "rbac.authorization.kubernetes.io/autoupdate"
	GroupKind               = "Group"
	ServiceAccountKind      = "ServiceAccount"
	UserKind                = "User"
)

type PolicyRule struct {
	Verbs           []string `json:"verbs"`
	APIGroups       []string `json:"apiGroups,omitempty"`
	Resources       []string `json:"resources,omitempty"`
	ResourceNames   []string `json:"resourceNames,omitempty"`
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
}

type AggregationRule struct {
	ClusterRoleSelectors []metav1.LabelSelector `json:"clusterRoleSelectors,omitempty"`
}

type ClusterRole struct {
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Rules             []PolicyRule     `json:"rules"`
	AggregationRule   *AggregationRule `json:"aggregationRule,omitempty"`
}

type Role struct {
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Rules             []PolicyRule `json:"rules"`
}

type Subject struct {
	Kind      string `json:"kind"`
	APIGroup  string `json:"apiGroup,omitempty"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

type RoleRef struct {
	APIGroup string `json:"apiGroup"`
	Kind     string `json:"kind"`
	Name     string `json:"name"`
}

type ClusterRoleBinding struct {
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Subjects          []Subject `json:"subjects,omitempty"`
	RoleRef           RoleRef   `json:"roleRef"`
}

type RoleBinding struct {
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Subjects          []Subject `json:"subjects,omitempty"`
	RoleRef           RoleRef   `json:"roleRef"`
}
