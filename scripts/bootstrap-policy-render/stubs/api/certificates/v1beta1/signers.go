package v1beta1

const (
	KubeAPIServerClientSignerName        = "kubernetes.io/kube-apiserver-client"
	KubeAPIServerClientKubeletSignerName = "kubernetes.io/kube-apiserver-client-kubelet"
	KubeletServingSignerName             = "kubernetes.io/kubelet-serving"
	LegacyUnknownSignerName              = "kubernetes.io/legacy-unknown"
)
