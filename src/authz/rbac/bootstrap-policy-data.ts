/**
 * kube-apiserver's default RBAC policy, as data. Transcribed from upstream
 * Kubernetes' own golden files of the policy its code builds with default
 * feature gates (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata/
 * {cluster-roles,controller-roles,namespace-roles,namespace-role-bindings}.yaml)
 * and the cluster role bindings of bootstrappolicy/policy.go
 * (ClusterRoleBindings) and controller_policy.go (one binding per controller
 * role to the kube-system service account of the same name), as of the
 * 1.34–1.36 line (leasecandidates, resourceslices deletecollection for nodes,
 * selfsubjectreviews for basic users). bootstrap-policy.ts parses it.
 *
 * Grammar, one item per line:
 *   clusterrole NAME [label=K=V ...] [aggregate=K=V ...]
 *   role NAMESPACE NAME
 *     GROUPS | RESOURCES | VERBS [| RESOURCENAMES]     ("" is written core)
 *     @ URLS | VERBS                                   (non-resource rule)
 *   clusterrolebinding NAME ROLE [SUBJECT ...]
 *   rolebinding NAMESPACE NAME ROLEKIND ROLE [SUBJECT ...]
 * SUBJECT: User:name, Group:name, ServiceAccount:namespace/name.
 * `controllers` marks the start of the controller roles (each gets its binding).
 */
export const BOOTSTRAP_POLICY = `
clusterrole admin aggregate=rbac.authorization.k8s.io/aggregate-to-admin=true
clusterrole cluster-admin
  * | * | *
  @ * | *
clusterrole edit label=rbac.authorization.k8s.io/aggregate-to-admin=true aggregate=rbac.authorization.k8s.io/aggregate-to-edit=true
clusterrole system:aggregate-to-admin label=rbac.authorization.k8s.io/aggregate-to-admin=true
  authorization.k8s.io | localsubjectaccessreviews | create
  rbac.authorization.k8s.io | rolebindings,roles | create,delete,deletecollection,get,list,patch,update,watch
clusterrole system:aggregate-to-edit label=rbac.authorization.k8s.io/aggregate-to-edit=true
  core | pods/attach,pods/exec,pods/portforward,pods/proxy,secrets,services/proxy | get,list,watch
  core | serviceaccounts | impersonate
  core | pods,pods/attach,pods/exec,pods/portforward,pods/proxy | create,delete,deletecollection,patch,update
  core | pods/eviction | create
  core | configmaps,events,persistentvolumeclaims,replicationcontrollers,replicationcontrollers/scale,secrets,serviceaccounts,services,services/proxy | create,delete,deletecollection,patch,update
  core | serviceaccounts/token | create
  apps | daemonsets,deployments,deployments/rollback,deployments/scale,replicasets,replicasets/scale,statefulsets,statefulsets/scale | create,delete,deletecollection,patch,update
  autoscaling | horizontalpodautoscalers | create,delete,deletecollection,patch,update
  batch | cronjobs,jobs | create,delete,deletecollection,patch,update
  extensions | daemonsets,deployments,deployments/rollback,deployments/scale,ingresses,networkpolicies,replicasets,replicasets/scale,replicationcontrollers/scale | create,delete,deletecollection,patch,update
  policy | poddisruptionbudgets | create,delete,deletecollection,patch,update
  networking.k8s.io | ingresses,networkpolicies | create,delete,deletecollection,patch,update
  coordination.k8s.io | leases | create,delete,deletecollection,get,list,patch,update,watch
clusterrole system:aggregate-to-view label=rbac.authorization.k8s.io/aggregate-to-view=true
  core | configmaps,endpoints,persistentvolumeclaims,persistentvolumeclaims/status,pods,replicationcontrollers,replicationcontrollers/scale,serviceaccounts,services,services/status | get,list,watch
  core | bindings,events,limitranges,namespaces/status,pods/log,pods/status,replicationcontrollers/status,resourcequotas,resourcequotas/status | get,list,watch
  core | namespaces | get,list,watch
  discovery.k8s.io | endpointslices | get,list,watch
  apps | controllerrevisions,daemonsets,daemonsets/status,deployments,deployments/scale,deployments/status,replicasets,replicasets/scale,replicasets/status,statefulsets,statefulsets/scale,statefulsets/status | get,list,watch
  autoscaling | horizontalpodautoscalers,horizontalpodautoscalers/status | get,list,watch
  batch | cronjobs,cronjobs/status,jobs,jobs/status | get,list,watch
  extensions | daemonsets,daemonsets/status,deployments,deployments/scale,deployments/status,ingresses,ingresses/status,networkpolicies,replicasets,replicasets/scale,replicasets/status,replicationcontrollers/scale | get,list,watch
  policy | poddisruptionbudgets,poddisruptionbudgets/status | get,list,watch
  networking.k8s.io | ingresses,ingresses/status,networkpolicies | get,list,watch
clusterrole system:auth-delegator
  authentication.k8s.io | tokenreviews | create
  authorization.k8s.io | subjectaccessreviews | create
clusterrole system:basic-user
  authorization.k8s.io | selfsubjectaccessreviews,selfsubjectrulesreviews | create
  authentication.k8s.io | selfsubjectreviews | create
clusterrole system:certificates.k8s.io:certificatesigningrequests:nodeclient
  certificates.k8s.io | certificatesigningrequests/nodeclient | create
clusterrole system:certificates.k8s.io:certificatesigningrequests:selfnodeclient
  certificates.k8s.io | certificatesigningrequests/selfnodeclient | create
clusterrole system:certificates.k8s.io:kube-apiserver-client-approver
  certificates.k8s.io | signers | approve | kubernetes.io/kube-apiserver-client
clusterrole system:certificates.k8s.io:kube-apiserver-client-kubelet-approver
  certificates.k8s.io | signers | approve | kubernetes.io/kube-apiserver-client-kubelet
clusterrole system:certificates.k8s.io:kubelet-serving-approver
  certificates.k8s.io | signers | approve | kubernetes.io/kubelet-serving
clusterrole system:certificates.k8s.io:legacy-unknown-approver
  certificates.k8s.io | signers | approve | kubernetes.io/legacy-unknown
clusterrole system:discovery
  @ /api,/api/*,/apis,/apis/*,/healthz,/livez,/openapi,/openapi/*,/readyz,/version,/version/ | get
clusterrole system:heapster
  core | events,namespaces,nodes,pods | get,list,watch
  extensions | deployments | get,list,watch
clusterrole system:kube-aggregator
  core | endpoints,services | get,list,watch
clusterrole system:kube-controller-manager
  core,events.k8s.io | events | create,patch,update
  coordination.k8s.io | leases | create
  coordination.k8s.io | leases | get,update | kube-controller-manager
  core | secrets,serviceaccounts | create
  core | secrets | delete
  core | configmaps,namespaces,secrets,serviceaccounts | get
  core | secrets,serviceaccounts | update
  authentication.k8s.io | tokenreviews | create
  authorization.k8s.io | subjectaccessreviews | create
  * | * | list,watch
  core | serviceaccounts/token | create
clusterrole system:kube-dns
  core | endpoints,services | list,watch
clusterrole system:kube-scheduler
  core,events.k8s.io | events | create,patch,update
  coordination.k8s.io | leases | create
  coordination.k8s.io | leases | get,list,update,watch | kube-scheduler
  coordination.k8s.io | leasecandidates | create,delete,deletecollection,get,list,patch,update,watch
  core | nodes | get,list,watch
  core | pods | delete,get,list,watch
  core | bindings,pods/binding | create
  core | pods/status | patch,update
  core | replicationcontrollers,services | get,list,watch
  apps,extensions | replicasets | get,list,watch
  apps | statefulsets | get,list,watch
  policy | poddisruptionbudgets | get,list,watch
  core | persistentvolumeclaims,persistentvolumes | get,list,watch
  authentication.k8s.io | tokenreviews | create
  authorization.k8s.io | subjectaccessreviews | create
  storage.k8s.io | csinodes | get,list,watch
  storage.k8s.io | volumeattachments | get,list,watch
  core | namespaces | get,list,watch
  storage.k8s.io | csidrivers | get,list,watch
  storage.k8s.io | csistoragecapacities | get,list,watch
  resource.k8s.io | deviceclasses | get,list,watch
  resource.k8s.io | resourceclaims | get,list,patch,update,watch
  resource.k8s.io | resourceclaims/status | get,list,patch,update,watch
  core | pods/finalizers | get,list,patch,update,watch
  resource.k8s.io | resourceslices | get,list,watch
clusterrole system:kubelet-api-admin
  core | nodes | get,list,watch
  core | nodes | proxy
  core | nodes/log,nodes/metrics,nodes/proxy,nodes/stats | *
clusterrole system:monitoring
  @ /healthz,/healthz/*,/livez,/livez/*,/metrics,/metrics/slis,/readyz,/readyz/* | get
clusterrole system:node
  authentication.k8s.io | tokenreviews | create
  authorization.k8s.io | localsubjectaccessreviews,subjectaccessreviews | create
  core | services | get,list,watch
  core | nodes | create,get,list,watch
  core | nodes/status | patch,update
  core | nodes | patch,update
  core | events | create,patch,update
  core | pods | get,list,watch
  core | pods | create,delete
  core | pods/status | patch,update
  core | pods/eviction | create
  core | configmaps,secrets | get,list,watch
  core | persistentvolumeclaims,persistentvolumes | get
  core | endpoints | get
  certificates.k8s.io | certificatesigningrequests | create,get,list,watch
  coordination.k8s.io | leases | create,delete,get,patch,update
  storage.k8s.io | volumeattachments | get
  core | serviceaccounts/token | create
  core | persistentvolumeclaims/status | get,patch,update
  storage.k8s.io | csidrivers | get,list,watch
  storage.k8s.io | csinodes | create,delete,get,patch,update
  node.k8s.io | runtimeclasses | get,list,watch
  resource.k8s.io | resourceclaims | get
  resource.k8s.io | resourceslices | deletecollection
clusterrole system:node-bootstrapper
  certificates.k8s.io | certificatesigningrequests | create,get,list,watch
clusterrole system:node-problem-detector
  core | nodes | get
  core | nodes/status | patch
  core,events.k8s.io | events | create,patch,update
clusterrole system:node-proxier
  core | endpoints,services | list,watch
  core | nodes | get,list,watch
  core,events.k8s.io | events | create,patch,update
  discovery.k8s.io | endpointslices | list,watch
clusterrole system:persistent-volume-provisioner
  core | persistentvolumes | create,delete,get,list,watch
  core | persistentvolumeclaims | get,list,update,watch
  storage.k8s.io | storageclasses | get,list,watch
  core | events | watch
  core,events.k8s.io | events | create,patch,update
clusterrole system:public-info-viewer
  @ /healthz,/livez,/readyz,/version,/version/ | get
clusterrole system:service-account-issuer-discovery
  @ /.well-known/openid-configuration,/.well-known/openid-configuration/,/openid/v1/jwks,/openid/v1/jwks/ | get
clusterrole system:volume-scheduler
  core | persistentvolumes | get,list,patch,update,watch
  storage.k8s.io | storageclasses | get,list,watch
  core | persistentvolumeclaims | get,list,patch,update,watch
clusterrole view label=rbac.authorization.k8s.io/aggregate-to-edit=true aggregate=rbac.authorization.k8s.io/aggregate-to-view=true

clusterrolebinding cluster-admin cluster-admin Group:system:masters
clusterrolebinding system:monitoring system:monitoring Group:system:monitoring
clusterrolebinding system:discovery system:discovery Group:system:authenticated
clusterrolebinding system:basic-user system:basic-user Group:system:authenticated
clusterrolebinding system:public-info-viewer system:public-info-viewer Group:system:authenticated Group:system:unauthenticated
clusterrolebinding system:node-proxier system:node-proxier User:system:kube-proxy
clusterrolebinding system:kube-controller-manager system:kube-controller-manager User:system:kube-controller-manager
clusterrolebinding system:kube-dns system:kube-dns ServiceAccount:kube-system/kube-dns
clusterrolebinding system:kube-scheduler system:kube-scheduler User:system:kube-scheduler
clusterrolebinding system:volume-scheduler system:volume-scheduler User:system:kube-scheduler
clusterrolebinding system:node system:node
clusterrolebinding system:service-account-issuer-discovery system:service-account-issuer-discovery Group:system:serviceaccounts

role kube-public system:controller:bootstrap-signer
  core | configmaps | get,list,watch
  core | configmaps | update | cluster-info
  core,events.k8s.io | events | create,patch,update
role kube-system extension-apiserver-authentication-reader
  core | configmaps | get,list,watch | extension-apiserver-authentication
role kube-system system::leader-locking-kube-controller-manager
  coordination.k8s.io | leases | create,get,list,update,watch
  coordination.k8s.io | leasecandidates | create,get,list,update,watch
role kube-system system::leader-locking-kube-scheduler
  coordination.k8s.io | leases | create,get,list,update,watch
  coordination.k8s.io | leasecandidates | create,get,list,update,watch
role kube-system system:controller:bootstrap-signer
  core | secrets | get,list,watch
role kube-system system:controller:cloud-provider
  core | configmaps | create,get,list,watch
role kube-system system:controller:token-cleaner
  core | secrets | delete,get,list,watch
  core,events.k8s.io | events | create,patch,update

rolebinding kube-public system:controller:bootstrap-signer Role system:controller:bootstrap-signer ServiceAccount:kube-system/bootstrap-signer
rolebinding kube-system system::extension-apiserver-authentication-reader Role extension-apiserver-authentication-reader User:system:kube-controller-manager User:system:kube-scheduler
rolebinding kube-system system::leader-locking-kube-controller-manager Role system::leader-locking-kube-controller-manager User:system:kube-controller-manager ServiceAccount:kube-system/kube-controller-manager ServiceAccount:kube-system/leader-election-controller
rolebinding kube-system system::leader-locking-kube-scheduler Role system::leader-locking-kube-scheduler User:system:kube-scheduler ServiceAccount:kube-system/kube-scheduler
rolebinding kube-system system:controller:bootstrap-signer Role system:controller:bootstrap-signer ServiceAccount:kube-system/bootstrap-signer
rolebinding kube-system system:controller:cloud-provider Role system:controller:cloud-provider ServiceAccount:kube-system/cloud-provider
rolebinding kube-system system:controller:token-cleaner Role system:controller:token-cleaner ServiceAccount:kube-system/token-cleaner

controllers
clusterrole system:controller:attachdetach-controller
  core | persistentvolumeclaims,persistentvolumes | list,watch
  core | nodes | get,list,watch
  core | nodes/status | patch,update
  core | pods | list,watch
  core,events.k8s.io | events | create,patch,update
  storage.k8s.io | volumeattachments | create,delete,get,list,watch
  storage.k8s.io | csidrivers | get,list,watch
  storage.k8s.io | csinodes | get,list,watch
clusterrole system:controller:certificate-controller
  certificates.k8s.io | certificatesigningrequests | delete,get,list,watch
  certificates.k8s.io | certificatesigningrequests/approval,certificatesigningrequests/status | update
  certificates.k8s.io | signers | approve | kubernetes.io/kube-apiserver-client-kubelet
  certificates.k8s.io | signers | sign | kubernetes.io/kube-apiserver-client,kubernetes.io/kube-apiserver-client-kubelet,kubernetes.io/kubelet-serving,kubernetes.io/legacy-unknown
  authorization.k8s.io | subjectaccessreviews | create
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:clusterrole-aggregation-controller
  rbac.authorization.k8s.io | clusterroles | escalate,get,list,patch,update,watch
clusterrole system:controller:cronjob-controller
  batch | cronjobs | get,list,update,watch
  batch | jobs | create,delete,get,list,patch,update,watch
  batch | cronjobs/status | update
  batch | cronjobs/finalizers | update
  core | pods | delete,list
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:daemon-set-controller
  apps,extensions | daemonsets | get,list,watch
  apps,extensions | daemonsets/status | update
  apps,extensions | daemonsets/finalizers | update
  core | nodes | list,watch
  core | pods | create,delete,list,patch,watch
  core | pods/binding | create
  apps | controllerrevisions | create,delete,get,list,patch,update,watch
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:deployment-controller
  apps,extensions | deployments | get,list,update,watch
  apps,extensions | deployments/status | update
  apps,extensions | deployments/finalizers | update
  apps,extensions | replicasets | create,delete,get,list,patch,update,watch
  core | pods | get,list,update,watch
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:disruption-controller
  apps,extensions | deployments | get,list,watch
  apps,extensions | replicasets | get,list,watch
  core | replicationcontrollers | get,list,watch
  policy | poddisruptionbudgets | get,list,watch
  apps | statefulsets | get,list,watch
  policy | poddisruptionbudgets/status | update
  core | pods/status | patch,update
  * | */scale | get
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:endpoint-controller
  core | pods,services | get,list,watch
  core | endpoints | create,delete,get,list,update
  core | endpoints/restricted | create
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:endpointslice-controller
  core | nodes,pods,services | get,list,watch
  core | services/finalizers | update
  discovery.k8s.io | endpointslices | create,delete,get,list,update
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:endpointslicemirroring-controller
  core | endpoints,services | get,list,watch
  core | services/finalizers | update
  core | endpoints/finalizers | update
  discovery.k8s.io | endpointslices | create,delete,get,list,update
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:ephemeral-volume-controller
  core | pods | get,list,watch
  core | pods/finalizers | update
  core | persistentvolumeclaims | create,get,list,watch
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:expand-controller
  core | persistentvolumes | get,list,patch,update,watch
  core | persistentvolumeclaims/status | patch,update
  core | persistentvolumeclaims | get,list,watch
  core,events.k8s.io | events | create,patch,update
  core | services | get
clusterrole system:controller:generic-garbage-collector
  * | * | delete,get,list,patch,update,watch
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:horizontal-pod-autoscaler
  autoscaling | horizontalpodautoscalers | get,list,watch
  autoscaling | horizontalpodautoscalers/status | update
  * | */scale | get,update
  core | pods | list
  metrics.k8s.io | pods | list
  custom.metrics.k8s.io | * | get,list
  external.metrics.k8s.io | * | get,list
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:job-controller
  batch | jobs | get,list,patch,update,watch
  batch | jobs/status | update
  batch | jobs/finalizers | update
  core | pods | create,delete,list,patch,watch
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:legacy-service-account-token-cleaner
  core | configmaps | get | kube-apiserver-legacy-service-account-token-tracking
  core | secrets | delete,patch
clusterrole system:controller:namespace-controller
  core | namespaces | delete,get,list,watch
  core | namespaces/finalize,namespaces/status | update
  * | * | delete,deletecollection,get,list
clusterrole system:controller:node-controller
  core | nodes | delete,get,list,patch,update
  core | nodes/status | patch,update
  core | pods/status | patch,update
  core | pods | delete,get,list
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:persistent-volume-binder
  core | persistentvolumes | create,delete,get,list,update,watch
  core | persistentvolumes/status | update
  core | persistentvolumeclaims | get,list,update,watch
  core | persistentvolumeclaims/status | update
  core | pods | create,delete,get,list,watch
  storage.k8s.io | storageclasses | get,list,watch
  core | nodes | list,watch
  core,events.k8s.io | events | create,patch,update
  core | events | watch
  core | services | get
clusterrole system:controller:pod-garbage-collector
  core | pods | delete,list,watch
  core | nodes | get,list
  core | pods/status | patch
clusterrole system:controller:pv-protection-controller
  core | persistentvolumes | get,list,update,watch
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:pvc-protection-controller
  core | persistentvolumeclaims | get,list,update,watch
  core | pods | get,list,watch
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:replicaset-controller
  apps,extensions | replicasets | get,list,update,watch
  apps,extensions | replicasets/status | update
  apps,extensions | replicasets/finalizers | update
  core | pods | create,delete,list,patch,watch
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:replication-controller
  core | replicationcontrollers | get,list,update,watch
  core | replicationcontrollers/status | update
  core | replicationcontrollers/finalizers | update
  core | pods | create,delete,list,patch,watch
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:resource-claim-controller
  core | pods | get,list,watch
  core | pods/finalizers | update
  resource.k8s.io | resourceclaims | create,delete,get,list,watch
  resource.k8s.io | resourceclaims,resourceclaims/status | patch,update
  core | pods/status | patch,update
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:resourcequota-controller
  * | * | list,watch
  core | resourcequotas/status | update
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:root-ca-cert-publisher
  core | configmaps | create,update
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:route-controller
  core | nodes | list,watch
  core | nodes/status | patch
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:service-account-controller
  core | serviceaccounts | create
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:service-controller
  core | services | get,list,watch
  core | services/status | patch,update
  core | nodes | list,watch
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:statefulset-controller
  core | pods | list,watch
  apps | statefulsets | get,list,watch
  apps | statefulsets/status | update
  apps | statefulsets/finalizers | update
  core | pods | create,delete,get,patch,update
  apps | controllerrevisions | create,delete,get,list,patch,update,watch
  core | persistentvolumeclaims | create,get,list,watch
  core,events.k8s.io | events | create,patch,update
  core | persistentvolumeclaims | delete,update
  core | pods/finalizers | update
clusterrole system:controller:ttl-after-finished-controller
  batch | jobs | delete,get,list,watch
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:ttl-controller
  core | nodes | list,patch,update,watch
  core,events.k8s.io | events | create,patch,update
clusterrole system:controller:validatingadmissionpolicy-status-controller
  admissionregistration.k8s.io | validatingadmissionpolicies | get,list,watch
  admissionregistration.k8s.io | validatingadmissionpolicies/status | get,patch,update
  core,events.k8s.io | events | create,patch,update
`;
