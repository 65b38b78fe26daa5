module k8s.io/apiserver
go 1.19
require k8s.io/component-base v0.0.0
replace k8s.io/component-base => ../component-base
