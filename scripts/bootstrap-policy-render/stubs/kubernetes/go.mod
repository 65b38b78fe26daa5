module k8s.io/kubernetes
go 1.19
require (
	k8s.io/api v0.0.0
	k8s.io/apimachinery v0.0.0
	k8s.io/apiserver v0.0.0
	k8s.io/component-base v0.0.0
	k8s.io/klog/v2 v2.0.0
)
replace (
	k8s.io/api => ../api
	k8s.io/apimachinery => ../apimachinery
	k8s.io/apiserver => ../apiserver
	k8s.io/component-base => ../component-base
	k8s.io/klog/v2 => ../klog
)
