/**
 * The string formats custom resource schemas validate (kube's
 * apiextensions validation/formats.go: go-openapi/strfmt's registry, names
 * normalized by dropping dashes); other formats are ignored, as kube strips
 * them before validating.
 */

import { isDns1123Label, isDns1123Subdomain } from '../../machinery/name-validation.js';

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const HEXCOLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RGBCOLOR = /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/;
const SSN = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const BSONOBJECTID = /^[0-9a-fA-F]{24}$/;
const HOSTNAME = /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;
const GO_DURATION = /^[-+]?(\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))*$/;
const SCALA_DURATION = /^(\d+)\s*(ns|nano|nanos|nanosecond|nanoseconds|us|micro|micros|microsecond|microseconds|ms|milli|millis|millisecond|milliseconds|s|sec|secs|second|seconds|m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days|w|wk|wks|week|weeks)$/;
const MAC = /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{2}[:-]){7}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{2}[:-]){19}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{4}\.){2}[0-9a-fA-F]{4}$|^([0-9a-fA-F]{4}\.){3}[0-9a-fA-F]{4}$|^([0-9a-fA-F]{4}\.){9}[0-9a-fA-F]{4}$/;
const QUANTITY = /^[+-]?(\d+(\.\d*)?|\.\d+)(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?\d+))?$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function isIPv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

function isIPv6(s: string): boolean {
  if (!s.includes(':')) return false;
  try {
    return new URL(`http://[${s}]/`).hostname.length > 0;
  } catch {
    return false;
  }
}

function isDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

function isUri(s: string): boolean {
  // net/url.ParseRequestURI: an absolute URI or an absolute path.
  if (s.startsWith('/')) return true;
  return /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s) && !/\s/.test(s);
}

function isIsbn10(s: string): boolean {
  const d = s.replace(/[\s-]/g, '');
  if (!/^\d{9}[\dX]$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += (d[i] === 'X' ? 10 : Number(d[i])) * (10 - i);
  return sum % 11 === 0;
}

function isIsbn13(s: string): boolean {
  const d = s.replace(/[\s-]/g, '');
  if (!/^\d{13}$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 13; i++) sum += Number(d[i]) * (i % 2 === 0 ? 1 : 3);
  return sum % 10 === 0;
}

function isCreditCard(s: string): boolean {
  const d = s.replace(/\D/g, '');
  return /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/.test(d);
}

const CHECKS: ReadonlyMap<string, (s: string) => boolean> = new Map<string, (s: string) => boolean>([
  ['bsonobjectid', (s) => BSONOBJECTID.test(s)],
  ['uri', isUri],
  ['email', (s) => EMAIL.test(s)],
  ['hostname', (s) => s.length <= 255 && HOSTNAME.test(s)],
  ['ipv4', isIPv4],
  ['ipv6', isIPv6],
  [
    'cidr',
    (s) => {
      const [ip, bits, extra] = s.split('/');
      if (ip === undefined || bits === undefined || extra !== undefined || !/^\d+$/.test(bits)) return false;
      return (isIPv4(ip) && Number(bits) <= 32) || (isIPv6(ip) && Number(bits) <= 128);
    },
  ],
  ['mac', (s) => MAC.test(s)],
  ['uuid', (s) => UUID.test(s)],
  ['uuid3', (s) => UUID3.test(s)],
  ['uuid4', (s) => UUID4.test(s)],
  ['uuid5', (s) => UUID5.test(s)],
  ['isbn', (s) => isIsbn10(s) || isIsbn13(s)],
  ['isbn10', isIsbn10],
  ['isbn13', isIsbn13],
  ['creditcard', isCreditCard],
  ['ssn', (s) => SSN.test(s)],
  ['hexcolor', (s) => HEXCOLOR.test(s)],
  ['rgbcolor', (s) => RGBCOLOR.test(s)],
  ['byte', (s) => s.length % 4 === 0 && BASE64.test(s)],
  ['password', () => true],
  ['date', isDate],
  ['duration', (s) => GO_DURATION.test(s) || SCALA_DURATION.test(s)],
  ['datetime', (s) => DATETIME.test(s) && !Number.isNaN(Date.parse(s.replace(' ', 'T')))],
  ['quantity', (s) => QUANTITY.test(s)],
  ['k8sshortname', (s) => isDns1123Label(s).length === 0],
  ['k8slongname', (s) => isDns1123Subdomain(s).length === 0],
]);

/** The check of a format kube validates (by its normalized name), or undefined for formats it ignores. */
export function formatCheck(format: string): ((s: string) => boolean) | undefined {
  return CHECKS.get(format.replaceAll('-', ''));
}

/** The format kube keeps for validation on a schema of `type` (StripUnsupportedFormatsPostProcess), or ''. */
export function supportedFormat(type: string, format: string): string {
  if (format === '') return '';
  switch (type) {
    case '':
    case 'string':
      return CHECKS.has(format.replaceAll('-', '')) ? format : '';
    case 'integer':
      return format === 'int32' || format === 'int64' ? format : '';
    case 'number':
      return format === 'float' || format === 'double' ? format : '';
    default:
      return '';
  }
}
