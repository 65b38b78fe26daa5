/**
 * The field manager name of a write that names none (apiserver handlers'
 * managerOrUserAgent / prefixFromUserAgent): the User-Agent up to its first
 * "/", non-printable characters dropped, cut at 128 bytes.
 * "kubectl/v1.36.0 (linux/amd64) kubernetes/abc" → "kubectl".
 */

/** validation.FieldManagerMaxLength. */
export const FIELD_MANAGER_MAX_LENGTH = 128;

/** unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

export function prefixFromUserAgent(userAgent: string): string {
  const head = userAgent.split('/')[0] ?? '';
  let out = '';
  let bytes = 0;
  for (const ch of head) {
    if (!PRINTABLE.test(ch)) continue;
    const n = Buffer.byteLength(ch, 'utf8');
    if (bytes + n > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += n;
  }
  return out;
}

/** The fieldManager parameter when given, else the User-Agent prefix. */
export function managerOrUserAgent(fieldManager: string | undefined, userAgent: string | undefined): string {
  if (fieldManager !== undefined && fieldManager !== '') return fieldManager;
  return prefixFromUserAgent(userAgent ?? '');
}
