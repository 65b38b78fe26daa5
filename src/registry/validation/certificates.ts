import { X509Certificate } from 'node:crypto';

import type { FieldError } from '../../machinery/errors.js';
import { DNS1123_LABEL_MAX, DNS1123_SUBDOMAIN_MAX, isDns1123Label, isDns1123Subdomain } from '../../machinery/name-validation.js';
import { certificateRequestError } from '../../machinery/pkcs10.js';
import { pemBlocks } from '../../machinery/pem.js';
import { duplicate, forbidden, invalid, list, notSupported, obj, objs, required, str, tooLong, type Obj } from './field.js';

/**
 * CertificateSigningRequest validation as kube-apiserver 1.36 runs it
 * (pkg/apis/certificates/validation/validation.go: validateCertificateSigningRequest,
 * validateConditions, validateCertificateSigningRequestUpdate and
 * getValidationOptions; ValidateSignerName from pkg/apis/core/validation).
 * What a stored object already gets wrong is tolerated on its updates, as
 * kube's compatibility options do.
 */

/** certificates.LegacyUnknownSignerName: only v1beta1 (no longer served) could create it. */
export const LEGACY_UNKNOWN_SIGNER = 'kubernetes.io/legacy-unknown';

/** allValidUsages, sorted as sets.String.List() gives them for NotSupported. */
export const VALID_USAGES: readonly string[] = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment', 'decipher only',
  'digital signature', 'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'key agreement',
  'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping',
];

/** Condition types whose status may only be True (trueConditionTypes). */
const TRUE_ONLY_TYPES = new Set(['Approved', 'Denied', 'Failed']);
const ALL_STATUSES = ['False', 'True', 'Unknown'];

/** Which write path an update came through: what it may change. */
export type CsrUpdatePath = 'main' | 'status' | 'approval';

/** certificateValidationOptions. */
interface Options {
  allowSettingApprovalConditions: boolean;
  allowSettingCertificate: boolean;
  allowBothApprovedAndDenied: boolean;
  allowLegacySignerName: boolean;
  allowDuplicateConditionTypes: boolean;
  allowEmptyConditionType: boolean;
  allowArbitraryCertificate: boolean;
  allowUnknownUsages: boolean;
  allowDuplicateUsages: boolean;
}

/** ValidateCertificateSigningRequestCreate. */
export function validateCertificateSigningRequestCreate(csr: Obj): FieldError[] {
  return validateCsr(csr, validationOptions(csr, undefined));
}

/** ValidateCertificateSigningRequest{,Status,Approval}Update, by the path the write came through. */
export function validateCertificateSigningRequestUpdate(csr: Obj, old: Obj, path: CsrUpdatePath = 'main'): FieldError[] {
  const opts = validationOptions(csr, old);
  if (path === 'status') opts.allowSettingCertificate = true;
  if (path === 'approval') opts.allowSettingApprovalConditions = true;
  const errs = validateCsr(csr, opts);
  for (const type of ['Approved', 'Denied', 'Failed']) {
    if (conditionsOfType(csr, type).length < conditionsOfType(old, type).length) {
      errs.push(forbidden('status.conditions', `updates may not remove a condition of type ${JSON.stringify(type)}`));
    }
  }
  if (!opts.allowSettingApprovalConditions) {
    for (const type of ['Approved', 'Denied']) {
      const [before, after] = [conditionsOfType(old, type), conditionsOfType(csr, type)];
      if (after.length > before.length) {
        errs.push(forbidden('status.conditions', `updates may not add a condition of type ${JSON.stringify(type)}`));
      } else if (after.length === before.length && JSON.stringify(after) !== JSON.stringify(before)) {
        // kube appends go-cmp's diff here, whose text go-cmp keeps deliberately unstable; the two lists stand in for it.
        errs.push(forbidden('status.conditions', `updates may not modify a condition of type ${JSON.stringify(type)}\n- ${JSON.stringify(before)}\n+ ${JSON.stringify(after)}`));
      }
    }
  }
  const [certificate, oldCertificate] = [str(statusOf(csr).certificate), str(statusOf(old).certificate)];
  if (certificate !== oldCertificate) {
    if (!opts.allowSettingCertificate) errs.push(forbidden('status.certificate', 'updates may not set certificate content'));
    else if (oldCertificate !== '') errs.push(forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return errs;
}

function validateCsr(csr: Obj, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(csr.spec);
  const request = bytesOf(spec.request);
  const requestError = certificateRequestError(request ?? new Uint8Array());
  if (requestError !== undefined) errs.push(invalid('spec.request', goBytes(request), requestError));
  const usages = list(spec.usages).map(str);
  if (usages.length === 0) errs.push(required('spec.usages'));
  if (!opts.allowUnknownUsages) {
    usages.forEach((u, i) => {
      if (!VALID_USAGES.includes(u)) errs.push(notSupported(`spec.usages[${i}]`, u, VALID_USAGES));
    });
  }
  if (!opts.allowDuplicateUsages) {
    usages.forEach((u, i) => {
      if (usages.indexOf(u) < i) errs.push(duplicate(`spec.usages[${i}]`, u));
    });
  }
  const signerName = str(spec.signerName);
  if (!opts.allowLegacySignerName && signerName === LEGACY_UNKNOWN_SIGNER) {
    errs.push(invalid('spec.signerName', signerName, 'the legacy signerName is not allowed via this API version'));
  } else {
    errs.push(...validateSignerName('spec.signerName', signerName));
  }
  if (typeof spec.expirationSeconds === 'number' && spec.expirationSeconds < 600) {
    errs.push(invalid('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  errs.push(...validateConditions(csr, opts));
  if (!opts.allowArbitraryCertificate) {
    const certError = certificateError(bytesOf(statusOf(csr).certificate));
    if (certError !== undefined) errs.push(invalid('status.certificate', '<certificate data>', certError));
  }
  return errs;
}

function validateConditions(csr: Obj, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let [approved, denied] = [false, false];
  objs(statusOf(csr).conditions).forEach((c, i) => {
    const [type, status] = [str(c.type), str(c.status)];
    const at = `status.conditions[${i}]`;
    if (!opts.allowEmptyConditionType && type === '') errs.push(required(`${at}.type`));
    const allowed = TRUE_ONLY_TYPES.has(type) ? ['True'] : ALL_STATUSES;
    if (status === '') errs.push(required(`${at}.status`));
    else if (!allowed.includes(status)) errs.push(notSupported(`${at}.status`, status, allowed));
    if (!opts.allowBothApprovedAndDenied) {
      if (type === 'Approved') approved = true;
      if (type === 'Denied') denied = true;
      if ((type === 'Approved' && denied) || (type === 'Denied' && approved)) {
        errs.push(invalid('status.conditions', type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!opts.allowDuplicateConditionTypes) {
      if (seen.has(type)) errs.push(duplicate(`${at}.type`, type));
      seen.add(type);
    }
  });
  return errs;
}

/** ValidateSignerName (pkg/apis/core/validation): `<domain>/<path>`, each part DNS labels or subdomains, 571 bytes at most. */
export function validateSignerName(field: string, signerName: string): FieldError[] {
  if (signerName === '') return [required(field)];
  const segments = signerName.split('/');
  if (segments.length !== 2) {
    return [invalid(field, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  }
  const [domain, path] = segments as [string, string];
  const errs: FieldError[] = [];
  if (domain.length > DNS1123_SUBDOMAIN_MAX) errs.push(tooLong(field, DNS1123_SUBDOMAIN_MAX));
  const domainLabels = domain.split('.');
  errs.push(...firstLabelErrors(field, domain, domainLabels, isDns1123Label));
  if (domainLabels.length < 2) errs.push(invalid(field, domain, 'should be a domain with at least two segments separated by dots'));
  errs.push(...firstLabelErrors(field, path, path.split('.'), isDns1123Subdomain));
  const maxSignerName = DNS1123_SUBDOMAIN_MAX + (DNS1123_SUBDOMAIN_MAX + DNS1123_LABEL_MAX + 1) + 1;
  if (signerName.length > maxSignerName) errs.push(tooLong(field, maxSignerName));
  return errs;
}

/** The errors of the first label that has any: the later ones would only repeat them. */
function firstLabelErrors(field: string, segment: string, labels: string[], check: (label: string) => string[]): FieldError[] {
  for (const label of labels) {
    const problems = check(label);
    if (problems.length > 0) return problems.map((p) => invalid(field, segment, `validating label ${JSON.stringify(label)}: ${p}`));
  }
  return [];
}

/** validateCertificate: status.certificate, when set, is CERTIFICATE PEM blocks only, without headers, each an X.509 certificate. */
function certificateError(pem: Uint8Array | undefined): string | undefined {
  if (!pem || pem.length === 0) return undefined;
  const blocks = pemBlocks(Buffer.from(pem).toString('latin1'));
  for (const block of blocks) {
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(block.type)}`;
    if (block.hasHeaders) return 'no PEM block headers are permitted';
    try {
      new X509Certificate(block.bytes);
    } catch {
      return 'x509: malformed certificate';
    }
  }
  return blocks.length === 0 ? 'must contain at least one CERTIFICATE PEM block' : undefined;
}

/** getValidationOptions: what the stored object already gets wrong stays allowed on its updates. */
function validationOptions(csr: Obj, old: Obj | undefined): Options {
  const oldTypes = old ? objs(statusOf(old).conditions).map((c) => str(c.type)) : [];
  const oldUsages = old ? list(obj(old.spec).usages).map(str) : [];
  const oldCertificate = old ? bytesOf(statusOf(old).certificate) : undefined;
  return {
    allowSettingApprovalConditions: false,
    allowSettingCertificate: false,
    allowBothApprovedAndDenied: oldTypes.includes('Approved') && oldTypes.includes('Denied'),
    allowLegacySignerName: !!old && str(obj(old.spec).signerName) === LEGACY_UNKNOWN_SIGNER,
    allowDuplicateConditionTypes: new Set(oldTypes).size < oldTypes.length,
    allowEmptyConditionType: oldTypes.includes(''),
    allowArbitraryCertificate:
      !!old && (str(statusOf(csr).certificate) === str(statusOf(old).certificate) || certificateError(oldCertificate) !== undefined),
    allowUnknownUsages: oldUsages.some((u) => !VALID_USAGES.includes(u)),
    allowDuplicateUsages: new Set(oldUsages).size < oldUsages.length,
  };
}

function statusOf(csr: Obj): Obj {
  return obj(csr.status);
}

function conditionsOfType(csr: Obj, type: string): Obj[] {
  return objs(statusOf(csr).conditions).filter((c) => str(c.type) === type);
}

/** A []byte field as JSON carries it: base64 (undefined when unset). */
function bytesOf(value: unknown): Uint8Array | undefined {
  return typeof value === 'string' ? Buffer.from(value, 'base64') : undefined;
}

/** json.Marshal of a []byte, as field.Invalid prints it: a base64 string, nil as null. */
function goBytes(bytes: Uint8Array | undefined): string | null {
  return bytes === undefined ? null : Buffer.from(bytes).toString('base64');
}
