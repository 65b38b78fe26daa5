module harness
go 1.19
require (
	k8s.io/api v0.0.0
	k8s.io/apimachinery v0.0.0
	k8s.io/apiserver v0.0.0
	k8s.io/component-base v0.0.0
	k8s.io/klog/v2 v2.0.0
	k8s.io/kubernetes v0.0.0
)
replace (
	k8s.io/api => ./stubs/api
	k8s.io/apimachinery => ./stubs/apimachinery
	k8s.io/apiserver => ./stubs/apiserver
	k8s.io/component-base => ./stubs/component-base
	k8s.io/klog/v2 => ./stubs/klog
	k8s.io/kubernetes => ./stubs/kubernetes
)
