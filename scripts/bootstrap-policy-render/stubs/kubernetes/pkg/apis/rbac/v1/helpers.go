// Stand-in for k8s.io/kubernetes/pkg/apis/rbac/v1 builders with the same
// observable behaviour: rules keep the given order of calls, each list sorted
// once the rule is built; bindings append subjects in call order.
package v1

import (
	"fmt"
	"sort"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const GroupName = rbacv1.GroupName

type PolicyRuleBuilder struct{ PolicyRule rbacv1.PolicyRule }

func NewRule(verbs ...string) *PolicyRuleBuilder {
	return &PolicyRuleBuilder{PolicyRule: rbacv1.PolicyRule{Verbs: append([]string(nil), verbs...)}}
}
func (r *PolicyRuleBuilder) Groups(g ...string) *PolicyRuleBuilder {
	r.PolicyRule.APIGroups = append(r.PolicyRule.APIGroups, g...)
	return r
}
func (r *PolicyRuleBuilder) Resources(x ...string) *PolicyRuleBuilder {
	r.PolicyRule.Resources = append(r.PolicyRule.Resources, x...)
	return r
}
func (r *PolicyRuleBuilder) Names(x ...string) *PolicyRuleBuilder {
	r.PolicyRule.ResourceNames = append(r.PolicyRule.ResourceNames, x...)
	return r
}
func (r *PolicyRuleBuilder) URLs(x ...string) *PolicyRuleBuilder {
	r.PolicyRule.NonResourceURLs = append(r.PolicyRule.NonResourceURLs, x...)
	return r
}
func (r *PolicyRuleBuilder) RuleOrDie() rbacv1.PolicyRule {
	p := r.PolicyRule
	if len(p.Verbs) == 0 || (len(p.NonResourceURLs) == 0 && (len(p.Resources) == 0 || len(p.APIGroups) == 0)) {
		panic(fmt.Sprintf("bad rule %#v", p))
	}
	for _, s := range [][]string{p.Resources, p.ResourceNames, p.APIGroups, p.NonResourceURLs, p.Verbs} {
		sort.Strings(s)
	}
	return p
}

type ClusterRoleBindingBuilder struct{ ClusterRoleBinding rbacv1.ClusterRoleBinding }

func NewClusterBinding(name string) *ClusterRoleBindingBuilder {
	return &ClusterRoleBindingBuilder{ClusterRoleBinding: rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: GroupName, Kind: "ClusterRole", Name: name},
	}}
}
func (r *ClusterRoleBindingBuilder) Groups(x ...string) *ClusterRoleBindingBuilder {
	for _, n := range x {
		r.ClusterRoleBinding.Subjects = append(r.ClusterRoleBinding.Subjects, rbacv1.Subject{APIGroup: GroupName, Kind: rbacv1.GroupKind, Name: n})
	}
	return r
}
func (r *ClusterRoleBindingBuilder) Users(x ...string) *ClusterRoleBindingBuilder {
	for _, n := range x {
		r.ClusterRoleBinding.Subjects = append(r.ClusterRoleBinding.Subjects, rbacv1.Subject{APIGroup: GroupName, Kind: rbacv1.UserKind, Name: n})
	}
	return r
}
func (r *ClusterRoleBindingBuilder) SAs(ns string, x ...string) *ClusterRoleBindingBuilder {
	for _, n := range x {
		r.ClusterRoleBinding.Subjects = append(r.ClusterRoleBinding.Subjects, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: n})
	}
	return r
}
func (r *ClusterRoleBindingBuilder) BindingOrDie() rbacv1.ClusterRoleBinding {
	if len(r.ClusterRoleBinding.Subjects) == 0 {
		panic("subjects are required")
	}
	return r.ClusterRoleBinding
}

type RoleBindingBuilder struct{ RoleBinding rbacv1.RoleBinding }

func NewRoleBinding(roleName, namespace string) *RoleBindingBuilder {
	return &RoleBindingBuilder{RoleBinding: rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: roleName, Namespace: namespace},
		RoleRef:    rbacv1.RoleRef{APIGroup: GroupName, Kind: "Role", Name: roleName},
	}}
}
func (r *RoleBindingBuilder) Groups(x ...string) *RoleBindingBuilder {
	for _, n := range x {
		r.RoleBinding.Subjects = append(r.RoleBinding.Subjects, rbacv1.Subject{APIGroup: GroupName, Kind: rbacv1.GroupKind, Name: n})
	}
	return r
}
func (r *RoleBindingBuilder) Users(x ...string) *RoleBindingBuilder {
	for _, n := range x {
		r.RoleBinding.Subjects = append(r.RoleBinding.Subjects, rbacv1.Subject{APIGroup: GroupName, Kind: rbacv1.UserKind, Name: n})
	}
	return r
}
func (r *RoleBindingBuilder) SAs(ns string, x ...string) *RoleBindingBuilder {
	for _, n := range x {
		r.RoleBinding.Subjects = append(r.RoleBinding.Subjects, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: n})
	}
	return r
}
func (r *RoleBindingBuilder) BindingOrDie() rbacv1.RoleBinding {
	if len(r.RoleBinding.Subjects) == 0 {
		panic("subjects are required")
	}
	return r.RoleBinding
}
