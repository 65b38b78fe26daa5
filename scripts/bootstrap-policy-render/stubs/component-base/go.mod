module k8s.io/component-base
go 1.19
