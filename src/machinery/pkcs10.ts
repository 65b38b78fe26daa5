import { createPublicKey, verify, constants, type KeyObject } from 'node:crypto';

import { firstPemBlock } from './pem.js';

/**
 * A PKCS#10 certificate request as kube's certificates.ParseCSR and Go's
 * x509 read it: the first PEM block must be a CERTIFICATE REQUEST; its DER
 * (CertificationRequest → CertificationRequestInfo → version, subject Name,
 * SubjectPublicKeyInfo) is walked as far as the subject and the
 * self-signature need. Errors carry Go's text.
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

/**
 * kube's validateCSR (pkg/apis/certificates/validation): the error text when
 * `request` is not a PEM CERTIFICATE REQUEST whose self-signature verifies
 * (x509.CertificateRequest.CheckSignature, SHA-1 allowed), else undefined.
 * Synchronous (node:crypto), so the registry can run it inside validation.
 */
export function certificateRequestError(request: Uint8Array): string | undefined {
  let signed: SignedRequest;
  try {
    signed = signedRequest(pemBlock(Buffer.from(request).toString('latin1'), 'CERTIFICATE REQUEST'));
  } catch (err) {
    return (err as Error).message;
  }
  return signatureError(signed);
}

interface SignedRequest {
  /** The DER of CertificationRequestInfo, what the signature covers. */
  tbs: Buffer;
  spki: Buffer;
  algorithm: string;
  /** The hash OID of RSASSA-PSS parameters. */
  pssHash: string | undefined;
  signature: Buffer;
}

function signedRequest(der: Buffer): SignedRequest {
  const top = readTlv(der, 0, der.length, SEQUENCE);
  if (top.next !== der.length) throw new Error('asn1: syntax error: trailing data');
  const info = readTlv(der, top.start, top.end, SEQUENCE);
  const version = readTlv(der, info.start, info.end, INTEGER);
  const subject = readTlv(der, version.next, info.end, SEQUENCE);
  const spki = readTlv(der, subject.next, info.end, SEQUENCE);
  const algId = readTlv(der, info.next, top.end, SEQUENCE);
  const algOid = readTlv(der, algId.start, algId.end, OBJECT_IDENTIFIER);
  const sig = readTlv(der, algId.next, top.end, BIT_STRING);
  if (sig.end === sig.start) throw new Error('asn1: syntax error: zero length BIT STRING');
  const algorithm = oidText(der.subarray(algOid.start, algOid.end));
  return {
    tbs: der.subarray(top.start, info.next),
    spki: der.subarray(subject.next, spki.next),
    algorithm,
    pssHash: algorithm === RSA_PSS ? pssHashOid(der, algOid.next, algId.end) : undefined,
    signature: der.subarray(sig.start + 1, sig.end),
  };
}

const RSA_PSS = '1.2.840.113549.1.1.10';
const SHA256 = '2.16.840.1.101.3.4.2.1';

/** RSASSA-PSS-params' hashAlgorithm ([0] EXPLICIT AlgorithmIdentifier; SHA-1 when absent). */
function pssHashOid(der: Buffer, pos: number, end: number): string | undefined {
  if (pos >= end) return undefined;
  const params = readTlv(der, pos, end, SEQUENCE);
  if (params.start >= params.end || der[params.start] !== 0xa0) return '1.3.14.3.2.26';
  const tagged = readTlv(der, params.start, params.end);
  const alg = readTlv(der, tagged.start, tagged.end, SEQUENCE);
  const oid = readTlv(der, alg.start, alg.end, OBJECT_IDENTIFIER);
  return oidText(der.subarray(oid.start, oid.end));
}

type KeyFamily = 'rsa' | 'ec' | 'ed25519';

/** Go's signature algorithms by OID: the key family they need and the digest node verifies with (null: the key decides). */
const SIGNATURE_ALGORITHMS: Record<string, { family: KeyFamily; hash: string | null }> = {
  '1.2.840.113549.1.1.5': { family: 'rsa', hash: 'sha1' },
  '1.2.840.113549.1.1.11': { family: 'rsa', hash: 'sha256' },
  '1.2.840.113549.1.1.12': { family: 'rsa', hash: 'sha384' },
  '1.2.840.113549.1.1.13': { family: 'rsa', hash: 'sha512' },
  [RSA_PSS]: { family: 'rsa', hash: null },
  '1.2.840.10045.4.1': { family: 'ec', hash: 'sha1' },
  '1.2.840.10045.4.3.2': { family: 'ec', hash: 'sha256' },
  '1.2.840.10045.4.3.3': { family: 'ec', hash: 'sha384' },
  '1.2.840.10045.4.3.4': { family: 'ec', hash: 'sha512' },
  '1.3.101.112': { family: 'ed25519', hash: null },
};

/** x509's insecure algorithms (InsecureAlgorithmError), refused before any verification. */
const INSECURE_ALGORITHMS: Record<string, string> = {
  '1.2.840.113549.1.1.2': 'MD2-RSA',
  '1.2.840.113549.1.1.4': 'MD5-RSA',
};

const PSS_HASHES: Record<string, string> = { [SHA256]: 'sha256', '2.16.840.1.101.3.4.2.2': 'sha384', '2.16.840.1.101.3.4.2.3': 'sha512' };

/** Go's public key type names in x509's algorithm-mismatch error. */
const GO_KEY_TYPES: Record<KeyFamily, string> = { rsa: '*rsa.PublicKey', ec: '*ecdsa.PublicKey', ed25519: 'ed25519.PublicKey' };
const GO_FAMILY_NAMES: Record<KeyFamily, string> = { rsa: 'RSA', ec: 'ECDSA', ed25519: 'Ed25519' };

/** x509's checkSignature, with Go's error texts. */
function signatureError(req: SignedRequest): string | undefined {
  const insecure = INSECURE_ALGORITHMS[req.algorithm];
  if (insecure) return `x509: cannot verify signature: insecure algorithm ${insecure}`;
  const alg = SIGNATURE_ALGORITHMS[req.algorithm];
  const pssHash = req.pssHash === undefined ? undefined : PSS_HASHES[req.pssHash];
  if (!alg || (req.algorithm === RSA_PSS && !pssHash)) return 'x509: cannot verify signature: algorithm unimplemented';
  let key: KeyObject;
  try {
    key = createPublicKey({ key: req.spki, format: 'der', type: 'spki' });
  } catch {
    return 'x509: cannot verify signature: algorithm unimplemented';
  }
  const family = keyFamily(key);
  if (family !== alg.family) {
    return `x509: signature algorithm specifies an ${GO_FAMILY_NAMES[alg.family]} public key, but have public key of type ${family ? GO_KEY_TYPES[family] : 'x509.PublicKey'}`;
  }
  let ok = false;
  try {
    if (pssHash) ok = verify(pssHash, req.tbs, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }, req.signature);
    else if (family === 'ec') ok = verify(alg.hash, req.tbs, { key, dsaEncoding: 'der' }, req.signature);
    else ok = verify(alg.hash, req.tbs, key, req.signature);
  } catch {
    ok = false;
  }
  if (ok) return undefined;
  return family === 'rsa' ? 'crypto/rsa: verification error' : family === 'ec' ? 'x509: ECDSA verification failure' : 'x509: Ed25519 verification failure';
}

function keyFamily(key: KeyObject): KeyFamily | undefined {
  const type = key.asymmetricKeyType;
  return type === 'rsa' ? 'rsa' : type === 'ec' ? 'ec' : type === 'ed25519' ? 'ed25519' : undefined;
}

/** encoding/pem Decode's first block, required to be of `type`. */
function pemBlock(text: string, type: string): Buffer {
  const block = firstPemBlock(text);
  if (!block || block.type !== type) throw new Error(`PEM block type must be ${type}`);
  return block.bytes;
}

const INTEGER = 0x02;
const BIT_STRING = 0x03;
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
