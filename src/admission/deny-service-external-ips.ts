import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './admission.js';
import { admissionForbidden } from './errors.js';

/**
 * DenyServiceExternalIPs: no Service may gain an external IP it did not
 * have (creates with any, updates adding one); keeping or removing them is
 * allowed.
 */
export class DenyServiceExternalIPs implements AdmissionPlugin {
  readonly name = 'DenyServiceExternalIPs';

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.resource.group !== '' || attrs.resource.name !== 'services' || attrs.subresource) return;
    const added = externalIps(attrs.object);
    if (added.length === 0) return;
    const old = new Set(attrs.oldObject ? externalIps(attrs.oldObject) : []);
    if (attrs.oldObject && added.every((ip) => old.has(ip))) return;
    throw admissionForbidden(attrs, 'Use of external IPs is denied by admission control');
  }
}

function externalIps(service: AdmissionAttributes['object']): string[] {
  const ips = (service?.spec as { externalIPs?: unknown } | undefined)?.externalIPs;
  return Array.isArray(ips) ? ips.map(String) : [];
}
