import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { loadAll } from 'js-yaml';
import type { ApiCatalog } from '../api/catalog.js';
import type { ApiClient, ObjectRef } from '../machinery/client.js';
import type { KubeObject } from '../machinery/object.js';

/**
 * Manifests a test hands capstan/testing: objects, YAML or JSON files, or
 * directories of them (read in name order, recursively), and multi-document
 * YAML text; `List` documents are unpacked, as kubectl does.
 */
export type ManifestSource = KubeObject | string;

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/** The objects of a multi-document YAML (or JSON) text; empty documents are skipped. */
export function parseManifests(text: string, origin = 'manifest'): KubeObject[] {
  const out: KubeObject[] = [];
  for (const doc of loadAll(text)) {
    if (doc === null || doc === undefined) continue;
    if (typeof doc !== 'object' || Array.isArray(doc)) throw new Error(`${origin}: a document is not an object`);
    const obj = doc as KubeObject & { items?: unknown };
    if (typeof obj.kind === 'string' && obj.kind.endsWith('List') && Array.isArray(obj.items)) out.push(...(obj.items as KubeObject[]));
    else out.push(obj);
  }
  return out;
}

/** The objects a source names: a file or directory path, or the object itself. */
export function readManifests(source: ManifestSource): KubeObject[] {
  if (typeof source !== 'string') return [source];
  if (statSync(source).isDirectory()) {
    return readdirSync(source)
      .sort()
      .flatMap((name) => {
        const path = join(source, name);
        return statSync(path).isDirectory() || MANIFEST_EXTENSIONS.has(extname(name)) ? readManifests(path) : [];
      });
  }
  return parseManifests(readFileSync(source, 'utf8'), source);
}

/** Where an object lives in the API, from its apiVersion and kind; throws when the server does not serve the kind. */
export function objectRef(catalog: ApiCatalog, obj: KubeObject, defaultNamespace = 'default'): ObjectRef {
  const apiVersion = obj.apiVersion ?? '';
  const [group, version] = apiVersion.includes('/') ? (apiVersion.split('/', 2) as [string, string]) : ['', apiVersion];
  const info = catalog.resourceForKind(group, version, obj.kind ?? '');
  if (!info) throw new Error(`the server does not serve kind "${obj.kind ?? ''}" in "${apiVersion}"`);
  const name = obj.metadata?.name;
  if (!name) throw new Error(`${obj.kind ?? ''} has no metadata.name`);
  return { group, version, resource: info.name, name, ...(info.namespaced ? { namespace: obj.metadata?.namespace ?? defaultNamespace } : {}) };
}

/** Server-side apply of each object in turn (forced: the test's manager owns what it sets). */
export async function applyObjects(client: ApiClient, catalog: ApiCatalog, objects: readonly KubeObject[], fieldManager: string, defaultNamespace?: string): Promise<KubeObject[]> {
  const applied: KubeObject[] = [];
  for (const obj of objects) applied.push(await client.patch(objectRef(catalog, obj, defaultNamespace), 'apply', obj, { fieldManager, force: true }));
  return applied;
}
