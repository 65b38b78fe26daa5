/**
 * Parses a request path the way kube-apiserver's RequestInfoFactory does:
 * `/api/v1/namespaces/ns/pods/name/status` → {group '', version v1,
 * namespace ns, resource pods, name, subresource status, verb}. Everything
 * outside /api and /apis (and their discovery roots) is a non-resource request.
 */

export type RequestVerb =
  | 'get'
  | 'list'
  | 'watch'
  | 'create'
  | 'update'
  | 'patch'
  | 'delete'
  | 'deletecollection'
  | 'connect';

export interface ResourceRequestInfo {
  isResourceRequest: true;
  path: string;
  apiPrefix: 'api' | 'apis';
  group: string;
  version: string;
  namespace: string;
  resource: string;
  name: string;
  subresource: string;
  /** Path segments after the subresource (e.g. proxy paths). */
  rest: string[];
  verb: RequestVerb;
  /** True when the legacy `/watch/` path segment was used. */
  legacyWatchPath: boolean;
}

export interface NonResourceRequestInfo {
  isResourceRequest: false;
  path: string;
  /** Lower-case HTTP method, as kube's authorizer sees non-resource requests. */
  verb: string;
}

export type RequestInfo = ResourceRequestInfo | NonResourceRequestInfo;

/** Splits a path into decoded segments, dropping empty ones; undefined on malformed escapes. */
export function splitPath(path: string): string[] | undefined {
  const out: string[] = [];
  for (const raw of path.split('/')) {
    if (raw === '') continue;
    try {
      out.push(decodeURIComponent(raw));
    } catch {
      return undefined;
    }
  }
  return out;
}

function isTruthyWatch(value: string | null): boolean {
  if (value === null) return false;
  // As RequestInfoFactory (and Convert_Slice_string_To_bool): any value but
  // "0" or "false" (any case) is true, even an empty one.
  const v = value.toLowerCase();
  return v !== '0' && v !== 'false';
}

export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const nonResource: NonResourceRequestInfo = { isResourceRequest: false, path, verb: method.toLowerCase() };
  const parts = splitPath(path);
  if (!parts || parts.length === 0) return nonResource;
  const prefix = parts[0];
  if (prefix !== 'api' && prefix !== 'apis') return nonResource;

  let i = 1;
  let group = '';
  if (prefix === 'apis') {
    if (parts.length < 3) return nonResource; // /apis, /apis/<group>: discovery
    group = parts[i++]!;
  } else if (parts.length < 2) {
    return nonResource; // /api
  }
  const version = parts[i++]!;
  if (i >= parts.length) return nonResource; // /api/v1, /apis/g/v: discovery

  const info: ResourceRequestInfo = {
    isResourceRequest: true,
    path,
    apiPrefix: prefix,
    group,
    version,
    namespace: '',
    resource: '',
    name: '',
    subresource: '',
    rest: [],
    verb: 'get',
    legacyWatchPath: false,
  };

  let rest = parts.slice(i);
  let verbFromPath: RequestVerb | undefined;
  if (rest[0] === 'watch') {
    verbFromPath = 'watch';
    info.legacyWatchPath = true;
    rest = rest.slice(1);
  }

  if (rest[0] === 'namespaces') {
    if (rest.length > 1) {
      info.namespace = rest[1]!;
      // /namespaces/<ns> and /namespaces/<ns>/<subresource of namespace> address
      // the namespace object itself; anything longer is a namespaced resource.
      if (rest.length > 2 && !['status', 'finalize'].includes(rest[2]!)) {
        rest = rest.slice(2);
      } else {
        info.resource = 'namespaces';
        info.name = rest[1]!;
        info.subresource = rest[2] ?? '';
        info.namespace = '';
        rest = [];
      }
    } else {
      info.resource = 'namespaces';
      rest = [];
    }
  }
  if (!info.resource) {
    info.resource = rest[0] ?? '';
    info.name = rest[1] ?? '';
    info.subresource = rest[2] ?? '';
    info.rest = rest.slice(3);
  }

  const m = method.toUpperCase();
  const isWatch = verbFromPath === 'watch' || isTruthyWatch(query.get('watch'));
  switch (m) {
    case 'GET':
    case 'HEAD':
      info.verb = isWatch ? 'watch' : info.name ? 'get' : 'list';
      break;
    case 'POST':
      info.verb = 'create';
      break;
    case 'PUT':
      info.verb = 'update';
      break;
    case 'PATCH':
      info.verb = 'patch';
      break;
    case 'DELETE':
      info.verb = info.name ? 'delete' : 'deletecollection';
      break;
    default:
      info.verb = 'connect';
  }
  if (info.name && isWatch && (m === 'GET' || m === 'HEAD')) info.verb = 'watch';
  return info;
}
