import type { FieldError } from '../../machinery/errors.js';
import { jsonEqual } from '../../machinery/object.js';
import { isDns1035Label, isDns1123Subdomain, isPathSegmentName, isQualifiedName } from '../../machinery/name-validation.js';
import { FIELD_IMMUTABLE, forbidden, goStruct, has, invalid, isObj, list, nonNegative, notSupported, num, obj, objs, required, str, type GoJson, type Obj } from './field.js';
import { validatePortNumOrName } from './pod-spec.js';
import { labelSelectorRepr } from './render.js';
import { validateLabelSelector } from './selector.js';

/**
 * Validation for rbac, policy, networking, storage, autoscaling,
 * scheduling and coordination types (pkg/apis/<group>/validation).
 */

// ------------------------------------------------------------------- RBAC

const RBAC_GROUP = 'rbac.authorization.k8s.io';

function validatePolicyRules(rules: unknown, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  objs(rules).forEach((rule, i) => {
    const p = `rules[${i}]`;
    if (list(rule.verbs).length === 0) errs.push(required(`${p}.verbs`, 'verbs must contain at least one value'));
    const urls = list(rule.nonResourceURLs);
    if (urls.length > 0) {
      if (namespaced) errs.push(invalid(`${p}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'));
      if (list(rule.apiGroups).length > 0 || list(rule.resources).length > 0 || list(rule.resourceNames).length > 0) {
        errs.push(invalid(`${p}.nonResourceURLs`, urls, 'rules cannot apply to both regular resources and non-resource URLs'));
      }
      return;
    }
    if (list(rule.apiGroups).length === 0) errs.push(required(`${p}.apiGroups`, 'resource rules must supply at least one api group'));
    if (list(rule.resources).length === 0) errs.push(required(`${p}.resources`, 'resource rules must supply at least one resource'));
  });
  return errs;
}

export function validateRole(role: Obj): FieldError[] {
  return validatePolicyRules(role.rules, true);
}

export function validateClusterRole(role: Obj): FieldError[] {
  const errs = validatePolicyRules(role.rules, false);
  if (isObj(role.aggregationRule)) {
    const selectors = objs(role.aggregationRule.clusterRoleSelectors);
    if (selectors.length === 0) errs.push(required('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
    selectors.forEach((s, i) => errs.push(...validateLabelSelector(s, `aggregationRule.clusterRoleSelectors[${i}]`)));
  }
  return errs;
}

/** json.Marshal of the internal rbac.RoleRef (untagged: Go field names). */
function roleRefRepr(ref: Obj): GoJson {
  return goStruct([
    ['APIGroup', str(ref.apiGroup)],
    ['Kind', str(ref.kind)],
    ['Name', str(ref.name)],
  ]);
}

/** json.Marshal of the internal policy.PodDisruptionBudgetSpec (untagged; the selector is metav1's, tagged). */
function pdbSpecRepr(spec: Obj): GoJson {
  return goStruct([
    ['MinAvailable', spec.minAvailable ?? null],
    ['Selector', labelSelectorRepr(spec.selector)],
    ['MaxUnavailable', spec.maxUnavailable ?? null],
    ['UnhealthyPodEvictionPolicy', spec.unhealthyPodEvictionPolicy ?? null],
  ]);
}

export function validateRoleBinding(binding: Obj, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = obj(binding.roleRef);
  if (ref.apiGroup !== RBAC_GROUP) errs.push(notSupported('roleRef.apiGroup', str(ref.apiGroup), [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(str(ref.kind))) errs.push(notSupported('roleRef.kind', str(ref.kind), kinds));
  if (!str(ref.name)) errs.push(required('roleRef.name'));
  else for (const m of isPathSegmentName(str(ref.name))) errs.push(invalid('roleRef.name', ref.name, m));
  objs(binding.subjects).forEach((s, i) => {
    const p = `subjects[${i}]`;
    const name = str(s.name);
    if (!name) errs.push(required(`${p}.name`));
    switch (s.kind) {
      case 'ServiceAccount':
        if (name) for (const m of isDns1123Subdomain(name)) errs.push(invalid(`${p}.name`, name, m));
        if (str(s.apiGroup) !== '') errs.push(notSupported(`${p}.apiGroup`, str(s.apiGroup), ['']));
        if (!namespaced && !str(s.namespace)) errs.push(required(`${p}.namespace`));
        break;
      case 'User':
      case 'Group':
        if (s.apiGroup !== RBAC_GROUP) errs.push(notSupported(`${p}.apiGroup`, str(s.apiGroup), [RBAC_GROUP]));
        break;
      default:
        errs.push(notSupported(`${p}.kind`, str(s.kind), ['ServiceAccount', 'User', 'Group']));
    }
  });
  return errs;
}

export function validateRoleBindingUpdate(binding: Obj, old: Obj, namespaced: boolean): FieldError[] {
  const errs = validateRoleBinding(binding, namespaced);
  if (!jsonEqual(obj(binding.roleRef), obj(old.roleRef))) errs.push(invalid('roleRef', roleRefRepr(obj(binding.roleRef)), 'cannot change roleRef'));
  return errs;
}

// ----------------------------------------------------------------- policy

function validatePositiveIntOrPercent(v: unknown, field: string): FieldError[] {
  if (typeof v === 'string') {
    if (!/^[0-9]+%$/.test(v)) return [invalid(field, v, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")];
    if (Number.parseInt(v, 10) > 100) return [invalid(field, v, 'must not be greater than 100%')];
    return [];
  }
  return nonNegative(v, field);
}

export function validatePodDisruptionBudget(pdb: Obj): FieldError[] {
  const spec = obj(pdb.spec);
  const errs: FieldError[] = [];
  if (has(spec.minAvailable) && has(spec.maxUnavailable)) errs.push(invalid('spec', pdbSpecRepr(spec), 'minAvailable and maxUnavailable cannot be both set'));
  if (has(spec.minAvailable)) errs.push(...validatePositiveIntOrPercent(spec.minAvailable, 'spec.minAvailable'));
  if (has(spec.maxUnavailable)) errs.push(...validatePositiveIntOrPercent(spec.maxUnavailable, 'spec.maxUnavailable'));
  errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const policies = ['AlwaysAllow', 'IfHealthyBudget'];
  if (has(spec.unhealthyPodEvictionPolicy) && !policies.includes(str(spec.unhealthyPodEvictionPolicy))) {
    errs.push(notSupported('spec.unhealthyPodEvictionPolicy', spec.unhealthyPodEvictionPolicy, policies));
  }
  return errs;
}

// ------------------------------------------------------------- networking

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

function validateCIDR(cidr: string, field: string): FieldError[] {
  const m = /^(.+)\/(\d{1,3})$/.exec(cidr);
  const ok = m && ((m[1]!.includes(':') && Number(m[2]) <= 128) || (/^\d+\.\d+\.\d+\.\d+$/.test(m[1]!) && Number(m[2]) <= 32));
  return ok ? [] : [invalid(field, cidr, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')];
}

function validateNetworkPolicyPeers(peers: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(peers).forEach((peer, i) => {
    const p = `${path}[${i}]`;
    let count = 0;
    if (has(peer.podSelector)) {
      count++;
      errs.push(...validateLabelSelector(peer.podSelector, `${p}.podSelector`));
    }
    if (has(peer.namespaceSelector)) {
      count++;
      errs.push(...validateLabelSelector(peer.namespaceSelector, `${p}.namespaceSelector`));
    }
    if (isObj(peer.ipBlock)) {
      count++;
      const block = peer.ipBlock;
      if (!str(block.cidr)) errs.push(required(`${p}.ipBlock.cidr`));
      else errs.push(...validateCIDR(str(block.cidr), `${p}.ipBlock.cidr`));
    }
    if (count === 0) errs.push(required(p, 'must specify a peer'));
    else if (count > 1 && has(peer.ipBlock)) errs.push(forbidden(p, 'may not specify both ipBlock and another peer'));
  });
  return errs;
}

function validateNetworkPolicyPorts(ports: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(ports).forEach((port, i) => {
    const p = `${path}[${i}]`;
    if (has(port.protocol) && !PROTOCOLS.includes(str(port.protocol))) errs.push(notSupported(`${p}.protocol`, port.protocol, PROTOCOLS));
    if (has(port.port)) {
      errs.push(...validatePortNumOrName(port.port, `${p}.port`));
      if (has(port.endPort)) {
        if (typeof port.port === 'string') errs.push(forbidden(`${p}.endPort`, 'may not be specified when `port` is non-numeric'));
        else if (num(port.endPort) < num(port.port)) errs.push(invalid(`${p}.endPort`, port.endPort, 'must be greater than or equal to `port`'));
      }
    } else if (has(port.endPort)) {
      errs.push(required(`${p}.port`, 'must be specified when `endPort` is specified'));
    }
  });
  return errs;
}

export function validateNetworkPolicy(np: Obj): FieldError[] {
  const spec = obj(np.spec);
  const errs = validateLabelSelector(spec.podSelector, 'spec.podSelector');
  objs(spec.ingress).forEach((rule, i) => {
    errs.push(...validateNetworkPolicyPorts(rule.ports, `spec.ingress[${i}].ports`));
    errs.push(...validateNetworkPolicyPeers(rule.from, `spec.ingress[${i}].from`));
  });
  objs(spec.egress).forEach((rule, i) => {
    errs.push(...validateNetworkPolicyPorts(rule.ports, `spec.egress[${i}].ports`));
    errs.push(...validateNetworkPolicyPeers(rule.to, `spec.egress[${i}].to`));
  });
  const types = list(spec.policyTypes).map(str);
  if (types.length > 2) errs.push(invalid('spec.policyTypes', types, 'may not specify more than two policyTypes'));
  types.forEach((t, i) => {
    if (t !== 'Ingress' && t !== 'Egress') errs.push(notSupported(`spec.policyTypes[${i}]`, t, ['Ingress', 'Egress']));
  });
  return errs;
}

const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];

function validateIngressBackend(backend: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const svc = backend.service;
  const hasResource = has(backend.resource);
  if (isObj(svc) && hasResource) return [invalid(path, '', 'cannot set both resource and service backends')];
  if (isObj(svc)) {
    if (!str(svc.name)) errs.push(required(`${path}.service.name`));
    else errs.push(...isDns1123Label1035(str(svc.name), `${path}.service.name`));
    const port = obj(svc.port);
    const hasName = str(port.name) !== '';
    const hasNumber = num(port.number) !== 0;
    if (hasName && hasNumber) errs.push(invalid(path, '', 'cannot set both port name & port number'));
    else if (!hasName && !hasNumber) errs.push(required(path, 'port name or number is required'));
  } else if (!hasResource) {
    errs.push(invalid(path, '', 'resource or service backend is required'));
  }
  return errs;
}

function isDns1123Label1035(value: string, field: string): FieldError[] {
  return isDns1035Label(value).map((m) => invalid(field, value, m));
}

export function validateIngress(ing: Obj): FieldError[] {
  const spec = obj(ing.spec);
  const errs: FieldError[] = [];
  const rules = objs(spec.rules);
  if (rules.length === 0 && !isObj(spec.defaultBackend)) errs.push(invalid('spec', Array.isArray(spec.rules) ? [] : null, 'either `defaultBackend` or `rules` must be specified'));
  if (isObj(spec.defaultBackend)) errs.push(...validateIngressBackend(spec.defaultBackend, 'spec.defaultBackend'));
  rules.forEach((rule, i) => {
    const p = `spec.rules[${i}]`;
    const host = str(rule.host);
    if (host) {
      const bare = host.startsWith('*.') ? host.slice(2) : host;
      for (const m of isDns1123Subdomain(bare)) errs.push(invalid(`${p}.host`, host, m));
    }
    if (!isObj(rule.http)) return;
    const paths = objs(rule.http.paths);
    if (paths.length === 0) errs.push(required(`${p}.http.paths`));
    paths.forEach((hp, j) => {
      const pp = `${p}.http.paths[${j}]`;
      const pathType = str(hp.pathType);
      if (!pathType) errs.push(required(`${pp}.pathType`, 'pathType must be specified'));
      else if (!PATH_TYPES.includes(pathType)) errs.push(notSupported(`${pp}.pathType`, pathType, PATH_TYPES));
      const path = str(hp.path);
      if ((pathType === 'Exact' || pathType === 'Prefix') && !path.startsWith('/')) errs.push(invalid(`${pp}.path`, path, 'must be an absolute path'));
      errs.push(...validateIngressBackend(obj(hp.backend), `${pp}.backend`));
    });
  });
  objs(spec.tls).forEach((tls, i) => {
    list(tls.hosts).forEach((h, j) => {
      const host = str(h);
      const bare = host.startsWith('*.') ? host.slice(2) : host;
      for (const m of isDns1123Subdomain(bare)) errs.push(invalid(`spec.tls[${i}].hosts[${j}]`, host, m));
    });
  });
  if (has(spec.ingressClassName)) for (const m of isDns1123Subdomain(str(spec.ingressClassName))) errs.push(invalid('spec.ingressClassName', spec.ingressClassName, m));
  return errs;
}

export function validateIngressClass(ic: Obj): FieldError[] {
  const spec = obj(ic.spec);
  const errs: FieldError[] = [];
  const controller = str(spec.controller);
  if (!controller) errs.push(required('spec.controller'));
  else if (controller.length > 250) errs.push({ type: 'FieldValueTooLong', field: 'spec.controller', detail: 'may not be more than 250 bytes' });
  return errs;
}

export function validateIngressClassUpdate(ic: Obj, old: Obj): FieldError[] {
  const errs = validateIngressClass(ic);
  const now = str(obj(ic.spec).controller);
  if (now !== str(obj(old.spec).controller)) errs.push(invalid('spec.controller', now, FIELD_IMMUTABLE));
  return errs;
}

// ---------------------------------------------------------------- storage

export function validateStorageClass(sc: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const provisioner = str(sc.provisioner);
  if (!provisioner) errs.push(required('provisioner'));
  else for (const m of isQualifiedName(provisioner.toLowerCase())) errs.push(invalid('provisioner', provisioner, m));
  if (has(sc.reclaimPolicy) && !['Delete', 'Retain'].includes(str(sc.reclaimPolicy))) errs.push(notSupported('reclaimPolicy', sc.reclaimPolicy, ['Delete', 'Retain']));
  if (has(sc.volumeBindingMode) && !['Immediate', 'WaitForFirstConsumer'].includes(str(sc.volumeBindingMode))) {
    errs.push(notSupported('volumeBindingMode', sc.volumeBindingMode, ['Immediate', 'WaitForFirstConsumer']));
  }
  return errs;
}

export function validateStorageClassUpdate(sc: Obj, old: Obj): FieldError[] {
  const errs = validateStorageClass(sc);
  if (!jsonEqual(sc.parameters ?? {}, old.parameters ?? {})) errs.push(forbidden('parameters', 'updates to parameters are forbidden.'));
  if (str(sc.provisioner) !== str(old.provisioner)) errs.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if (!jsonEqual(sc.reclaimPolicy ?? null, old.reclaimPolicy ?? null)) errs.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  if (!jsonEqual(sc.volumeBindingMode ?? null, old.volumeBindingMode ?? null)) errs.push(invalid('volumeBindingMode', sc.volumeBindingMode ?? null, FIELD_IMMUTABLE));
  return errs;
}

// ------------------------------------------------------------ autoscaling

function validateScaleTargetRef(ref: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(ref.kind)) errs.push(required(`${path}.kind`));
  else for (const m of isPathSegmentName(str(ref.kind))) errs.push(invalid(`${path}.kind`, ref.kind, m));
  if (!str(ref.name)) errs.push(required(`${path}.name`));
  else for (const m of isPathSegmentName(str(ref.name))) errs.push(invalid(`${path}.name`, ref.name, m));
  return errs;
}

export function validateHorizontalPodAutoscaler(hpa: Obj): FieldError[] {
  const spec = obj(hpa.spec);
  const errs: FieldError[] = [];
  if (has(spec.minReplicas) && num(spec.minReplicas) < 1) errs.push(invalid('spec.minReplicas', spec.minReplicas, 'must be greater than or equal to 1'));
  if (num(spec.maxReplicas) < 1) errs.push(invalid('spec.maxReplicas', spec.maxReplicas ?? 0, 'must be greater than 0'));
  if (has(spec.minReplicas) && num(spec.maxReplicas) < num(spec.minReplicas)) errs.push(invalid('spec.maxReplicas', spec.maxReplicas ?? 0, 'must be greater than or equal to `minReplicas`'));
  errs.push(...validateScaleTargetRef(obj(spec.scaleTargetRef), 'spec.scaleTargetRef'));
  if (has(spec.targetCPUUtilizationPercentage) && num(spec.targetCPUUtilizationPercentage) < 1) {
    errs.push(invalid('spec.targetCPUUtilizationPercentage', spec.targetCPUUtilizationPercentage, 'must be greater than 0'));
  }
  return errs;
}

// ------------------------------------------------------------- scheduling

const HIGHEST_USER_PRIORITY = 1000000000;
const SYSTEM_PRIORITY_CLASSES: Record<string, number> = { 'system-node-critical': 2000001000, 'system-cluster-critical': 2000000000 };

export function validatePriorityClass(pc: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(obj(pc.metadata).name);
  if (name.startsWith('system-')) {
    const value = SYSTEM_PRIORITY_CLASSES[name];
    if (value === undefined) errs.push(forbidden('metadata.name', "priority class names with 'system-' prefix are reserved for system use only"));
    else if (pc.value !== value) errs.push(forbidden('value', `value of system priority class ${name} must be ${value}`));
  } else if (num(pc.value) > HIGHEST_USER_PRIORITY) {
    errs.push(forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_PRIORITY}`));
  }
  if (has(pc.preemptionPolicy) && !['PreemptLowerPriority', 'Never'].includes(str(pc.preemptionPolicy))) {
    errs.push(notSupported('preemptionPolicy', pc.preemptionPolicy, ['PreemptLowerPriority', 'Never']));
  }
  return errs;
}

export function validatePriorityClassUpdate(pc: Obj, old: Obj): FieldError[] {
  const errs = validatePriorityClass(pc);
  if (pc.value !== old.value) errs.push(forbidden('value', 'may not be changed in an update.'));
  if (!jsonEqual(pc.preemptionPolicy ?? null, old.preemptionPolicy ?? null)) errs.push(invalid('preemptionPolicy', pc.preemptionPolicy ?? null, FIELD_IMMUTABLE));
  return errs;
}

// ----------------------------------------------------------- coordination

export function validateLease(lease: Obj): FieldError[] {
  const spec = obj(lease.spec);
  const errs: FieldError[] = [];
  if (has(spec.leaseDurationSeconds) && num(spec.leaseDurationSeconds) <= 0) {
    errs.push(invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (has(spec.leaseTransitions)) errs.push(...nonNegative(spec.leaseTransitions, 'spec.leaseTransitions'));
  return errs;
}

