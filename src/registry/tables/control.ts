import type { KubeObject } from '../../machinery/object.js';
import { ageCol, col, doc, nameCol, printer } from './columns.js';
import { type TableConvertor } from '../../codec/table-convertor.js';
import { age, humanDuration, labelSelectorGoString, listWithMore, nameOf } from './format.js';
import { int, list, optRec, present, rec, recs, str } from './values.js';

/**
 * Cluster-control printers: RBAC bindings, admission configuration,
 * API priority and fairness, scheduling and node classes, leases,
 * certificates, APIServices and the apiserver-internal types.
 */

// ---------------------------------------------------------------------- rbac

/** rbac.SubjectsStrings: users, groups and namespace/name service accounts, each joined by ", ". */
function subjectCells(subjects: unknown): [string, string, string] {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of recs(subjects)) {
    if (s.kind === 'ServiceAccount') sas.push(`${str(s.namespace)}/${str(s.name)}`);
    else if (s.kind === 'User') users.push(str(s.name));
    else if (s.kind === 'Group') groups.push(str(s.name));
  }
  return [users.join(', '), groups.join(', '), sas.join(', ')];
}

function bindingTable(roleRefDescription: string, what: string): TableConvertor {
  return printer(
    () => [
      nameCol(),
      col('Role', 'string', roleRefDescription),
      ageCol(),
      col('Users', 'string', `Users in the ${what}`, 1),
      col('Groups', 'string', `Groups in the ${what}`, 1),
      col('ServiceAccounts', 'string', `ServiceAccounts in the ${what}`, 1),
    ],
    (o, now) => {
      const ref = rec(o.roleRef);
      return [nameOf(o), `${str(ref.kind)}/${str(ref.name)}`, age(o, now), ...subjectCells(o.subjects)];
    },
  );
}

// kube describes these columns with rbac/v1beta1's roleRef docs, which lack v1's "This field is immutable."
export const roleBindingTable = bindingTable(
  'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
  'roleBinding',
);
export const clusterRoleBindingTable = bindingTable(
  'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
  'clusterRoleBinding',
);

// ----------------------------------------------------------------- admission

const WEBHOOKS_DESCRIPTION = 'Webhooks indicates the number of webhooks registered in this configuration';

export const webhookConfigurationTable: TableConvertor = printer(
  () => [nameCol(), col('Webhooks', 'integer', WEBHOOKS_DESCRIPTION), ageCol()],
  (o, now) => [nameOf(o), list(o.webhooks).length, age(o, now)],
);

function paramKind(spec: Record<string, unknown>): string {
  const kind = optRec(spec.paramKind);
  return kind ? `${str(kind.apiVersion)}/${str(kind.kind)}` : '<unset>';
}

function policyTable(countColumn: string, countDescription: string, countField: string): TableConvertor {
  return printer(
    () => [
      nameCol(),
      col(countColumn, 'integer', countDescription),
      col('ParamKind', 'string', 'ParamKind specifies the kind of resources used to parameterize this policy'),
      ageCol(),
    ],
    (o, now) => {
      const spec = rec(o.spec);
      return [nameOf(o), list(spec[countField]).length, paramKind(spec), age(o, now)];
    },
  );
}

export const validatingAdmissionPolicyTable = policyTable(
  'Validations',
  'Validations indicates the number of validation rules defined in this configuration',
  'validations',
);
export const mutatingAdmissionPolicyTable = policyTable(
  'Mutations',
  'Mutation indicates the number of mutations rules defined in this configuration',
  'mutations',
);

/** The ParamRef cell: namespace/name (a "*" namespace when unknown), or the selector in its Go form. */
function paramRefName(ref: unknown): string {
  const r = optRec(ref);
  if (!r) return '<unset>';
  if (str(r.name) !== '') return str(r.namespace) !== '' ? `${str(r.namespace)}/${str(r.name)}` : `*/${str(r.name)}`;
  const selector = optRec(r.selector);
  return selector ? labelSelectorGoString(selector) : '<unset>';
}

export const admissionPolicyBindingTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('PolicyName', 'string', 'PolicyName indicates the policy definition which the policy binding binded to'),
    col('ParamRef', 'string', 'ParamRef indicates the param resource which sets the configuration param'),
    ageCol(),
  ],
  (o, now) => {
    const spec = rec(o.spec);
    return [nameOf(o), str(spec.policyName), paramRefName(spec.paramRef), age(o, now)];
  },
);

// ------------------------------------------------- API priority and fairness

const FLOWCONTROL = 'io.k8s.api.flowcontrol.v1';

export const flowSchemaTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('PriorityLevel', 'string', doc(`${FLOWCONTROL}.PriorityLevelConfigurationReference`, 'name')),
    col('MatchingPrecedence', 'string', doc(`${FLOWCONTROL}.FlowSchemaSpec`, 'matchingPrecedence')),
    col('DistinguisherMethod', 'string', doc(`${FLOWCONTROL}.FlowSchemaSpec`, 'distinguisherMethod')),
    ageCol(),
    col('MissingPL', 'string', 'references a broken or non-existent PriorityLevelConfiguration'),
  ],
  (o, now) => {
    const spec = rec(o.spec);
    const method = optRec(spec.distinguisherMethod);
    const dangling = recs(rec(o.status).conditions).find((c) => c.type === 'Dangling');
    return [
      nameOf(o),
      str(rec(spec.priorityLevelConfiguration).name),
      int(spec.matchingPrecedence),
      method ? str(method.type) : '<none>',
      age(o, now),
      dangling ? str(dangling.status) : '?',
    ];
  },
  {
    // The list printer sorts by matching precedence, then name (FlowSchemaSequence).
    compare: (a: KubeObject, b: KubeObject) => {
      const pa = int(rec(a.spec).matchingPrecedence);
      const pb = int(rec(b.spec).matchingPrecedence);
      if (pa !== pb) return pa - pb;
      const na = nameOf(a);
      const nb = nameOf(b);
      return na < nb ? -1 : na > nb ? 1 : 0;
    },
  },
);

export const priorityLevelConfigurationTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('Type', 'string', doc(`${FLOWCONTROL}.PriorityLevelConfigurationSpec`, 'type')),
    col('NominalConcurrencyShares', 'string', doc(`${FLOWCONTROL}.LimitedPriorityLevelConfiguration`, 'nominalConcurrencyShares')),
    col('Queues', 'string', doc(`${FLOWCONTROL}.QueuingConfiguration`, 'queues')),
    col('HandSize', 'string', doc(`${FLOWCONTROL}.QueuingConfiguration`, 'handSize')),
    col('QueueLengthLimit', 'string', doc(`${FLOWCONTROL}.QueuingConfiguration`, 'queueLengthLimit')),
    ageCol(),
  ],
  (o, now) => {
    const spec = rec(o.spec);
    const limited = optRec(spec.limited);
    let values: unknown[] = ['<none>', '<none>', '<none>', '<none>'];
    if (limited) {
      const queuing = optRec(rec(limited.limitResponse).queuing);
      values = [int(limited.nominalConcurrencyShares), ...(queuing ? [int(queuing.queues), int(queuing.handSize), int(queuing.queueLengthLimit)] : ['<none>', '<none>', '<none>'])];
    }
    return [nameOf(o), str(spec.type), ...values, age(o, now)];
  },
);

// ------------------------------------------------- scheduling, node, leases

export const priorityClassTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('Value', 'integer', doc('io.k8s.api.scheduling.v1.PriorityClass', 'value')),
    col('Global-Default', 'boolean', doc('io.k8s.api.scheduling.v1.PriorityClass', 'globalDefault')),
    ageCol(),
    col('PreemptionPolicy', 'string', doc('io.k8s.api.scheduling.v1.PriorityClass', 'preemptionPolicy')),
  ],
  (o, now) => [nameOf(o), int(o.value), o.globalDefault === true, age(o, now), str(o.preemptionPolicy)],
);

// kube describes Handler with ObjectMeta's (missing) "handler" doc: an empty description.
export const runtimeClassTable: TableConvertor = printer(
  () => [nameCol(), col('Handler', 'string', ''), ageCol()],
  (o, now) => [nameOf(o), str(o.handler), age(o, now)],
);

export const leaseTable: TableConvertor = printer(
  () => [nameCol(), col('Holder', 'string', doc('io.k8s.api.coordination.v1.LeaseSpec', 'holderIdentity')), ageCol()],
  (o, now) => [nameOf(o), str(rec(o.spec).holderIdentity), age(o, now)],
);

export const leaseCandidateTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('LeaseName', 'string', doc('io.k8s.api.coordination.v1alpha2.LeaseCandidateSpec', 'leaseName')),
    // Described by ObjectMeta keys that do not exist, so empty.
    col('BinaryVersion', 'string', ''),
    col('EmulationVersion', 'string', ''),
    ageCol(),
  ],
  (o, now) => {
    const spec = rec(o.spec);
    return [nameOf(o), str(spec.leaseName), str(spec.binaryVersion), str(spec.emulationVersion), age(o, now)];
  },
);

// -------------------------------------------------------------- certificates

/** extractCSRStatus: Denied, else Approved, else Pending; then Failed and Issued. */
function csrStatus(status: Record<string, unknown>): string {
  const types = new Set(recs(status.conditions).map((c) => str(c.type)));
  let out = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) out += ',Failed';
  if (str(status.certificate) !== '') out += ',Issued';
  return out;
}

export const certificateSigningRequestTable: TableConvertor = printer(
  () => [
    nameCol(),
    ageCol(),
    // certificates/v1beta1's docs, which kube's printer still references.
    col(
      'SignerName',
      'string',
      'Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`. If empty, it will be defaulted:\n 1. If it\'s a kubelet client certificate, it is assigned\n    "kubernetes.io/kube-apiserver-client-kubelet".\n 2. If it\'s a kubelet serving certificate, it is assigned\n    "kubernetes.io/kubelet-serving".\n 3. Otherwise, it is assigned "kubernetes.io/legacy-unknown".\nDistribution of trust for signers happens out of band. You can select on this field using `spec.signerName`.',
    ),
    col('Requestor', 'string', 'Base64-encoded PKCS#10 CSR data'),
    col('RequestedDuration', 'string', doc('io.k8s.api.certificates.v1.CertificateSigningRequestSpec', 'expirationSeconds')),
    col('Condition', 'string', 'Conditions applied to the request, such as approval or denial.'),
  ],
  (o, now) => {
    const spec = rec(o.spec);
    const requested = present(spec.expirationSeconds) ? humanDuration(int(spec.expirationSeconds) * 1000) : '<none>';
    return [nameOf(o), age(o, now), str(spec.signerName) || '<none>', str(spec.username), requested, csrStatus(rec(o.status))];
  },
);

export const clusterTrustBundleTable: TableConvertor = printer(
  () => [nameCol(), col('SignerName', 'string', doc('io.k8s.api.certificates.v1beta1.ClusterTrustBundleSpec', 'signerName'))],
  (o) => [nameOf(o), str(rec(o.spec).signerName) || '<none>'],
);

// ---------------------------------------------------------- kube-aggregator

/** kube-aggregator's APIService ConvertToTable. */
export const apiServiceTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('Service', 'string', 'The reference to the service that hosts this API endpoint.'),
    col('Available', 'string', 'Whether this service is available.'),
    ageCol(),
  ],
  (o, now) => {
    const spec = rec(o.spec);
    const service = optRec(spec.service);
    const target = service ? `${str(service.namespace)}/${str(service.name)}` : 'Local';
    const available = recs(rec(o.status).conditions).find((c) => c.type === 'Available');
    let status = 'Unknown';
    if (available) {
      const s = str(available.status);
      status = s === 'True' || str(available.reason) === '' ? s : `${s} (${str(available.reason)})`;
    }
    return [nameOf(o), target, status, age(o, now)];
  },
  { alwaysColumnDefinitions: true },
);

// ------------------------------------------------------ apiserver-internal

export const storageVersionTable: TableConvertor = printer(
  () => {
    const sv = 'io.k8s.api.apiserverinternal.v1alpha1.StorageVersionStatus';
    return [nameCol(), col('CommonEncodingVersion', 'string', doc(sv, 'commonEncodingVersion')), col('StorageVersions', 'string', doc(sv, 'storageVersions')), ageCol()];
  },
  (o, now) => {
    const status = rec(o.status);
    const common = typeof status.commonEncodingVersion === 'string' ? status.commonEncodingVersion : '<unset>';
    const versions = recs(status.storageVersions).map((v) => `${str(v.apiServerID)}=${str(v.encodingVersion)}`);
    return [nameOf(o), common, listWithMore(versions), age(o, now)];
  },
);

