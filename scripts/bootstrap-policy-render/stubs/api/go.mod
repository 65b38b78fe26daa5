module k8s.io/api
go 1.19
require k8s.io/apimachinery v0.0.0
replace k8s.io/apimachinery => ../apimachinery
