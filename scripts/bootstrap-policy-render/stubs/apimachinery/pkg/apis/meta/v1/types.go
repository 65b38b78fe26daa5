package v1

const (
	NamespaceSystem = "kube-system"
	NamespacePublic = "kube-public"
)

type ObjectMeta struct {
	Name        string            `json:"name,omitempty"`
	Namespace   string            `json:"namespace,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

func (m *ObjectMeta) GetLabels() map[string]string       { return m.Labels }
func (m *ObjectMeta) SetLabels(l map[string]string)      { m.Labels = l }
func (m *ObjectMeta) GetAnnotations() map[string]string  { return m.Annotations }
func (m *ObjectMeta) SetAnnotations(a map[string]string) { m.Annotations = a }

type LabelSelector struct {
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
}
