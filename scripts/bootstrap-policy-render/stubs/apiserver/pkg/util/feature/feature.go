package feature

import (
	"fmt"

	"k8s.io/component-base/featuregate"
)

// Gates holds the default state of every gate the policy asks about; asking
// about a gate not listed panics so that no gate is silently taken as off.
type Gates map[featuregate.Feature]bool

func (g Gates) Enabled(f featuregate.Feature) bool {
	v, ok := g[f]
	if !ok {
		panic(fmt.Sprintf("feature gate %s has no 1.36 default in the harness", f))
	}
	Asked[f] = v
	return v
}

var DefaultFeatureGate = Gates{}

// Asked records every gate the policy consulted.
var Asked = map[featuregate.Feature]bool{}
