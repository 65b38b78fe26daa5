/**
 * kube's summarizeData(body, 30) (apiserver/pkg/endpoints/handlers/rest.go),
 * the one place kube-apiserver truncates what it echoes of a request: a body
 * whose kind could not be read is quoted in its 400 by its first 30 bytes,
 * as text when it starts with '{', else in hex, with " ..." when there was more.
 */
const SUMMARY_BYTES = 30;

export function summarizeBody(body: Buffer): string {
  if (body.length === 0) return '<empty>';
  const head = body.length > SUMMARY_BYTES ? body.subarray(0, SUMMARY_BYTES) : body;
  const text = body[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return body.length > SUMMARY_BYTES ? `${text} ...` : text;
}

/** transformDecodeError for a body whose group/version/kind the decoder could not read. */
export function unrecognizedObjectMessage(kind: string, cause: string, body: Buffer): string {
  return `the object provided is unrecognized (must be of type ${kind}): ${cause} (${summarizeBody(body)})`;
}
