import { ageCol, col, doc, nameCol, printer } from './columns.js';
import { type TableConvertor } from '../../codec/table-convertor.js';
import { age, annotationsOf, formatLabelSelector, groupQualified, listWithMore, nameOf, sortedUnique } from './format.js';
import { int, list, optRec, present, rec, recs, str, strings } from './values.js';

/** networking.k8s.io and discovery.k8s.io printers. */

const NET = 'io.k8s.api.networking.v1';

/** formatHosts: up to three rule hosts, "*" when none names a host. */
function formatHosts(rules: unknown): string {
  const all = recs(rules);
  const max = 3;
  const hosts: string[] = [];
  let more = false;
  for (const r of all) {
    if (hosts.length === max) more = true;
    if (!more && str(r.host) !== '') hosts.push(str(r.host));
  }
  if (hosts.length === 0) return '*';
  return more ? `${hosts.join(',')} + ${all.length - max} more...` : hosts.join(',');
}

function ingressAddress(loadBalancer: unknown): string {
  const points = recs(rec(loadBalancer).ingress)
    .map((i) => str(i.ip) || str(i.hostname))
    .filter((p) => p !== '');
  return sortedUnique(points).join(',');
}

export const ingressTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('Class', 'string', 'The name of the IngressClass resource that should be used for additional configuration'),
    col('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
    col('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
    col('Ports', 'string', 'Ports of TLS configurations that open'),
    ageCol(),
  ],
  (o, now) => {
    const spec = rec(o.spec);
    const className = typeof spec.ingressClassName === 'string' ? spec.ingressClassName : '<none>';
    const ports = list(spec.tls).length > 0 ? '80, 443' : '80';
    return [nameOf(o), className, formatHosts(spec.rules), ingressAddress(rec(o.status).loadBalancer), ports, age(o, now)];
  },
);

const DEFAULT_INGRESS_CLASS = 'ingressclass.kubernetes.io/is-default-class';

export const ingressClassTable: TableConvertor = printer(
  () => [
    nameCol(),
    col('Controller', 'string', 'Controller that is responsible for handling this class'),
    col('Parameters', 'string', 'A reference to a resource with additional parameters'),
    ageCol(),
  ],
  (o, now) => {
    const spec = rec(o.spec);
    const params = optRec(spec.parameters);
    let parameters = '<none>';
    if (params) {
      parameters = str(params.kind);
      if (present(params.apiGroup)) parameters += `.${str(params.apiGroup)}`;
      parameters += `/${str(params.name)}`;
    }
    // Marked like the default StorageClass (1.36).
    const name = annotationsOf(o)[DEFAULT_INGRESS_CLASS] === 'true' ? `${nameOf(o)} (default)` : nameOf(o);
    return [name, str(spec.controller), parameters, age(o, now)];
  },
);

export const networkPolicyTable: TableConvertor = printer(
  () => [nameCol(), col('Pod-Selector', 'string', doc(`${NET}.NetworkPolicySpec`, 'podSelector')), ageCol()],
  // podSelector is a struct, not a pointer: an absent one is the empty selector.
  (o, now) => [nameOf(o), formatLabelSelector(rec(rec(o.spec).podSelector)), age(o, now)],
);

export const endpointSliceTable: TableConvertor = printer(
  () => {
    const es = 'io.k8s.api.discovery.v1.EndpointSlice';
    return [
      nameCol(),
      col('AddressType', 'string', doc(es, 'addressType')),
      col('Ports', 'string', doc(es, 'ports')),
      col('Endpoints', 'string', doc(es, 'endpoints')),
      ageCol(),
    ];
  },
  (o, now) => {
    // formatDiscoveryPorts: the port number, else its name, else "*".
    const ports = recs(o.ports).map((p) => (present(p.port) ? String(int(p.port)) : present(p.name) ? str(p.name) : '*'));
    const addresses = recs(o.endpoints).flatMap((e) => strings(e.addresses));
    return [nameOf(o), str(o.addressType), listWithMore(ports), listWithMore(addresses), age(o, now)];
  },
);

export const serviceCIDRTable: TableConvertor = printer(
  () => [nameCol(), col('CIDRs', 'string', doc(`${NET}.ServiceCIDRSpec`, 'cidrs')), ageCol()],
  (o, now) => [nameOf(o), strings(rec(o.spec).cidrs).join(','), age(o, now)],
);

/**
 * IPAddress: kube declares two columns but prints three cells (the age as
 * well); kubectl shows only the declared columns.
 */
export const ipAddressTable: TableConvertor = printer(
  () => [nameCol(), col('ParentRef', 'string', doc(`${NET}.IPAddressSpec`, 'parentRef'))],
  (o, now) => {
    const ref = optRec(rec(o.spec).parentRef);
    let parent = '<none>';
    if (ref) {
      parent = groupQualified(str(ref.resource), str(ref.group)).toLowerCase();
      if (str(ref.namespace) !== '') parent += `/${str(ref.namespace)}`;
      parent += `/${str(ref.name)}`;
    }
    return [nameOf(o), parent, age(o, now)];
  },
);
