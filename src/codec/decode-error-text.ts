import { strconvQuote } from '../machinery/go-compat.js';

/**
 * kube's transformDecodeError texts (apiserver/pkg/endpoints/handlers/rest.go),
 * the 400 of a create or update whose body the decoder refused:
 * - the decoder read no kind: the body is "unrecognized", quoted by
 *   summarizeData(body, 30), the one place kube-apiserver truncates what it
 *   echoes of a request: its first 30 bytes, as text when it starts with
 *   '{', else in hex, with " ..." when there was more;
 * - it read a kind: that kind and version "cannot be handled" as the endpoint's.
 */
const SUMMARY_BYTES = 30;

export function summarizeBody(body: Buffer): string {
  if (body.length === 0) return '<empty>';
  const head = body.length > SUMMARY_BYTES ? body.subarray(0, SUMMARY_BYTES) : body;
  const text = body[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return body.length > SUMMARY_BYTES ? `${text} ...` : text;
}

export function unrecognizedObjectMessage(kind: string, cause: string, body: Buffer): string {
  return `the object provided is unrecognized (must be of type ${kind}): ${cause} (${summarizeBody(body)})`;
}

export function cannotBeHandledMessage(bodyKind: string, bodyVersion: string, endpointKind: string, cause: string): string {
  return `${bodyKind} in version ${strconvQuote(bodyVersion)} cannot be handled as a ${endpointKind}: ${cause}`;
}
