import { notAcceptable } from '../server/errors.js';
import { ADVERTISED_TYPES, byPreference, encodingFor, parseMediaRanges, type Encoding, type MediaRange } from './media-type.js';

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
  metadataAs?: 'PartialObjectMetadata' | 'PartialObjectMetadataList';
  table: boolean;
}

const META_GROUP = 'meta.k8s.io';
const KNOWN_PARAMS = new Set(['as', 'g', 'v', 'pretty', 'charset', 'stream', 'includeobject']);

function viewFor(r: MediaRange, offer: ViewOffer): View | undefined | null {
  const as = r.params['as'];
  for (const p of Object.keys(r.params)) if (!KNOWN_PARAMS.has(p)) return null;
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
    const encoding = encodingFor(r);
    if (!encoding) continue;
    const view = viewFor(r, offer);
    if (!view) continue;
    return { encoding, view, contentType: encoding };
  }
  throw notAcceptable(ADVERTISED_TYPES);
}

/** Encoding for documents without views (errors, discovery, Status): JSON unless only YAML is acceptable. */
export function negotiatePlain(accept: string | undefined): Encoding {
  const ranges = byPreference(parseMediaRanges(accept));
  for (const r of ranges) {
    if (r.params['as']) continue;
    const enc = encodingFor(r);
    if (enc) return enc;
  }
  return 'application/json';
}
