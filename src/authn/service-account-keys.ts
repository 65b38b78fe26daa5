import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, X509Certificate, type KeyObject } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The service account signing and verification keys (kube's
 * --service-account-signing-key-file and --service-account-key-file): PEM
 * RSA or ECDSA keys, private or public (a certificate gives its public key);
 * the key id is what kube derives, the SHA-256 of the public key's DER
 * (PKIX) in base64url, so tokens and JWKS agree with kube's for the same key.
 */

export type SigningAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512';

export interface VerificationKey {
  kid: string;
  alg: SigningAlgorithm;
  key: KeyObject;
}

export interface SigningKey extends VerificationKey {
  privateKey: KeyObject;
}

export interface ServiceAccountKeys {
  signing: SigningKey;
  verifying: VerificationKey[];
}

/** Every key in a PEM text (private or public, RSA or EC), as public/private KeyObjects. */
export function keysFromPem(text: string, source: string): KeyObject[] {
  const keys: KeyObject[] = [];
  for (const m of text.matchAll(/-----BEGIN ([A-Z ]+)-----[\s\S]*?-----END \1-----/g)) {
    const block = m[0];
    const type = m[1]!;
    if (type === 'CERTIFICATE') keys.push(new X509Certificate(block).publicKey);
    else if (type.endsWith('PRIVATE KEY')) keys.push(createPrivateKey(block));
    else if (type.endsWith('PUBLIC KEY')) keys.push(createPublicKey(block));
  }
  for (const k of keys) algorithmOf(k, source);
  return keys;
}

export function algorithmOf(key: KeyObject, source = 'key'): SigningAlgorithm {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
    throw new Error(`${source}: unknown private key curve, must be 256, 384, or 521`);
  }
  throw new Error(`${source}: data does not contain any valid RSA or ECDSA public keys`);
}

export function verificationKey(key: KeyObject): VerificationKey {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  const der = pub.export({ type: 'spki', format: 'der' });
  return { kid: createHash('sha256').update(der).digest('base64url'), alg: algorithmOf(pub), key: pub };
}

function readKeys(path: string, flag: string): KeyObject[] {
  let keys: KeyObject[];
  try {
    keys = keysFromPem(readFileSync(path, 'utf8'), path);
  } catch (err) {
    throw new Error(`failed to parse ${flag}: ${(err as Error).message}`);
  }
  if (keys.length === 0) throw new Error(`failed to parse ${flag}: data does not contain any valid RSA or ECDSA public keys`);
  return keys;
}

/**
 * The signing key from --service-account-signing-key-file, else the one
 * generated on first start into `dir` (sa.key, as kubeadm names it), else
 * one in memory; verification keys from --service-account-key-file, else
 * the signing key's public half.
 */
export function loadServiceAccountKeys(opts: { signingKeyFile?: string | undefined; keyFiles: readonly string[]; dir?: string | undefined }): ServiceAccountKeys {
  let privateKey: KeyObject;
  if (opts.signingKeyFile) {
    const found = readKeys(opts.signingKeyFile, 'service-account-signing-key-file').find((k) => k.type === 'private');
    if (!found) throw new Error('failed to parse service-account-signing-key-file: no private key found');
    privateKey = found;
  } else if (opts.dir !== undefined) {
    const path = join(opts.dir, 'sa.key');
    if (!existsSync(path)) {
      mkdirSync(opts.dir, { recursive: true });
      // Written aside, then linked into place (which fails if another process got there first):
      // processes sharing a cert dir that start together all read the same, complete key.
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, generatePem(), { mode: 0o600 });
      try {
        linkSync(tmp, path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      } finally {
        unlinkSync(tmp);
      }
    }
    privateKey = createPrivateKey(readFileSync(path, 'utf8'));
  } else {
    // Kept in memory only (embedders, capstan/testing): an ECDSA P-256 key takes about a millisecond to make, an RSA 2048 one hundreds.
    privateKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  }
  const signing: SigningKey = { ...verificationKey(privateKey), privateKey };
  const verifying = opts.keyFiles.length > 0 ? opts.keyFiles.flatMap((f) => readKeys(f, 'service-account-key-file')).map(verificationKey) : [verificationKey(privateKey)];
  return { signing, verifying };
}

function generatePem(): string {
  return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
}

/** A public key as go-jose writes it in a JWKS (field order included). */
export function publicJwk(k: VerificationKey): Record<string, string> {
  const jwk = k.key.export({ format: 'jwk' }) as Record<string, string>;
  const out: Record<string, string> = { use: 'sig', kty: jwk.kty!, kid: k.kid };
  if (jwk.crv) out.crv = jwk.crv;
  out.alg = k.alg;
  for (const f of ['x', 'y', 'n', 'e']) if (jwk[f] !== undefined) out[f] = jwk[f]!;
  return out;
}
