/**
 * The generated schema definitions (src/api/generated/definitions.json),
 * parsed on first use and shared by everything that needs schemas: the
 * OpenAPI documents, strategic merge patch, validation.
 */
import type { DefinitionsFile } from './definitions-types.js';
import { readGeneratedJson } from './files.js';
import type { JsonObject } from '../machinery/json.js';

export type { DefinitionsFile, SubresourceTemplate } from './definitions-types.js';

let cached: DefinitionsFile | undefined;

/** The parsed definitions file (about 1.3 MB of JSON; ~15 ms to parse). Treat it as read-only. */
export function loadDefinitions(): DefinitionsFile {
  cached ??= readGeneratedJson<DefinitionsFile>('definitions.json');
  return cached;
}

/** One OpenAPI v2 definition by name, e.g. `io.k8s.api.apps.v1.Deployment`. */
export function definition(name: string): JsonObject | undefined {
  return loadDefinitions().definitions[name];
}
