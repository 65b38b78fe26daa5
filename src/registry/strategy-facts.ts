/*
 * Per-resource registry facts for kube-apiserver 1.36, gathered from
 * kubernetes/kubernetes: pkg/registry/**, the generic store in
 * staging/src/k8s.io/apiserver/pkg/registry/**, apiextensions-apiserver and
 * kube-aggregator. Several versions of these files were read. Where they
 * differ, the newest one found was used (the ones with smd v6/v7 imports,
 * declarative validation and networking/v1 ServiceCIDR). Everything here is
 * written in my own words; only wire-visible strings (error messages, reasons,
 * annotation keys) are quoted exactly.
 *
 * ---------------------------------------------------------------------------
 * 1. POST (create) that carries metadata.resourceVersion
 *    Sources: staging/src/k8s.io/apiserver/pkg/storage/errors.go
 *    (ErrResourceVersionSetOnCreate), .../storage/etcd3/store.go (Create),
 *    .../storage/errors/storage.go (InterpretCreateError),
 *    .../endpoints/handlers/responsewriters/status.go (ErrorToAPIStatus).
 *    - The storage layer rejects it. This happens after defaulting,
 *      PrepareForCreate, validation and admission, so validation errors win.
 *      The error is a plain Go error, not a StatusError. InterpretCreateError
 *      passes it through and ErrorToAPIStatus turns it into
 *        HTTP 500 {kind:Status, apiVersion:v1, status:"Failure", code:500,
 *                  reason:"" (omitted), message:"resourceVersion should not be set on objects to be created"}
 *      There are no details. Clients show it as an unknown 500.
 *    - The check only fires when the value parses as a non-zero uint64. "0",
 *      "-1" and "abc" fail the parse and are cleared silently
 *      (kubernetes/kubernetes#113847).
 *    - PUT create-on-update (AllowCreateOnUpdate types) ignores the body's
 *      resourceVersion when the object does not exist. The dry-run create path
 *      also appears to skip the check (DryRunnableStorage only looks for an
 *      existing key).
 *
 * 2. What status and main-resource updates keep
 *    Sources: staging/src/k8s.io/apiserver/pkg/registry/rest/update.go
 *    (BeforeUpdate), apimachinery/pkg/apis/meta/v1/helpers.go
 *    (ResetObjectMetaForStatus), the per-resource strategy.go files, and
 *    registry/generic/registry/store.go (ResetFieldsStrategy/GetResetFields).
 *    - The generic store never splits spec from status. Each UpdateStrategy's
 *      PrepareForUpdate does that, and the /status store is a copy of the main
 *      store with UpdateStrategy = StatusStrategy.
 *    - BeforeUpdate runs for every update, before and after PrepareForUpdate:
 *      metadata.generation is forced to the old value (the strategy may then
 *      bump it); uid is copied from old if empty; creationTimestamp is always
 *      the old one; an existing deletionTimestamp can never be changed or
 *      removed; deletionGracePeriodSeconds is kept if the new object omits it;
 *      namespace must match the request (cluster-scoped: cleared). Then
 *      ValidateObjectMetaUpdate checks immutable metadata.
 *    - Main-resource update (types with status): status := old.status. A few
 *      keep more: namespaces also keep spec.finalizers; CSRs keep spec AND
 *      status; deployments bump generation on annotation changes too.
 *    - Typical /status update: spec := old.spec and nothing else. Labels,
 *      annotations, finalizers and ownerReferences CAN then be changed through
 *      /status (pods, nodes, namespaces, services, PVs, PVCs,
 *      RCs/RS/DS/STS/jobs/cronjobs, HPAs, PDBs, ingresses, quotas). Exceptions:
 *        * pods/status keeps spec and ownerReferences and drops any
 *          deletionTimestamp change. It backfills status.qosClass and
 *          observedGeneration (pod and per-condition) from old when cleared.
 *        * deployments/status also keeps metadata.labels.
 *        * ResetObjectMetaForStatus (deletionTimestamp, generation, selfLink,
 *          labels, annotations, finalizers, ownerReferences from old;
 *          managedFields NOT reset) is used by volumeattachments,
 *          servicecidrs, validatingadmissionpolicies, resourceclaims, and the
 *          pod ephemeralcontainers/resize subresources.
 *        * flowschemas/prioritylevelconfigurations /status keep ALL of old
 *          metadata except managedFields.
 *        * apiservices/status keeps spec, labels, annotations, finalizers and
 *          ownerReferences.
 *        * customresourcedefinitions/status keeps spec. Its
 *          ResetObjectMetaForStatus call passes (new,new), a no-op, so
 *          metadata changes do go through.
 *        * certificatesigningrequests/status keeps spec and the existing
 *          Approved/Denied conditions and fills condition timestamps;
 *          /approval changes only status.conditions.
 *    - ResetFieldsStrategy (GetResetFields) changes nothing by itself. It
 *      tells the server-side-apply field manager which paths the strategy
 *      wipes (e.g. "status" for main, "spec" (+"metadata") for /status), so
 *      that apply records no ownership of them and reports no conflicts.
 *
 * 3. generateName retry (RetryGenerateName, on by default)
 *    Sources: registry/generic/registry/store.go (maxNameGenerationCreateAttempts,
 *    createWithGenerateNameRetry), registry/rest/create.go
 *    (CheckGeneratedNameError), apiserver/pkg/storage/names/generate.go,
 *    apimachinery/pkg/util/rand/rand.go, apimachinery/pkg/api/errors/errors.go.
 *    - When generateName is set and name is empty, create is attempted up to
 *      8 times in total, each time with a fresh name, as long as the failure
 *      is AlreadyExists.
 *    - name = generateName truncated to 58 chars (63 - 5) + 5 random chars
 *      from "bcdfghjklmnpqrstvwxz2456789" (27 chars: no vowels, no 0/1/3).
 *    - After the last clash: 409, reason AlreadyExists, message
 *      `<resource>[.<group>] "<name>" already exists, the server was not able to generate a unique name for the object`,
 *      details {name, group, kind: <plural resource>, retryAfterSeconds: 1}.
 *    - Plain name clash: 409 AlreadyExists `<resource> "<name>" already exists`.
 *      If the existing object has a deletionTimestamp, the message gets the
 *      prefix "object is being deleted: ".
 *
 * 4. Update whose result equals the stored object
 *    Sources: staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go
 *    (GuaranteedUpdate), registry/generic/registry/store.go (Update ->
 *    fieldmanager.IgnoreManagedFieldsTimestampsTransformer).
 *    - After PrepareForUpdate/validation/admission, the new object is
 *      encoded. If the bytes equal the stored bytes (and the cached copy is
 *      not stale), nothing is written: the stored object is returned with its
 *      unchanged resourceVersion, no watch event is sent, and the response
 *      is 200 with that object. If only managedFields timestamps differ, the
 *      old timestamps are restored first, so such updates are no-ops too.
 *      Same for PATCH and for status/scale subresources.
 *
 * 5. Pod DELETE: immediate vs graceful
 *    Sources: pkg/registry/core/pod/strategy.go (CheckGracefulDelete),
 *    registry/rest/delete.go (BeforeDelete), registry/generic/registry/store.go
 *    (Delete, updateForGracefulDeletionAndFinalizers), pkg/apis/core/v1
 *    defaults (terminationGracePeriodSeconds = 30).
 *    - grace = DeleteOptions.gracePeriodSeconds if given, else
 *      spec.terminationGracePeriodSeconds (defaulted to 30), else 0.
 *      Then forced to 0 if spec.nodeName is empty (never scheduled) or
 *      status.phase is Failed or Succeeded. A negative value becomes 1.
 *    - grace > 0: the pod is updated with deletionTimestamp = now + grace,
 *      deletionGracePeriodSeconds = grace and generation+1, and it stays
 *      (the kubelet finishes the delete). The response is the updated pod, 200.
 *    - grace == 0 and no finalizers: removed now; the response is the deleted
 *      pod (pods have ReturnDeletedObject).
 *    - Already terminating: a new grace may only shorten it (deletionTimestamp
 *      is moved back). Equal/longer or omitted -> nothing changes and the
 *      current object is returned. A stored grace of 0/nil -> delete now.
 *    - Finalizers present: the object is only marked (grace 0 ->
 *      deletionTimestamp=now, deletionGracePeriodSeconds=0) until the
 *      finalizers are removed.
 *
 * 6. Body of a generic DELETE when ReturnDeletedObject is false
 *    Sources: registry/generic/registry/store.go (finalizeDelete),
 *    endpoints/handlers/delete.go.
 *    - Only when the object was actually removed:
 *        200 {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success",
 *             "details":{"name":<name>,"group":<group, omitted for core>,
 *                        "kind":<PLURAL RESOURCE e.g. "configmaps">,"uid":<uid>}}
 *      There is no code, reason or message in the body.
 *    - If the delete only marks the object (finalizers pending, graceful),
 *      the body is the updated object, whatever ReturnDeletedObject says.
 *    - The handler sends 202 instead of 200 only when the object was not
 *      removed AND the client sent orphanDependents=false. A REST that
 *      returns nil gets {status:Success, code, details:{name, kind:<Kind>}}.
 *
 * 7. Namespaces
 *    Sources: pkg/registry/core/namespace/strategy.go,
 *    pkg/registry/core/namespace/storage/storage.go,
 *    pkg/apis/core/validation/validation.go (ValidateNamespace*),
 *    staging/src/k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go,
 *    staging/src/k8s.io/apiserver/pkg/admission/errors.go.
 *    - Create: status is replaced by {phase:"Active"}. "kubernetes" is
 *      appended to spec.finalizers if missing (so it is ["kubernetes"] by
 *      default). Canonicalize (and GET defaulting) sets the label
 *      kubernetes.io/metadata.name=<name>.
 *    - Update (PUT/PATCH): spec.finalizers and status are taken from the old
 *      object, so only metadata can change.
 *    - /status: spec from old; status.phase must be "Active" while
 *      deletionTimestamp is empty ("may only be 'Active' if `deletionTimestamp` is empty")
 *      and "Terminating" once it is set
 *      ("may only be 'Terminating' if `deletionTimestamp` is not empty").
 *    - /finalize: status from old; spec.finalizers (and metadata) may change;
 *      each name must be standard ("kubernetes") or qualified
 *      ("name is neither a standard finalizer name nor is it fully qualified").
 *    - DELETE (custom REST): a UID precondition is added (a mismatch gives a
 *      409 "Precondition failed: UID in precondition: ..."). On the first
 *      delete the namespace is always updated, never removed:
 *      deletionTimestamp=now (no deletionGracePeriodSeconds) and
 *      phase=Terminating; orphan/foregroundDeletion metadata finalizers
 *      follow propagationPolicy. The 200 body is the updated namespace.
 *      Later DELETEs return the namespace unchanged while spec.finalizers is
 *      non-empty, else a normal store delete. The object really goes away
 *      when the namespace controller removes "kubernetes" via /finalize:
 *      an update that leaves spec.finalizers AND metadata.finalizers empty
 *      on a terminating namespace deletes it (ShouldDeleteNamespaceDuringUpdate).
 *    - NamespaceLifecycle admission: only default, kube-system and
 *      kube-public are immortal. kube-node-lease is NOT in the set. Deleting
 *      one gives 403 reason Forbidden,
 *        message `namespaces "kube-system" is forbidden: this namespace may not be deleted`,
 *        details {name:"kube-system", kind:"namespaces"}.
 *    - Create (or update) in a missing namespace: the error from a live
 *      lookup is returned as is, 404 reason NotFound,
 *        message `namespaces "<ns>" not found`, details {name:<ns>, kind:"namespaces"}.
 *      (It waits 50ms and re-checks the cache first; localsubjectaccessreviews
 *      are always allowed.)
 *    - Create in a Terminating namespace: 403 reason Forbidden,
 *        message `<resource> "<name>" is forbidden: unable to create new content in namespace <ns> because it is being terminated`,
 *        where <name> is metadata.name, else generateName, else "Unknown";
 *        details {name, group, kind:<resource>,
 *                 causes:[{reason:"NamespaceTerminating",
 *                          message:"namespace <ns> is being terminated",
 *                          field:"metadata.namespace"}]}.
 *      Updates and deletes in a terminating namespace are allowed.
 *
 * 8. Namespace controller status.conditions during deletion
 *    Sources: pkg/controller/namespace/deletion/status_condition_utils.go,
 *    pkg/controller/namespace/deletion/namespaced_resources_deleter.go.
 *    Five condition types are always written, in this order:
 *      type                                          ok status/reason/message
 *      NamespaceDeletionDiscoveryFailure             False ResourcesDiscovered    "All resources successfully discovered"
 *      NamespaceDeletionGroupVersionParsingFailure   False ParsedGroupVersions    "All legacy kube types successfully parsed"
 *      NamespaceDeletionContentFailure               False ContentDeleted         "All content successfully deleted, may be waiting on finalization"
 *      NamespaceContentRemaining                     False ContentRemoved         "All content successfully removed"
 *      NamespaceFinalizersRemaining                  False ContentHasNoFinalizers "All content-preserving finalizers finished"
 *    Failure variants (status True):
 *      DiscoveryFailed: "Discovery failed for some groups, <n> failing: <err>" (or the raw error)
 *      GroupVersionParsingFailed: <err>
 *      ContentDeletionFailed: "Failed to delete all resource types, <n> remaining: <sorted errs joined ', '>"
 *      SomeResourcesRemain: "Some resources are remaining: <resource>.<group> has <n> resource instances, ..."
 *        (sorted; core group gives e.g. "pods. has 2 resource instances")
 *      SomeFinalizersRemain: "Some content in the namespace has finalizers remaining: <finalizer> in <n> resource instances, ..." (sorted)
 *    lastTransitionTime changes only when status flips. The controller sets
 *    phase Terminating via /status if needed, deletes the content
 *    (deletecollection, else list+delete each item), waits (15s estimate
 *    when finalizers are present), then removes "kubernetes" from
 *    spec.finalizers via /finalize.
 *
 * 9. ServiceAccount controller and root CA publisher
 *    Sources: pkg/controller/serviceaccount/serviceaccounts_controller.go,
 *    pkg/controller/certificates/rootcacertpublisher/publisher.go.
 *    - Every namespace with phase Active gets a ServiceAccount "default"
 *      (metadata.name only: no secrets, no automount field). It is re-created
 *      when deleted. AlreadyExists and NamespaceTerminating-cause errors are
 *      ignored.
 *    - Every namespace gets a ConfigMap "kube-root-ca.crt" with
 *      data {"ca.crt": <PEM CA bundle>} and the single annotation
 *      "kubernetes.io/description": "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters."
 *      No labels. The publisher runs on namespace add and on update while
 *      Active, and on configmap update/delete. It rewrites data and the
 *      annotation if they drift and re-creates the configmap if deleted.
 *      NotFound/NamespaceTerminating errors on create are ignored.
 * ---------------------------------------------------------------------------
 */

export interface StrategyFacts {
  /** How metadata.name is validated: ValidateObjectMeta's nameFn. */
  nameRule: 'dns1123Subdomain' | 'dns1123Label' | 'dns1035Label' | 'pathSegment';
  /** PrepareForCreate sets Generation = 1 and updates bump it on spec change. */
  tracksGeneration: boolean;
  /** Store.ReturnDeletedObject (or the custom REST Delete returns the object). */
  returnDeletedObject: boolean;
  /** strategy.AllowCreateOnUpdate() */
  allowCreateOnUpdate: boolean;
  /** strategy.AllowUnconditionalUpdate() */
  allowUnconditionalUpdate: boolean;
  /**
   * What PrepareForCreate does to .status: 'reset' (to zero value {}), 'drop' (a pointer status set to nil: no status
   * at all), 'keep', or a literal initial status object (e.g. pods {phase:'Pending'} — note if it computes e.g. qosClass).
   */
  statusOnCreate: 'reset' | 'drop' | 'keep' | Record<string, unknown>;
  /** Main-resource update (PUT/PATCH without subresource) keeps old status: true for types with a status subresource. */
  statusSplit: boolean;
  /** Extra notes: anything else PrepareForCreate/PrepareForUpdate/status strategy does that a user would notice (e.g. status update resets spec AND metadata labels/annotations? which metadata is kept on /status writes?). Short. */
  notes?: string;
}

/** A plain type without a status subresource. */
const PLAIN = {
  tracksGeneration: false,
  returnDeletedObject: false,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  statusOnCreate: 'keep',
  statusSplit: false,
} as const satisfies Omit<StrategyFacts, 'nameRule'>;

/** A controller-style type: generation, status cleared on create, /status subresource. */
const WORKLOAD = {
  tracksGeneration: true,
  returnDeletedObject: false,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  statusOnCreate: 'reset',
  statusSplit: true,
} as const satisfies Omit<StrategyFacts, 'nameRule'>;

/** Create-only virtual resources (reviews): nothing is persisted. */
const REVIEW = {
  nameRule: 'pathSegment',
  tracksGeneration: false,
  returnDeletedObject: false,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  statusOnCreate: 'keep',
  statusSplit: false,
} as const satisfies StrategyFacts;

export const STRATEGY_FACTS: Record<string, StrategyFacts> = {
  // ------------------------------------------------------------------ core/v1
  '/pods': {
    nameRule: 'dns1123Subdomain',
    tracksGeneration: true,
    returnDeletedObject: true,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    statusOnCreate: { phase: 'Pending' },
    statusSplit: true,
    notes:
      'Create: status replaced by {phase:Pending, qosClass:<computed Guaranteed|Burstable|BestEffort>}; with spec.schedulingGates adds condition ' +
      'PodScheduled=False reason SchedulingGated "Scheduling is blocked due to non-empty scheduling gates"; warning if name is not a DNS label. ' +
      'Generation +1 on any spec change and on the first graceful delete. Graceful delete: see header 5. ' +
      '/status keeps spec, ownerReferences, deletionTimestamp (labels/annotations/finalizers may change); backfills qosClass/observedGeneration. ' +
      '/ephemeralcontainers and /resize change only their fields (metadata reset like status).',
  },
  '/services': {
    nameRule: 'dns1035Label',
    tracksGeneration: false,
    returnDeletedObject: true,
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: true,
    statusOnCreate: 'reset',
    statusSplit: true,
    notes:
      'REST wrapper allocates spec.clusterIP(s)/nodePorts and fills ipFamilies/ipFamilyPolicy on create (and on create-via-PUT); ' +
      'releases them on delete. /status keeps spec only.',
  },
  '/configmaps': { nameRule: 'dns1123Subdomain', ...PLAIN, notes: 'immutable=true freezes data/binaryData.' },
  '/secrets': { nameRule: 'dns1123Subdomain', ...PLAIN, notes: 'type is immutable; immutable=true freezes data.' },
  '/namespaces': {
    nameRule: 'dns1123Label',
    tracksGeneration: false,
    returnDeletedObject: true,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    statusOnCreate: { phase: 'Active' },
    statusSplit: true,
    notes:
      'Create appends "kubernetes" to spec.finalizers; label kubernetes.io/metadata.name=<name> is forced. Update keeps spec.finalizers+status. ' +
      '/status keeps spec; /finalize keeps status. DELETE is custom (first call only marks Terminating, returns the object). See header 7.',
  },
  '/nodes': {
    nameRule: 'dns1123Subdomain',
    tracksGeneration: false,
    returnDeletedObject: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    statusOnCreate: 'keep',
    statusSplit: true,
    notes: 'Create accepts status as given (kubelets register with status). Main update keeps old status; /status keeps spec only.',
  },
  '/events': {
    nameRule: 'pathSegment',
    tracksGeneration: false,
    returnDeletedObject: false,
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: true,
    statusOnCreate: 'keep',
    statusSplit: false,
    notes:
      'core/v1 creates get only legacy checks (no DNS name rule; involvedObject.namespace must match). Stored with a TTL (--event-ttl, default 1h). ' +
      'Same storage as events.k8s.io/events.',
  },
  '/endpoints': { nameRule: 'dns1123Subdomain', ...PLAIN, allowCreateOnUpdate: true },
  '/serviceaccounts': {
    nameRule: 'dns1123Subdomain',
    ...PLAIN,
    returnDeletedObject: true,
    notes: 'serviceaccounts/token (TokenRequest) is a create-only subresource.',
  },
  '/persistentvolumes': {
    nameRule: 'dns1123Subdomain',
    tracksGeneration: false,
    returnDeletedObject: true,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    statusOnCreate: { phase: 'Pending' },
    statusSplit: true,
    notes:
      'Create: status replaced by {phase:Pending, lastPhaseTransitionTime:<now>}. /status keeps spec; lastPhaseTransitionTime is set to now when phase changes (unless the writer changed it).',
  },
  '/persistentvolumeclaims': {
    nameRule: 'dns1123Subdomain',
    tracksGeneration: false,
    returnDeletedObject: true,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    // kube clears the status on create and v1 defaulting reads it back as {phase:Pending}; we store what is read back.
    statusOnCreate: { phase: 'Pending' },
    statusSplit: true,
    notes: 'Status cleared on create; v1 defaulting makes it read back as {phase:Pending}. /status keeps spec only.',
  },
  '/replicationcontrollers': {
    nameRule: 'dns1123Subdomain',
    ...WORKLOAD,
    notes: 'Generation bumps on spec change. /status keeps spec only; /scale changes spec.replicas.',
  },
  '/podtemplates': {
    nameRule: 'dns1123Subdomain',
    ...PLAIN,
    tracksGeneration: true,
    returnDeletedObject: true,
    notes: 'Generation bumps when .template changes. No status.',
  },
  '/limitranges': { nameRule: 'dns1123Subdomain', ...PLAIN, allowCreateOnUpdate: true },
  '/resourcequotas': {
    nameRule: 'dns1123Subdomain',
    tracksGeneration: false,
    // The upstream OpenAPI document shows DELETE answering with the ResourceQuota.
    returnDeletedObject: true,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    statusOnCreate: 'reset',
    statusSplit: true,
    notes: 'status.hard/used are filled by the quota controller through /status, which keeps spec only.',
  },
  '/componentstatuses': {
    nameRule: 'dns1123Subdomain',
    tracksGeneration: false,
    returnDeletedObject: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    statusOnCreate: 'keep',
    statusSplit: false,
    notes: 'Custom read-only REST (get/list). Probed live on each request, never stored; no create/update/delete.',
  },
  '/bindings': {
    nameRule: 'pathSegment',
    tracksGeneration: false,
    returnDeletedObject: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    statusOnCreate: 'keep',
    statusSplit: false,
    notes:
      'Create-only (POST .../bindings and pods/binding); not stored. Sets pod spec.nodeName (+ PodScheduled=True). 409 if the pod is terminating or ' +
      'already bound. Answers 201 with a Success Status, not the object.',
  },

  // --------------------------------------------------------------------- apps
  'apps/deployments': {
    nameRule: 'dns1123Subdomain',
    ...WORKLOAD,
    notes: 'Generation bumps on spec OR annotation change. /status keeps spec AND metadata.labels. /scale subresource.',
  },
  'apps/replicasets': { nameRule: 'dns1123Subdomain', ...WORKLOAD, notes: '/status keeps spec only. /scale subresource.' },
  'apps/statefulsets': {
    nameRule: 'dns1123Label',
    ...WORKLOAD,
    notes: 'Name is a DNS label on create (not re-checked on update). Spec mostly immutable. /status keeps spec only. /scale subresource.',
  },
  'apps/daemonsets': {
    nameRule: 'dns1123Subdomain',
    ...WORKLOAD,
    notes: 'spec.templateGeneration set to 1 on create and +1 when the template changes. /status keeps spec only.',
  },
  'apps/controllerrevisions': { nameRule: 'dns1123Subdomain', ...PLAIN, notes: 'data and revision are immutable.' },

  // -------------------------------------------------------------------- batch
  'batch/jobs': {
    nameRule: 'dns1123Subdomain',
    ...WORKLOAD,
    notes:
      'Unless manualSelector=true, a selector and template labels (controller-uid, batch.kubernetes.io/controller-uid, job-name, ' +
      'batch.kubernetes.io/job-name) are generated. batch/v1 deletes ORPHAN pods by default and warn "child pods are preserved by default when jobs ' +
      'are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning". /status keeps spec.',
  },
  'batch/cronjobs': { nameRule: 'dns1123Subdomain', ...WORKLOAD, notes: 'Name at most 52 chars. /status keeps spec only.' },

  // -------------------------------------------------------------- autoscaling
  'autoscaling/horizontalpodautoscalers': {
    nameRule: 'dns1123Subdomain',
    tracksGeneration: false,
    returnDeletedObject: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    statusOnCreate: 'reset',
    statusSplit: true,
    notes: 'Same storage for autoscaling/v1 and v2. No generation bump in the strategy. /status keeps spec only.',
  },

  // ------------------------------------------------------------------- policy
  'policy/poddisruptionbudgets': {
    nameRule: 'pathSegment',
    ...WORKLOAD,
    allowUnconditionalUpdate: false,
    notes: 'Validation does not check the name beyond the generic path-segment rule. /status keeps spec only. PUT needs resourceVersion.',
  },

  // --------------------------------------------------------------------- rbac
  'rbac.authorization.k8s.io/roles': {
    nameRule: 'pathSegment',
    ...PLAIN,
    allowCreateOnUpdate: true,
    notes: 'Privilege-escalation check: cannot grant rules you do not hold unless you have the escalate verb.',
  },
  'rbac.authorization.k8s.io/rolebindings': {
    nameRule: 'pathSegment',
    ...PLAIN,
    allowCreateOnUpdate: true,
    notes: 'roleRef is immutable; binding requires the bind verb or already holding the permissions.',
  },
  'rbac.authorization.k8s.io/clusterroles': {
    nameRule: 'pathSegment',
    ...PLAIN,
    allowCreateOnUpdate: true,
    notes: 'aggregationRule: rules are filled by the aggregation controller. Escalation check as for roles.',
  },
  'rbac.authorization.k8s.io/clusterrolebindings': {
    nameRule: 'pathSegment',
    ...PLAIN,
    allowCreateOnUpdate: true,
    notes: 'roleRef is immutable.',
  },

  // --------------------------------------------------------------- networking
  'networking.k8s.io/networkpolicies': {
    nameRule: 'dns1123Subdomain',
    ...PLAIN,
    tracksGeneration: true,
    notes: 'Generation bumps on spec change. No status in v1.',
  },
  'networking.k8s.io/ingresses': { nameRule: 'dns1123Subdomain', ...WORKLOAD, notes: '/status keeps spec only.' },
  'networking.k8s.io/ingressclasses': {
    nameRule: 'dns1123Subdomain',
    ...PLAIN,
    tracksGeneration: true,
    notes: 'Generation bumps on spec change; spec.controller is immutable.',
  },
  'networking.k8s.io/ipaddresses': {
    nameRule: 'pathSegment',
    ...PLAIN,
    notes:
      'Actual rule: name must be an IP address in canonical form (ValidateIPAddressName); generateName does nothing (no-op generator). ' +
      'spec.parentRef is immutable.',
  },
  'networking.k8s.io/servicecidrs': {
    nameRule: 'dns1123Subdomain',
    tracksGeneration: false,
    returnDeletedObject: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    statusOnCreate: 'keep',
    statusSplit: false,
    notes:
      'Has a /status subresource, but the main strategy neither clears status on create nor restores it on update (only SSA reset-fields ' +
      'cover it). /status keeps spec + ResetObjectMetaForStatus. spec.cidrs is immutable.',
  },

  // ------------------------------------------------------------------ storage
  'storage.k8s.io/storageclasses': {
    nameRule: 'dns1123Subdomain',
    ...PLAIN,
    returnDeletedObject: true,
    notes: 'parameters/provisioner/reclaimPolicy/volumeBindingMode are immutable.',
  },
  'storage.k8s.io/volumeattachments': {
    nameRule: 'dns1123Subdomain',
    tracksGeneration: false,
    returnDeletedObject: true,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    statusOnCreate: 'reset',
    statusSplit: true,
    notes: 'Spec is immutable. /status keeps spec and resets metadata (ResetObjectMetaForStatus).',
  },
  'storage.k8s.io/csidrivers': {
    nameRule: 'dns1123Subdomain',
    ...PLAIN,
    tracksGeneration: true,
    returnDeletedObject: true,
    allowUnconditionalUpdate: false,
    notes: 'Name max 63 chars. Generation bumps on spec change.',
  },
  'storage.k8s.io/csinodes': {
    nameRule: 'dns1123Subdomain',
    ...PLAIN,
    returnDeletedObject: true,
    allowUnconditionalUpdate: false,
    notes: 'Newer main adds a status subresource (status.storageHealth, CSIVolumeHealth); not confirmed for 1.36.',
  },
  'storage.k8s.io/csistoragecapacities': { nameRule: 'dns1123Subdomain', ...PLAIN, allowUnconditionalUpdate: false },
  'storage.k8s.io/volumeattributesclasses': {
    nameRule: 'dns1123Subdomain',
    ...PLAIN,
    returnDeletedObject: true,
    notes: 'driverName and parameters are immutable.',
  },

  // --------------------------------------------------------------- scheduling
  'scheduling.k8s.io/priorityclasses': {
    nameRule: 'dns1123Subdomain',
    ...PLAIN,
    notes:
      'value is immutable; names starting with "system-" are reserved. Deleting system-node-critical/system-cluster-critical gives 403 ' +
      '"this is a system priority class and cannot be deleted".',
  },

  // ------------------------------------------------------------- coordination
  'coordination.k8s.io/leases': { nameRule: 'dns1123Subdomain', ...PLAIN, allowCreateOnUpdate: true, allowUnconditionalUpdate: false },

  // ---------------------------------------------------------------- discovery
  'discovery.k8s.io/endpointslices': {
    nameRule: 'dns1123Subdomain',
    ...PLAIN,
    tracksGeneration: true,
    notes: 'Generation bumps when anything but metadata changes, or when labels change. v1 writes drop deprecatedTopology when endpoints change.',
  },

  // ------------------------------------------------------------------- events
  'events.k8s.io/events': {
    nameRule: 'dns1123Subdomain',
    ...PLAIN,
    allowCreateOnUpdate: true,
    notes:
      'Same storage as core events, but creates through events.k8s.io/v1 get strict validation (DNS-subdomain name, eventTime required, ' +
      'type Normal|Warning, reportingController/Instance, action, series).',
  },

  // --------------------------------------------------------------------- node
  'node.k8s.io/runtimeclasses': { nameRule: 'dns1123Subdomain', ...PLAIN, notes: 'handler is immutable.' },

  // ------------------------------------------------------------- certificates
  'certificates.k8s.io/certificatesigningrequests': {
    nameRule: 'pathSegment',
    tracksGeneration: false,
    returnDeletedObject: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    statusOnCreate: 'reset',
    statusSplit: true,
    notes:
      'Name is not restricted beyond the path-segment rule. Create overwrites spec.username/uid/groups/extra with the requesting user. ' +
      'Main update keeps spec AND status (only metadata changes). /status keeps spec and existing Approved/Denied conditions; /approval changes only conditions.',
  },

  // ---------------------------------------------------- admissionregistration
  'admissionregistration.k8s.io/validatingwebhookconfigurations': {
    nameRule: 'dns1123Subdomain',
    ...PLAIN,
    tracksGeneration: true,
    allowUnconditionalUpdate: false,
    notes: 'Generation bumps when .webhooks changes.',
  },
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': {
    nameRule: 'dns1123Subdomain',
    ...PLAIN,
    tracksGeneration: true,
    allowUnconditionalUpdate: false,
    notes: 'Generation bumps when .webhooks changes.',
  },
  'admissionregistration.k8s.io/validatingadmissionpolicies': {
    nameRule: 'dns1123Subdomain',
    ...WORKLOAD,
    allowUnconditionalUpdate: false,
    notes: 'paramKind is authorized on write. /status keeps spec and resets metadata (ResetObjectMetaForStatus).',
  },
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': {
    nameRule: 'dns1123Subdomain',
    ...PLAIN,
    tracksGeneration: true,
    allowUnconditionalUpdate: false,
    notes: 'paramRef is authorized on write.',
  },
  'admissionregistration.k8s.io/mutatingadmissionpolicies': {
    nameRule: 'dns1123Subdomain',
    ...PLAIN,
    tracksGeneration: true,
    allowUnconditionalUpdate: false,
    notes: 'No status. Served in v1 only if MutatingAdmissionPolicy is GA in 1.36 (not confirmed; beta before).',
  },
  'admissionregistration.k8s.io/mutatingadmissionpolicybindings': {
    nameRule: 'dns1123Subdomain',
    ...PLAIN,
    tracksGeneration: true,
    allowUnconditionalUpdate: false,
    notes: 'As for mutatingadmissionpolicies (v1 availability in 1.36 not confirmed).',
  },

  // -------------------------------------------------------------- flowcontrol
  'flowcontrol.apiserver.k8s.io/flowschemas': {
    nameRule: 'dns1123Subdomain',
    ...WORKLOAD,
    notes: '/status keeps spec and ALL metadata except managedFields. The apiserver re-creates/maintains the mandatory objects.',
  },
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': {
    nameRule: 'dns1123Subdomain',
    ...WORKLOAD,
    notes: '/status keeps spec and ALL metadata except managedFields. The apiserver re-creates/maintains the mandatory objects.',
  },

  // ----------------------------------------------------------- resource.k8s.io
  'resource.k8s.io/deviceclasses': {
    nameRule: 'dns1123Subdomain',
    ...PLAIN,
    tracksGeneration: true,
    returnDeletedObject: true,
  },
  'resource.k8s.io/resourceclaims': {
    nameRule: 'dns1123Subdomain',
    tracksGeneration: false,
    returnDeletedObject: true,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    statusOnCreate: 'reset',
    statusSplit: true,
    notes: 'Spec is immutable. /status keeps spec and resets metadata (ResetObjectMetaForStatus); drops status.devices of deallocated devices.',
  },
  'resource.k8s.io/resourceclaimtemplates': {
    nameRule: 'dns1123Subdomain',
    ...PLAIN,
    returnDeletedObject: true,
    notes: 'Spec is immutable.',
  },
  'resource.k8s.io/resourceslices': {
    nameRule: 'dns1123Subdomain',
    ...PLAIN,
    tracksGeneration: true,
    returnDeletedObject: true,
    notes: 'Create and update drop the device fields of disabled DRA features unless the old slice uses them (resource-slices.ts).',
  },
  // Served only in v1beta2 and v1alpha3 (stored in v1alpha3), whose REST keeps the historic unconditional updates.
  'resource.k8s.io/devicetaintrules': {
    nameRule: 'dns1123Subdomain',
    ...WORKLOAD,
    returnDeletedObject: true,
    notes:
      'Create resets status and sets generation 1; spec changes bump it. An update that changes spec.taint.effect but keeps ' +
      'spec.taint.timeAdded gets timeAdded = now (seconds). /status keeps spec and resets metadata (ResetObjectMetaForStatus).',
  },
  'resource.k8s.io/resourcepoolstatusrequests': {
    nameRule: 'dns1123Subdomain',
    tracksGeneration: false,
    returnDeletedObject: true,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    statusOnCreate: 'drop',
    statusSplit: true,
    notes: 'Status is a pointer: nil on create, filled by a controller. /status keeps spec and resets metadata (ResetObjectMetaForStatus).',
  },

  // ------------------------------------------------------------ apiextensions
  'apiextensions.k8s.io/customresourcedefinitions': {
    nameRule: 'dns1123Subdomain',
    tracksGeneration: true,
    returnDeletedObject: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    statusOnCreate: 'reset',
    statusSplit: true,
    notes:
      'Name must be <spec.names.plural>.<spec.group>. Create seeds status.storedVersions=[<storage version>]; updates append a new storage version. ' +
      'First DELETE returns the updated CRD: deletionTimestamp, finalizer customresourcecleanup.apiextensions.k8s.io, condition ' +
      'Terminating=True reason InstanceDeletionPending. /status keeps spec; its metadata reset is a no-op upstream.',
  },

  // ---------------------------------------------------------- apiregistration
  'apiregistration.k8s.io/apiservices': {
    nameRule: 'pathSegment',
    tracksGeneration: false,
    returnDeletedObject: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    statusOnCreate: 'reset',
    statusSplit: true,
    notes:
      'Name must be <spec.version>.<spec.group>. Create with no spec.service sets condition Available=True reason Local ' +
      '"Local APIServices are always available". /status keeps spec, labels, annotations, finalizers, ownerReferences.',
  },

  // ------------------------------------------------- authentication/authorization
  'authentication.k8s.io/tokenreviews': {
    ...REVIEW,
    notes: 'Create-only, not stored, cluster-scoped. 201 with the request plus status {authenticated, user, audiences, error}.',
  },
  'authentication.k8s.io/selfsubjectreviews': {
    ...REVIEW,
    notes: 'Create-only, not stored. 201 with status.userInfo of the caller.',
  },
  'authorization.k8s.io/subjectaccessreviews': {
    ...REVIEW,
    notes: 'Create-only, not stored, cluster-scoped. 201 with status {allowed, denied?, reason, evaluationError}.',
  },
  'authorization.k8s.io/selfsubjectaccessreviews': {
    ...REVIEW,
    notes: 'Create-only, not stored; the subject is the caller. 201 with status {allowed, denied?, reason}.',
  },
  'authorization.k8s.io/localsubjectaccessreviews': {
    ...REVIEW,
    notes:
      'Create-only, namespaced; spec.resourceAttributes.namespace must equal the request namespace. Always passes NamespaceLifecycle (even if the namespace is missing).',
  },
  'authorization.k8s.io/selfsubjectrulesreviews': {
    ...REVIEW,
    notes: 'Create-only, not stored. 201 with status {resourceRules, nonResourceRules, incomplete, evaluationError}.',
  },
};
