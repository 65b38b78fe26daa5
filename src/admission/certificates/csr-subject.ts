import { firstPemBlock } from '../../machinery/pem.js';

/**
 * The subject of a PKCS#10 certificate request, as kube's
 * certificates.ParseCSR and Go's x509.ParseCertificateRequest read it: the
 * first PEM block must be a CERTIFICATE REQUEST; its DER is walked only as
 * far as the subject (CertificationRequest → CertificationRequestInfo →
 * version, subject Name). Throws an Error with the text kube would put after
 * "failed to parse CSR: ".
 */

const ORGANIZATION_OID = '2.5.4.10';

/** One attribute of the subject whose value is a string (pkix.Name keeps no other). */
export interface SubjectAttribute {
  oid: string;
  value: string;
}

/** The subject's string attributes, in order. */
export function csrSubjectAttributes(request: Uint8Array): SubjectAttribute[] {
  const der = pemBlock(Buffer.from(request).toString('latin1'), 'CERTIFICATE REQUEST');
  const top = readTlv(der, 0, der.length, SEQUENCE);
  if (top.next !== der.length) throw new Error('asn1: syntax error: trailing data');
  const info = readTlv(der, top.start, top.end, SEQUENCE);
  const version = readTlv(der, info.start, info.end, INTEGER);
  const subject = readTlv(der, version.next, info.end, SEQUENCE);
  const out: SubjectAttribute[] = [];
  for (let rdnPos = subject.start; rdnPos < subject.end; ) {
    const rdn = readTlv(der, rdnPos, subject.end, SET);
    for (let atvPos = rdn.start; atvPos < rdn.end; ) {
      const atv = readTlv(der, atvPos, rdn.end, SEQUENCE);
      const oid = readTlv(der, atv.start, atv.end, OBJECT_IDENTIFIER);
      const value = readTlv(der, oid.next, atv.end);
      const text = decodeString(der, value);
      if (text !== undefined) out.push({ oid: oidText(der.subarray(oid.start, oid.end)), value: text });
      atvPos = atv.next;
    }
    rdnPos = rdn.next;
  }
  return out;
}

/** The subject's organizations (O). */
export function csrOrganizations(request: Uint8Array): string[] {
  return csrSubjectAttributes(request)
    .filter((a) => a.oid === ORGANIZATION_OID)
    .map((a) => a.value);
}

/** encoding/pem Decode's first block, required to be of `type`. */
function pemBlock(text: string, type: string): Buffer {
  const block = firstPemBlock(text);
  if (!block || block.type !== type) throw new Error(`PEM block type must be ${type}`);
  return block.bytes;
}

const INTEGER = 0x02;
const OBJECT_IDENTIFIER = 0x06;
const SEQUENCE = 0x30;
const SET = 0x31;

interface Tlv {
  tag: number;
  /** Contents: [start, end). */
  start: number;
  end: number;
  /** The first byte after this element. */
  next: number;
}

function readTlv(der: Uint8Array, pos: number, limit: number, expected?: number): Tlv {
  if (pos + 2 > limit) throw new Error('asn1: syntax error: data truncated');
  const tag = der[pos]!;
  let len = der[pos + 1]!;
  let start = pos + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || start + n > limit) throw new Error('asn1: syntax error: data truncated');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[start + i]!;
    start += n;
  }
  const end = start + len;
  if (end > limit) throw new Error('asn1: syntax error: data truncated');
  if (expected !== undefined && tag !== expected) throw new Error('asn1: structure error: tags don\'t match');
  return { tag, start, end, next: end };
}

function decodeString(der: Uint8Array, v: Tlv): string | undefined {
  const bytes = Buffer.from(der.subarray(v.start, v.end));
  switch (v.tag) {
    case 0x0c: // UTF8String
      return bytes.toString('utf8');
    case 0x13: // PrintableString
    case 0x14: // T61String
    case 0x16: // IA5String
      return bytes.toString('latin1');
    case 0x1e: // BMPString
      return bytes.length % 2 ? undefined : bytes.swap16().toString('utf16le');
    default:
      return undefined;
  }
}

function oidText(bytes: Uint8Array): string {
  if (bytes.length === 0) return '';
  const parts: number[] = [];
  let v = 0;
  for (const b of bytes) {
    v = v * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      parts.push(v);
      v = 0;
    }
  }
  const first = parts.shift()!;
  const head = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  return [...head, ...parts].join('.');
}
