import type { CachedObject } from '../cached-object.js';
import { sharedEventFrame, type ServedType } from '../cached-encoding.js';
import { cborHead, encodeCborItem, SELF_DESCRIBED_CBOR } from './encode.js';
import { goShapedObject } from '../go-json.js';

/**
 * CBOR bytes of cached objects, made once per object version and served
 * version like the JSON ones (cached-encoding.ts): a list is its items'
 * cached bytes behind one head, a watch event to many watchers one encoding.
 */

/** The served object with the fields Go's struct writes (as the JSON encodings carry them). */
function goShaped(served: ServedType, obj: Parameters<ServedType['toServed']>[0]): Record<string, unknown> {
  const object = served.toServed(obj);
  return goShapedObject(object, { apiVersion: served.apiVersion, kind: served.kind }) ?? object;
}

/** A list item: the served object without apiVersion/kind, untagged (it sits inside the list's item). */
export function cborItemBytes(cached: CachedObject, served: ServedType): Buffer {
  return cached.encoded(`cbor-item:${served.apiVersion}`, (obj) => {
    const { apiVersion: _a, kind: _k, ...rest } = goShaped(served, obj);
    return encodeCborItem(rest);
  });
}

/** A whole object, self-described: kind and apiVersion first, as the JSON form. */
export function cborObjectBytes(cached: CachedObject, served: ServedType): Buffer {
  return cached.encoded(`cbor-object:${served.apiVersion}`, () => makeCborObject(cached, served));
}

function makeCborObject(cached: CachedObject, served: ServedType): Buffer {
  const { apiVersion: _a, kind: _k, ...rest } = goShaped(served, cached.object);
  return Buffer.concat([SELF_DESCRIBED_CBOR, encodeCborItem({ kind: served.kind, apiVersion: served.apiVersion, ...rest })]);
}

/** `{kind, apiVersion, metadata, items: [...]}` from cached items, as the parts to write. */
export function cborListParts(listKind: string, apiVersion: string, listMeta: Record<string, unknown>, items: Buffer[]): Buffer[] {
  const head = Buffer.concat([
    SELF_DESCRIBED_CBOR,
    cborHead('map', 4),
    encodeCborItem('kind'),
    encodeCborItem(listKind),
    encodeCborItem('apiVersion'),
    encodeCborItem(apiVersion),
    encodeCborItem('metadata'),
    encodeCborItem(listMeta),
    encodeCborItem('items'),
    cborHead('array', items.length),
  ]);
  return [head, ...items];
}

const eventPrefixes = new Map<string, Buffer>();

/**
 * One event of an application/cbor-seq watch: a self-described map
 * `{type, object}` whose object is the cached self-described object, as
 * kube's WatchEvent with a CBOR RawExtension is written.
 */
export function cborWatchEventParts(type: string, object: Buffer): Buffer[] {
  return [cborEventPrefix(type), object];
}

function cborEventPrefix(type: string): Buffer {
  let prefix = eventPrefixes.get(type);
  if (!prefix) {
    prefix = Buffer.concat([SELF_DESCRIBED_CBOR, cborHead('map', 2), encodeCborItem('type'), encodeCborItem(type), encodeCborItem('object')]);
    eventPrefixes.set(type, prefix);
  }
  return prefix;
}

/** A live event's frame, shared by every watcher (cached-encoding.ts's sharedEventFrame). */
export function cborWatchEventFrame(type: string, cached: CachedObject, served: ServedType): string | Buffer {
  return sharedEventFrame(cached, `cbor-event:${type}:${served.apiVersion}`, () => [cborEventPrefix(type), cached.encodedIfMade(`cbor-object:${served.apiVersion}`) ?? makeCborObject(cached, served)]);
}

/** An event whose object is not cached (views, bookmarks, errors). */
export function cborWatchEvent(type: string, object: unknown): Buffer {
  const encoded = Buffer.concat([SELF_DESCRIBED_CBOR, encodeCborItem(object)]);
  return Buffer.concat(cborWatchEventParts(type, encoded));
}
