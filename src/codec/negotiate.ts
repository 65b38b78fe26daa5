import { notAcceptable } from '../machinery/errors.js';
import { advertisedTypes, byPreference, CBOR_TYPE, encodingFor, parseMediaRanges, PROTOBUF_TYPE, type Encoding, type MediaRange } from './media-type.js';

/**
 * Chooses the response encoding and view for a request's Accept header, as
 * kube-apiserver's negotiation + transformResponseObject do: a media range may
 * ask for a view with `as`/`g`/`v` parameters (Table, PartialObjectMetadata);
 * the most preferred range the endpoint can serve wins; none is 406.
 */

export type View =
  | { kind: 'object' }
  | { kind: 'table'; version: 'v1' | 'v1beta1' }
  | { kind: 'metadata'; version: 'v1' | 'v1beta1' };

export interface Negotiated {
  encoding: Encoding;
  view: View;
  /** The media type to put in Content-Type. */
  contentType: string;
}

/** Which views an endpoint offers: kube allows `as=X` per endpoint kind. */
export interface ViewOffer {
  /** `as` value for metadata-only output: PartialObjectMetadata (get, watch) or PartialObjectMetadataList (list). */
  metadataAs?: 'PartialObjectMetadata' | 'PartialObjectMetadataList' | undefined;
  table: boolean;
  /** The kind has a protobuf message (built-in kinds; not custom resources). */
  protobuf?: boolean;
  /** CBOR is served (gate CBORServingAndStorage). */
  cbor?: boolean;
}

const META_GROUP = 'meta.k8s.io';

function viewFor(r: MediaRange, offer: ViewOffer): View | undefined | null {
  const as = r.params['as'];
  // acceptMediaTypeOptions: unrecognized parameters are ignored; a stream
  // other than watch, or a server version (sv), rules the range out.
  const stream = r.params['stream'];
  if (stream && stream !== 'watch') return null;
  if (r.params['sv']) return null;
  if (!as) return { kind: 'object' };
  const g = r.params['g'];
  const v = r.params['v'];
  if (g !== META_GROUP || (v !== 'v1' && v !== 'v1beta1')) return null;
  if (as === 'Table') return offer.table ? { kind: 'table', version: v } : null;
  if (offer.metadataAs && as === offer.metadataAs) return { kind: 'metadata', version: v };
  return null;
}

export function negotiate(accept: string | undefined, offer: ViewOffer): Negotiated {
  const ranges = byPreference(parseMediaRanges(accept));
  if (ranges.length === 0) return { encoding: 'application/json', view: { kind: 'object' }, contentType: 'application/json' };
  for (const r of ranges) {
    const encoding = encodingFor(r, offer.cbor);
    if (!encoding) continue;
    const view = viewFor(r, offer);
    if (!view) continue;
    // Tables have no protobuf form here; objects only when the kind has a message.
    if (encoding === PROTOBUF_TYPE && (view.kind === 'table' || (view.kind === 'object' && !offer.protobuf))) continue;
    // kube's AllowsMediaTypeTransform: Tables in JSON and YAML only.
    if (encoding === CBOR_TYPE && view.kind === 'table') continue;
    // `*/*` and `application/*` mean the default encoding, JSON.
    return { encoding, view, contentType: encoding };
  }
  throw notAcceptable(advertisedTypes(offer.cbor ?? false));
}

/** Encoding for documents without views (errors, discovery, Status): JSON unless only YAML is acceptable. */
export function negotiatePlain(accept: string | undefined, cbor = false): Encoding {
  const ranges = byPreference(parseMediaRanges(accept));
  for (const r of ranges) {
    if (r.params['as']) continue;
    const enc = encodingFor(r, cbor);
    if (enc) return enc;
  }
  return 'application/json';
}
