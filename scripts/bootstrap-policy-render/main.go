// Renders upstream bootstrappolicy (policy.go, namespace_policy.go) with the
// gate defaults given in gates.json into golden-file-shaped Lists (JSON is YAML).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	bp "k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac/bootstrappolicy"
)

type item map[string]interface{}

func toItem(apiVersion, kind string, v interface{}) item {
	b, _ := json.Marshal(v)
	m := item{}
	_ = json.Unmarshal(b, &m)
	m["apiVersion"] = apiVersion
	m["kind"] = kind
	return m
}

func write(dir, file string, items []item) {
	sort.SliceStable(items, func(i, j int) bool {
		mi, mj := items[i]["metadata"].(map[string]interface{}), items[j]["metadata"].(map[string]interface{})
		ni, _ := mi["namespace"].(string)
		nj, _ := mj["namespace"].(string)
		if ni != nj {
			return ni < nj
		}
		return mi["name"].(string) < mj["name"].(string)
	})
	b, _ := json.MarshalIndent(map[string]interface{}{"apiVersion": "v1", "kind": "List", "metadata": map[string]interface{}{}, "items": items}, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, file), append(b, '\n'), 0o644); err != nil {
		panic(err)
	}
}

func main() {
	gatesFile, outDir := os.Args[1], os.Args[2]
	b, err := os.ReadFile(gatesFile)
	if err != nil {
		panic(err)
	}
	gates := map[string]bool{}
	if err := json.Unmarshal(b, &gates); err != nil {
		panic(err)
	}
	for k, v := range gates {
		feature.DefaultFeatureGate[featuregate.Feature(k)] = v
	}
	const rbac = "rbac.authorization.k8s.io/v1"
	var roles, bindings, nsRoles, nsBindings []item
	for _, r := range bp.ClusterRoles() {
		roles = append(roles, toItem(rbac, "ClusterRole", r))
	}
	for _, r := range bp.ClusterRoleBindings() {
		bindings = append(bindings, toItem(rbac, "ClusterRoleBinding", r))
	}
	for _, rs := range bp.NamespaceRoles() {
		for _, r := range rs {
			nsRoles = append(nsRoles, toItem(rbac, "Role", r))
		}
	}
	for _, rs := range bp.NamespaceRoleBindings() {
		for _, r := range rs {
			nsBindings = append(nsBindings, toItem(rbac, "RoleBinding", r))
		}
	}
	write(outDir, "cluster-roles.yaml", roles)
	write(outDir, "cluster-role-bindings.yaml", bindings)
	write(outDir, "namespace-roles.yaml", nsRoles)
	write(outDir, "namespace-role-bindings.yaml", nsBindings)
	for k := range gates {
		if _, ok := feature.Asked[featuregate.Feature(k)]; !ok {
			fmt.Fprintf(os.Stderr, "gate %s was never consulted\n", k)
			os.Exit(1)
		}
	}
	fmt.Println("gates consulted:", len(feature.Asked))
}
