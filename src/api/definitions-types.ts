import type { JsonObject } from '../machinery/json.js';

/**
 * Shape of src/api/generated/definitions.json: the schema half of the
 * upstream OpenAPI document plus the few per-operation facts that cannot be
 * derived from the catalog (parameter texts, connect/log option parameters).
 * The OpenAPI builders combine it with the catalog to produce /openapi/v2 and
 * /openapi/v3 for whatever is enabled.
 */
export interface DefinitionsFile {
  source: string;
  kubernetesMinor: string;
  /** Swagger 2.0 schema definitions by name, e.g. `io.k8s.api.apps.v1.Deployment`. */
  definitions: Record<string, JsonObject>;
  /**
   * kube-apiserver's table of deduplicated parameters (`#/parameters/<name>`).
   * Kept with upstream's names so that our /openapi/v2 refers to the same names.
   */
  sharedParameters: Record<string, JsonObject>;
  /** Inline parameter objects by logical name (`pretty`, `dryRun`, `body:delete`, ...). */
  parameters: Record<string, JsonObject>;
  /** Extra facts for log and connect subresources, keyed `group/version/resource/subresource`. */
  subresourceTemplates: Record<string, SubresourceTemplate>;
  /** Path items outside any group-version (`/version/`, `/logs/`, `/.well-known/openid-configuration/`, ...). */
  nonResourcePaths: Record<string, JsonObject>;
  securityDefinitions: JsonObject;
  security: JsonObject[];
}

export interface SubresourceTemplate {
  /** Query parameters specific to the subresource (connect or log options), sorted by name. */
  queryParameters: JsonObject[];
  /** Whether the operations take the `pretty` parameter (log does, connect does not). */
  pretty: boolean;
  /** Whether a `/{path}` variant exists (proxy). */
  withPath: boolean;
  /** Media types produced, when they differ from the standard object types. */
  produces?: string[];
  /** Response schema when it is not the subresource's kind (`{type: string}` for log and connect). */
  responseSchema?: JsonObject;
}
