package features

import "k8s.io/component-base/featuregate"

const (
	ClusterTrustBundle                               featuregate.Feature = "ClusterTrustBundle"
	DRADeviceTaintRules                              featuregate.Feature = "DRADeviceTaintRules"
	DRAExtendedResource                              featuregate.Feature = "DRAExtendedResource"
	DynamicResourceAllocation                        featuregate.Feature = "DynamicResourceAllocation"
	GenericWorkload                                  featuregate.Feature = "GenericWorkload"
	KubeletFineGrainedAuthz                          featuregate.Feature = "KubeletFineGrainedAuthz"
	KubeletServiceAccountTokenForCredentialProviders featuregate.Feature = "KubeletServiceAccountTokenForCredentialProviders"
	MultiCIDRServiceAllocator                        featuregate.Feature = "MultiCIDRServiceAllocator"
	PodCertificateRequest                            featuregate.Feature = "PodCertificateRequest"
)
