package features

import "k8s.io/component-base/featuregate"

const (
	ComponentFlagz   featuregate.Feature = "ComponentFlagz"
	ComponentStatusz featuregate.Feature = "ComponentStatusz"
)
