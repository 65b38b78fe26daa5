module k8s.io/klog/v2
go 1.19
