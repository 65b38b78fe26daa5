import type { FieldError } from '../../machinery/errors.js';
import { validateLabels } from '../validate-meta.js';
import { isDns1123Label as dnsLabelMessages, isDns1123Subdomain, isQualifiedName } from '../../machinery/name-validation.js';
import { compareQuantities as compare, quantityFromJson, quantitySign, quantityString } from '../../api/quantity.js';
import {
  duplicate, FIELD_IMMUTABLE, forbidden, goStruct, has, invalid, isObj, list, nonNegative, notSupported, num, obj, objs, required, str, tooLong, type Obj,
} from './field.js';
import { cloneObject, jsonEqual } from '../../machinery/object.js';
import { isValidPortNum, validatePodSpec, validatePodTemplateSpec, validatePortNumOrName } from './pod-spec.js';
import { mapSelectorMatches, validateLabelSelector } from './selector.js';
import { goSemanticEqual } from '../../codec/go-json.js';

const POD_SPEC = 'k8s.io.api.core.v1.PodSpec';

/** core/v1 type validation (pkg/apis/core/validation). */

// ---------------------------------------------------------------- Pods

export function validatePod(pod: Obj): FieldError[] {
  const spec = obj(pod.spec);
  const errs = validatePodSpec(spec, 'spec', { resourceIsPod: true });
  if (!str(spec.serviceAccountName)) {
    objs(spec.volumes).forEach((vol, vi) => {
      objs(obj(vol.projected).sources).forEach((src, si) => {
        if (has(src.serviceAccountToken)) {
          errs.push(forbidden(`spec.volumes[${vi}].projected.sources[${si}].serviceAccountToken`, 'must not be specified when serviceAccountName is not set'));
        }
      });
    });
  }
  for (const key of ['containers', 'initContainers']) {
    objs(spec[key]).forEach((c, i) => {
      const image = str(c.image);
      if (image !== image.trim()) errs.push(invalid(`spec.${key}[${i}].image`, image, 'must not have leading or trailing whitespace'));
    });
  }
  return errs;
}

export function validatePodCreate(pod: Obj): FieldError[] {
  const errs = validatePod(pod);
  const spec = obj(pod.spec);
  if (list(spec.ephemeralContainers).length > 0) errs.push(forbidden('spec.ephemeralContainers', 'cannot be set on create'));
  if (str(spec.nodeName) && list(spec.schedulingGates).length > 0) {
    errs.push(forbidden('spec.nodeName', 'cannot be set until all schedulingGates have been cleared'));
  }
  return errs;
}

const UPDATABLE_POD_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

export function validatePodUpdate(pod: Obj, old: Obj): FieldError[] {
  const errs = validatePod(pod);
  const spec = obj(pod.spec);
  const oldSpec = obj(old.spec);
  for (const key of ['containers', 'initContainers']) {
    const now = objs(spec[key]);
    if (now.length !== objs(oldSpec[key]).length) {
      errs.push(forbidden(`spec.${key}`, 'pod updates may not add or remove containers'));
      return errs;
    }
    now.forEach((c, i) => {
      if (!str(c.image)) errs.push(required(`spec.${key}[${i}].image`));
    });
  }
  if (has(spec.activeDeadlineSeconds)) {
    const v = num(spec.activeDeadlineSeconds);
    if (v < 0 || v > 2147483647) {
      errs.push(invalid('spec.activeDeadlineSeconds', v, 'must be between 0 and 2147483647, inclusive'));
      return errs;
    }
    if (has(oldSpec.activeDeadlineSeconds) && num(oldSpec.activeDeadlineSeconds) < v) {
      errs.push(invalid('spec.activeDeadlineSeconds', v, 'must be less than or equal to previous value'));
      return errs;
    }
  } else if (has(oldSpec.activeDeadlineSeconds)) {
    errs.push(invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
  }
  // Tolerations may only be added (tolerationSeconds of existing ones may change).
  objs(oldSpec.tolerations).forEach((t) => {
    const found = objs(spec.tolerations).some((n) => jsonEqual({ ...t, tolerationSeconds: n.tolerationSeconds }, n));
    if (!found) errs.push(forbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds'));
  });
  // Scheduling gates may only be removed.
  const oldGates = new Set(objs(oldSpec.schedulingGates).map((g) => str(g.name)));
  objs(spec.schedulingGates).forEach((g, i) => {
    if (!oldGates.has(str(g.name))) errs.push(forbidden(`spec.schedulingGates[${i}]`, 'only deletion is allowed, but found new scheduling gate \'' + str(g.name) + '\''));
  });
  // Semantic equality of the Go values: a client echoing Go's `resources: {}` changes nothing.
  if (goSemanticEqual(POD_SPEC, spec, oldSpec)) return errs;
  const munged: Obj = cloneObject(spec);
  for (const key of ['containers', 'initContainers']) {
    const oldList = objs(oldSpec[key]);
    if (Array.isArray(munged[key])) munged[key] = objs(munged[key]).map((c, i) => ({ ...c, image: oldList[i]?.image }));
  }
  if (has(oldSpec.activeDeadlineSeconds)) munged.activeDeadlineSeconds = oldSpec.activeDeadlineSeconds;
  else delete munged.activeDeadlineSeconds;
  setOrDelete(munged, 'schedulingGates', oldSpec.schedulingGates);
  setOrDelete(munged, 'tolerations', oldSpec.tolerations);
  if (num(oldSpec.terminationGracePeriodSeconds) < 0 && munged.terminationGracePeriodSeconds === 1) munged.terminationGracePeriodSeconds = oldSpec.terminationGracePeriodSeconds;
  if (list(oldSpec.schedulingGates).length > 0) {
    // Gated pods may gain node selector entries and node affinity.
    setOrDelete(munged, 'nodeSelector', oldSpec.nodeSelector);
  }
  if (!goSemanticEqual(POD_SPEC, munged, oldSpec)) {
    errs.push(forbidden('spec', `pod updates may not change fields other than ${UPDATABLE_POD_FIELDS.join(',')}\n${specDiff(oldSpec, munged)}`));
  }
  return errs;
}

function setOrDelete(o: Obj, key: string, value: unknown): void {
  if (value === undefined) delete o[key];
  else o[key] = value;
}

/**
 * kube appends a go-cmp diff of the internal specs, which cannot be
 * reproduced byte for byte; this lists the changed top-level fields in the
 * same -old/+new spirit.
 */
function specDiff(oldSpec: Obj, newSpec: Obj): string {
  const keys = [...new Set([...Object.keys(oldSpec), ...Object.keys(newSpec)])].sort();
  const lines: string[] = [];
  for (const k of keys) {
    if (jsonEqual(oldSpec[k], newSpec[k])) continue;
    if (oldSpec[k] !== undefined) lines.push(`- \t${k}: ${JSON.stringify(oldSpec[k])}`);
    if (newSpec[k] !== undefined) lines.push(`+ \t${k}: ${JSON.stringify(newSpec[k])}`);
  }
  return `  PodSpec{\n${lines.join('\n')}\n  }\n`;
}

export function validatePodTemplate(pt: Obj): FieldError[] {
  return validatePodTemplateSpec(pt.template, 'template');
}

// ------------------------------------------------------ ReplicationControllers

export function validateReplicationController(rc: Obj): FieldError[] {
  const spec = obj(rc.spec);
  const errs: FieldError[] = [...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'), ...nonNegative(spec.replicas, 'spec.replicas')];
  const selector = obj(spec.selector);
  if (Object.keys(selector).length === 0) errs.push(required('spec.selector'));
  else errs.push(...validateLabels(selector, 'spec.selector'));
  if (!isObj(spec.template)) {
    errs.push(required('spec.template'));
  } else {
    const labels = obj(obj(spec.template.metadata).labels);
    if (Object.keys(selector).length > 0 && !mapSelectorMatches(selector, labels)) {
      errs.push(invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
    }
    errs.push(...validatePodTemplateSpec(spec.template, 'spec.template'));
    if (num(spec.replicas) > 1) {
      objs(obj(spec.template.spec).volumes).forEach((v) => {
        if (isObj(v.gcePersistentDisk) && v.gcePersistentDisk.readOnly !== true) {
          errs.push(invalid('spec.template.spec.volumes', v, 'may not be RW if replicas > 1'));
        }
      });
    }
    const rp = obj(spec.template.spec).restartPolicy;
    if (rp !== 'Always') errs.push(notSupported('spec.template.spec.restartPolicy', rp ?? '', ['Always']));
    if (has(obj(spec.template.spec).activeDeadlineSeconds)) {
      errs.push(forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in ReplicationController is not Supported'));
    }
  }
  return errs;
}

// ---------------------------------------------------------------- Services

const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const PORT_PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const IP_FAMILIES = ['IPv4', 'IPv6'];
const IP_FAMILY_POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];

export function isIPv4(ip: string): boolean {
  const parts = ip.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255 && !(p.length > 1 && p.startsWith('0')));
}

export function isIPv6(ip: string): boolean {
  if (!ip.includes(':') || !/^[0-9a-fA-F:.]+$/.test(ip)) return false;
  const doubles = ip.split('::').length - 1;
  if (doubles > 1) return false;
  const groups = ip.split(':').filter((g, i, a) => !(g === '' && (doubles > 0 && (i === 0 || i === a.length - 1 || a[i - 1] === '' || a[i + 1] === ''))));
  let count = 0;
  for (const g of groups) {
    if (g.includes('.')) {
      if (!isIPv4(g)) return false;
      count += 2;
    } else if (/^[0-9a-fA-F]{1,4}$/.test(g)) count++;
    else if (g !== '') return false;
  }
  return doubles ? count < 8 : count === 8;
}

export function validateIP(ip: string, field: string): FieldError[] {
  return isIPv4(ip) || isIPv6(ip) ? [] : [invalid(field, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
}

function isHeadless(spec: Obj): boolean {
  const ips = list(spec.clusterIPs);
  return ips.length > 0 && ips[0] === 'None';
}

function externallyAccessible(spec: Obj): boolean {
  return spec.type === 'LoadBalancer' || spec.type === 'NodePort' || (spec.type === 'ClusterIP' && list(spec.externalIPs).length > 0);
}

function validateClusterIPsRelated(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const clusterIP = str(spec.clusterIP);
  const clusterIPs = list(spec.clusterIPs).map(str);
  if (clusterIP) {
    if (clusterIPs.length === 0) errs.push(required('spec.clusterIPs'));
    else if (clusterIPs[0] !== clusterIP) errs.push(invalid('spec.clusterIPs', clusterIPs, 'first value must match `clusterIP`'));
  } else if (clusterIPs.length > 0) {
    errs.push(invalid('spec.clusterIPs', clusterIPs, 'must be empty when `clusterIP` is not specified'));
  }
  const families = list(spec.ipFamilies).map(str);
  const seen = new Set<string>();
  families.forEach((f, i) => {
    if (!IP_FAMILIES.includes(f)) errs.push(notSupported(`spec.ipFamilies[${i}]`, f, IP_FAMILIES));
    if (seen.has(f)) errs.push(duplicate(`spec.ipFamilies[${i}]`, f));
    seen.add(f);
  });
  if (has(spec.ipFamilyPolicy) && !IP_FAMILY_POLICIES.includes(str(spec.ipFamilyPolicy))) {
    errs.push(notSupported('spec.ipFamilyPolicy', spec.ipFamilyPolicy, IP_FAMILY_POLICIES));
  }
  let badIPs = false;
  clusterIPs.forEach((ip, i) => {
    if (i === 0 && ip === 'None') {
      if (clusterIPs.length > 1) {
        badIPs = true;
        errs.push(invalid('spec.clusterIPs', clusterIPs, "'None' must be the first and only value"));
      }
      return;
    }
    const e = validateIP(ip, `spec.clusterIPs[${i}]`);
    if (e.length) badIPs = true;
    errs.push(...e);
  });
  if (clusterIPs.length > 2) errs.push(invalid('spec.clusterIPs', clusterIPs, 'may only hold up to 2 values'));
  if (badIPs) return errs;
  if (clusterIPs.length > 1 && isIPv6(clusterIPs[0]!) === isIPv6(clusterIPs[1]!)) {
    errs.push(invalid('spec.clusterIPs', clusterIPs, 'may specify no more than one IP for each IP family'));
  }
  if (!isHeadless(spec)) {
    clusterIPs.forEach((ip, i) => {
      if (i >= families.length) return;
      if (families[i] === 'IPv4' && isIPv6(ip)) errs.push(invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (families[i] === 'IPv6' && !isIPv6(ip)) errs.push(invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    });
  }
  return errs;
}

export function validateService(svc: Obj): FieldError[] {
  const spec = obj(svc.spec);
  const errs: FieldError[] = [];
  const type = str(spec.type);
  const ports = objs(spec.ports);
  if (ports.length === 0 && !isHeadless(spec) && type !== 'ExternalName') errs.push(required('spec.ports'));
  if (type === 'LoadBalancer' && isHeadless(spec)) errs.push(invalid('spec.clusterIPs[0]', 'None', "may not be set to 'None' for LoadBalancer services"));
  if (type === 'NodePort' && isHeadless(spec)) errs.push(invalid('spec.clusterIPs[0]', 'None', "may not be set to 'None' for NodePort services"));
  if (type === 'ExternalName') {
    if (list(spec.clusterIPs).length > 0) errs.push(forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    if (list(spec.ipFamilies).length > 0) errs.push(forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
    if (has(spec.ipFamilyPolicy)) errs.push(forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
    const cname = str(spec.externalName).replace(/\.$/, '');
    if (cname) errs.push(...isDns1123Subdomain(cname).map((m) => invalid('spec.externalName', cname, m)));
    else errs.push(required('spec.externalName'));
  }
  const names = new Set<string>();
  ports.forEach((sp, i) => {
    const p = `spec.ports[${i}]`;
    const name = str(sp.name);
    if (ports.length > 1 && !name) errs.push(required(`${p}.name`));
    else if (name) {
      errs.push(...isDns1123LabelErrs(name, `${p}.name`));
      if (names.has(name)) errs.push(duplicate(`${p}.name`, name));
      else names.add(name);
    }
    for (const m of isValidPortNum(sp.port)) errs.push(invalid(`${p}.port`, sp.port ?? 0, m));
    if (!str(sp.protocol)) errs.push(required(`${p}.protocol`));
    else if (!PORT_PROTOCOLS.includes(str(sp.protocol))) errs.push(notSupported(`${p}.protocol`, sp.protocol, PORT_PROTOCOLS));
    errs.push(...validatePortNumOrName(sp.targetPort, `${p}.targetPort`));
    if (has(sp.appProtocol)) errs.push(...isQualifiedName(str(sp.appProtocol)).map((m) => invalid(`${p}.appProtocol`, sp.appProtocol, m)));
  });
  if (has(spec.selector)) errs.push(...validateLabels(spec.selector, 'spec.selector'));
  const affinity = str(spec.sessionAffinity);
  if (!affinity) errs.push(required('spec.sessionAffinity'));
  else if (affinity !== 'ClientIP' && affinity !== 'None') errs.push(notSupported('spec.sessionAffinity', affinity, ['ClientIP', 'None']));
  if (affinity === 'ClientIP') {
    const timeout = obj(obj(spec.sessionAffinityConfig).clientIP).timeoutSeconds;
    if (!isObj(spec.sessionAffinityConfig)) errs.push(required('spec.sessionAffinityConfig', 'when session affinity type is ClientIP'));
    else if (typeof timeout === 'number' && (timeout <= 0 || timeout > 86400)) {
      errs.push(invalid('spec.sessionAffinityConfig.clientIP.timeoutSeconds', timeout, 'must be greater than 0 and less than 86400'));
    }
  } else if (affinity === 'None' && has(spec.sessionAffinityConfig)) {
    errs.push(forbidden('spec.sessionAffinityConfig', 'must not be set when session affinity is None'));
  }
  errs.push(...validateClusterIPsRelated(spec));
  list(spec.externalIPs).forEach((ip, i) => errs.push(...validateIP(str(ip), `spec.externalIPs[${i}]`)));
  if (!type) errs.push(required('spec.type'));
  else if (!SERVICE_TYPES.includes(type)) errs.push(notSupported('spec.type', type, SERVICE_TYPES));
  if (type === 'ClusterIP') ports.forEach((sp, i) => sp.nodePort && errs.push(forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'")));
  const nodePorts = new Set<string>();
  ports.forEach((sp, i) => {
    if (!sp.nodePort) return;
    const key = `${str(sp.protocol)}/${num(sp.nodePort)}`;
    if (nodePorts.has(key)) errs.push(duplicate(`spec.ports[${i}].nodePort`, sp.nodePort));
    nodePorts.add(key);
  });
  const portKeys = new Set<string>();
  ports.forEach((sp, i) => {
    const key = `${str(sp.protocol)}/${num(sp.port)}`;
    if (portKeys.has(key)) errs.push(duplicate(`spec.ports[${i}]`, goStruct([
          // The key kube builds (internal core.ServicePort, untagged): protocol and port only; a zero IntOrString marshals as 0.
          ['Name', ''],
          ['Protocol', str(sp.protocol)],
          ['AppProtocol', null],
          ['Port', num(sp.port)],
          ['TargetPort', 0],
          ['NodePort', 0],
        ])));
    portKeys.add(key);
  });
  if (list(spec.loadBalancerSourceRanges).length > 0 && type !== 'LoadBalancer') {
    errs.push(forbidden('spec.LoadBalancerSourceRanges', "may only be used when `type` is 'LoadBalancer'"));
  }
  if (has(spec.allocateLoadBalancerNodePorts) && type !== 'LoadBalancer') {
    errs.push(forbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'"));
  }
  if (type === 'LoadBalancer' && !has(spec.allocateLoadBalancerNodePorts)) errs.push(required('allocateLoadBalancerNodePorts'));
  const etp = str(spec.externalTrafficPolicy);
  if (!externallyAccessible(spec)) {
    if (etp) errs.push(invalid('spec.externalTrafficPolicy', etp, 'may only be set for externally-accessible services'));
  } else if (!etp) errs.push(required('spec.externalTrafficPolicy'));
  else if (etp !== 'Cluster' && etp !== 'Local') errs.push(notSupported('spec.externalTrafficPolicy', etp, ['Cluster', 'Local']));
  const needsHealthCheck = type === 'LoadBalancer' && etp === 'Local';
  if (!needsHealthCheck && spec.healthCheckNodePort) {
    errs.push(invalid('spec.healthCheckNodePort', spec.healthCheckNodePort, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
  }
  if (!has(spec.internalTrafficPolicy)) {
    if (type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP') errs.push(required('spec.internalTrafficPolicy'));
  } else if (spec.internalTrafficPolicy !== 'Cluster' && spec.internalTrafficPolicy !== 'Local') {
    errs.push(notSupported('spec.internalTrafficPolicy', spec.internalTrafficPolicy, ['Cluster', 'Local']));
  }
  if (has(spec.trafficDistribution)) {
    const allowed = ['PreferClose', 'PreferSameZone', 'PreferSameNode'];
    if (!allowed.includes(str(spec.trafficDistribution))) errs.push(notSupported('spec.trafficDistribution', spec.trafficDistribution, allowed));
  }
  return errs;
}

function isDns1123LabelErrs(value: string, field: string): FieldError[] {
  return dnsLabelMessages(value).map((m) => invalid(field, value, m));
}

export function validateServiceUpdate(svc: Obj, old: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(svc.spec);
  const oldSpec = obj(old.spec);
  if (spec.type !== 'ExternalName' && oldSpec.type !== 'ExternalName' && !(isHeadless(spec) && isHeadless(oldSpec))) {
    const now = list(spec.clusterIPs).map(str);
    const before = list(oldSpec.clusterIPs).map(str);
    if (now.length === before.length) {
      before.forEach((ip, i) => ip !== now[i] && errs.push(invalid(`spec.clusterIPs[${i}]`, now, 'may not change once set')));
    } else if (before.length > now.length) {
      if (now.length === 0) errs.push(invalid('spec.clusterIPs[0]', now, 'primary clusterIP can not be unset'));
      if (before.length > 0 && now.length > 0 && now[0] !== before[0]) errs.push(invalid('spec.clusterIPs[0]', now, 'may not change once set'));
      if (now.length === 1 && spec.ipFamilyPolicy !== 'SingleStack') {
        errs.push(invalid('spec.clusterIPs[0]', now, "`ipFamilyPolicy` must be set to 'SingleStack' when releasing the secondary clusterIP"));
      }
    } else if (before.length > 0 && now[0] !== before[0]) {
      errs.push(invalid('spec.clusterIPs[0]', now, 'may not change once set'));
    }
    const fams = list(spec.ipFamilies).map(str);
    const oldFams = list(oldSpec.ipFamilies).map(str);
    if (oldFams.length > 0 && fams.length > 0 && fams[0] !== oldFams[0]) {
      errs.push(invalid('spec.ipFamilies[0]', fams, 'may not change once set'));
    }
  }
  if (oldSpec.type === 'LoadBalancer' && oldSpec.externalTrafficPolicy === 'Local' && spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local') {
    if (spec.healthCheckNodePort !== oldSpec.healthCheckNodePort) errs.push(forbidden('spec.healthCheckNodePort', FIELD_IMMUTABLE));
  }
  return [...errs, ...validateService(svc)];
}

// ------------------------------------------------- Secrets and ConfigMaps

const MAX_SECRET_SIZE = 1024 * 1024;

export function isConfigMapKey(key: string): string[] {
  const errs: string[] = [];
  if (key.length > 253) errs.push('must be no more than 253 characters');
  if (!/^[-._a-zA-Z0-9]+$/.test(key)) {
    errs.push("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
  }
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

function dataSize(data: Obj, base64: boolean): number {
  let total = 0;
  for (const v of Object.values(data)) total += base64 ? Buffer.from(str(v), 'base64').length : Buffer.byteLength(str(v));
  return total;
}

export function validateSecret(secret: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const data = obj(secret.data);
  for (const key of Object.keys(data)) for (const m of isConfigMapKey(key)) errs.push(invalid(`data[${key}]`, key, m));
  if (dataSize(data, true) > MAX_SECRET_SIZE) errs.push(tooLong('data', MAX_SECRET_SIZE));
  const need = (key: string): void => {
    if (!(key in data)) errs.push(required(`data[${key}]`));
  };
  switch (secret.type) {
    case 'kubernetes.io/service-account-token':
      if (!str(obj(obj(secret.metadata).annotations)['kubernetes.io/service-account.name'])) {
        errs.push(required('metadata.annotations[kubernetes.io/service-account.name]'));
      }
      break;
    case 'kubernetes.io/dockercfg':
      need('.dockercfg');
      break;
    case 'kubernetes.io/dockerconfigjson':
      need('.dockerconfigjson');
      break;
    case 'kubernetes.io/basic-auth':
      if (!('username' in data) && !('password' in data)) {
        errs.push(required('data[username]'), required('data[password]'));
      }
      break;
    case 'kubernetes.io/ssh-auth':
      need('ssh-privatekey');
      break;
    case 'kubernetes.io/tls':
      need('tls.key');
      need('tls.crt');
      break;
    default:
      break;
  }
  return errs;
}

export function validateImmutableData(obj_: Obj, old: Obj, fields: string[]): FieldError[] {
  if (old.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (obj_.immutable !== true) errs.push(forbidden('immutable', 'field is immutable when `immutable` is set'));
  for (const f of fields) if (!jsonEqual(obj_[f] ?? {}, old[f] ?? {})) errs.push(forbidden(f, 'field is immutable when `immutable` is set'));
  return errs;
}

export function validateSecretUpdate(secret: Obj, old: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if (str(secret.type) !== str(old.type)) errs.push(invalid('type', str(secret.type), FIELD_IMMUTABLE));
  errs.push(...validateImmutableData(secret, old, ['data']));
  return [...errs, ...validateSecret(secret)];
}

export function validateConfigMap(cm: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const data = obj(cm.data);
  const binary = obj(cm.binaryData);
  for (const key of Object.keys(data)) for (const m of isConfigMapKey(key)) errs.push(invalid(`data[${key}]`, key, m));
  for (const key of Object.keys(binary)) {
    for (const m of isConfigMapKey(key)) errs.push(invalid(`binaryData[${key}]`, key, m));
    if (key in data) errs.push(invalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
  }
  if (dataSize(data, false) + dataSize(binary, true) > MAX_SECRET_SIZE) errs.push(tooLong('', MAX_SECRET_SIZE));
  return errs;
}

export function validateConfigMapUpdate(cm: Obj, old: Obj): FieldError[] {
  return [...validateImmutableData(cm, old, ['data', 'binaryData']), ...validateConfigMap(cm)];
}

// ------------------------------------------------------------- Namespaces

export function validateNamespace(ns: Obj): FieldError[] {
  const errs: FieldError[] = [];
  list(obj(ns.spec).finalizers).forEach((f, i) => {
    const name = str(f);
    for (const m of isQualifiedName(name)) errs.push(invalid(`spec.finalizers[${i}]`, name, m));
    if (!name.includes('/') && name !== 'kubernetes') {
      errs.push(invalid(`spec.finalizers[${i}]`, name, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  });
  return errs;
}

// --------------------------------------------- PersistentVolumeClaims / PVs

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const VOLUME_MODES = ['Block', 'Filesystem'];

export function validatePvcSpec(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const modes = list(spec.accessModes).map(str);
  if (modes.length === 0) errs.push(required(`${path}.accessModes`, 'at least 1 access mode is required'));
  for (const m of modes) if (!ACCESS_MODES.includes(m)) errs.push(notSupported(`${path}.accessModes`, m, ACCESS_MODES));
  if (modes.includes('ReadWriteOncePod') && modes.length > 1) {
    errs.push(forbidden(`${path}.accessModes`, 'may not use ReadWriteOncePod with other access modes'));
  }
  errs.push(...validateLabelSelector(spec.selector, `${path}.selector`));
  const requests = obj(obj(spec.resources).requests);
  if (!('storage' in requests)) errs.push(required(`${path}.resources[storage]`));
  else {
    const q = quantityFromJson(requests.storage);
    if (!q || quantitySign(q) <= 0) errs.push(invalid(`${path}.resources[storage]`, quantityString(requests.storage), 'must be greater than zero'));
  }
  if (str(spec.storageClassName)) errs.push(...isDns1123Subdomain(str(spec.storageClassName)).map((m) => invalid(`${path}.storageClassName`, spec.storageClassName, m)));
  if (has(spec.volumeMode) && !VOLUME_MODES.includes(str(spec.volumeMode))) errs.push(notSupported(`${path}.volumeMode`, spec.volumeMode, VOLUME_MODES));
  return errs;
}

export function validatePvc(pvc: Obj): FieldError[] {
  return validatePvcSpec(obj(pvc.spec), 'spec');
}

export function validatePvcUpdate(pvc: Obj, old: Obj): FieldError[] {
  const errs = validatePvc(pvc);
  const spec = cloneObject(obj(pvc.spec));
  const oldSpec = cloneObject(obj(old.spec));
  // volumeName may be set once (by the binder); bound claims may change storage requests.
  if (!str(oldSpec.volumeName)) setOrDelete(oldSpec, 'volumeName', spec.volumeName);
  const bound = obj(pvc.status).phase === 'Bound';
  if (bound) {
    const req = obj(obj(spec.resources).requests);
    if (isObj(obj(spec.resources).requests)) {
      setOrDelete(req, 'storage', obj(obj(oldSpec.resources).requests).storage);
    }
    setOrDelete(spec, 'volumeAttributesClassName', oldSpec.volumeAttributesClassName);
  }
  if (!jsonEqual(spec, oldSpec)) {
    errs.push(forbidden('spec', `spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n${specDiff(oldSpec, spec).replace('PodSpec', 'PersistentVolumeClaimSpec')}`));
  }
  const newSize = quantityFromJson(obj(obj(obj(pvc.spec).resources).requests).storage);
  const oldSize = quantityFromJson(obj(obj(obj(old.spec).resources).requests).storage);
  const capacity = quantityFromJson(obj(obj(old.status).capacity).storage);
  if (newSize && oldSize && compare(newSize, oldSize) < 0) {
    // RecoverVolumeExpansionFailure (GA): shrinking is allowed down to just above status.capacity.
    if (!capacity || compare(newSize, capacity) <= 0) errs.push(forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
  }
  if (has(old.spec) && !jsonEqual(obj(pvc.spec).volumeMode, obj(old.spec).volumeMode)) errs.push(invalid('volumeMode', obj(pvc.spec).volumeMode ?? null, FIELD_IMMUTABLE));
  return errs;
}

const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];

export function validatePersistentVolume(pv: Obj): FieldError[] {
  const spec = obj(pv.spec);
  const errs: FieldError[] = [];
  const modes = list(spec.accessModes).map(str);
  if (modes.length === 0) errs.push(required('spec.accessModes'));
  for (const m of modes) if (!ACCESS_MODES.includes(m)) errs.push(notSupported('spec.accessModes', m, ACCESS_MODES));
  const capacity = obj(spec.capacity);
  if (Object.keys(capacity).length === 0) errs.push(required('spec.capacity'));
  if (has(spec.persistentVolumeReclaimPolicy) && !RECLAIM_POLICIES.includes(str(spec.persistentVolumeReclaimPolicy))) {
    errs.push(notSupported('spec.persistentVolumeReclaimPolicy', spec.persistentVolumeReclaimPolicy, RECLAIM_POLICIES));
  }
  if (has(spec.volumeMode) && !VOLUME_MODES.includes(str(spec.volumeMode))) errs.push(notSupported('spec.volumeMode', spec.volumeMode, VOLUME_MODES));
  return errs;
}

export function validateEndpoints(ep: Obj): FieldError[] {
  const errs: FieldError[] = [];
  objs(ep.subsets).forEach((ss, i) => {
    const p = `subsets[${i}]`;
    if (list(ss.addresses).length === 0 && list(ss.notReadyAddresses).length === 0) {
      errs.push(required(`${p}`, 'must specify `addresses` or `notReadyAddresses`'));
    }
    for (const key of ['addresses', 'notReadyAddresses']) objs(ss[key]).forEach((a, j) => errs.push(...validateIP(str(a.ip), `${p}.${key}[${j}].ip`)));
    objs(ss.ports).forEach((port, j) => {
      const pp = `${p}.ports[${j}]`;
      if (list(ss.ports).length > 1 && !str(port.name)) errs.push(required(`${pp}.name`));
      for (const m of isValidPortNum(port.port)) errs.push(invalid(`${pp}.port`, port.port ?? 0, m));
      if (!str(port.protocol)) errs.push(required(`${pp}.protocol`));
      else if (!PORT_PROTOCOLS.includes(str(port.protocol))) errs.push(notSupported(`${pp}.protocol`, port.protocol, PORT_PROTOCOLS));
    });
  });
  return errs;
}
