import { apiLifecycle, deprecationWarning, isDeprecated, removedRelease, type Release } from './api-lifecycle.js';

/**
 * Requests to deprecated API versions, as kube-apiserver tracks them
 * (endpoints/metrics MonitorRequest): the `apiserver_requested_deprecated_apis`
 * gauge is 1 for every group/version/resource/subresource/removed_release
 * that was requested since the server started, and never goes back to 0.
 */

export interface DeprecatedApiRequest {
  group: string;
  version: string;
  resource: string;
  subresource: string;
  /** `<major>.<minor>`; empty for custom resources and alpha types. */
  removedRelease: string;
}

/** What a request to a deprecated built-in type is answered with. */
export interface BuiltinDeprecation {
  warning: string;
  removedRelease: string;
}

export class DeprecatedApiRequests {
  private readonly requested = new Map<string, DeprecatedApiRequest>();

  /** `current`: the server's own release (IsDeprecated compares with it). */
  constructor(private readonly current: Release) {}

  /** The deprecation of a built-in group/version/kind at the server's release; undefined when it is not deprecated. */
  builtin(group: string, version: string, kind: string): BuiltinDeprecation | undefined {
    const lifecycle = apiLifecycle({ group, version, kind });
    if (!isDeprecated(lifecycle, this.current)) return undefined;
    return { warning: deprecationWarning({ group, version, kind }, lifecycle), removedRelease: removedRelease(lifecycle) };
  }

  record(request: DeprecatedApiRequest): void {
    const key = [request.group, request.version, request.resource, request.subresource, request.removedRelease].join('\0');
    if (!this.requested.has(key)) this.requested.set(key, { ...request });
  }

  all(): DeprecatedApiRequest[] {
    return [...this.requested.values()];
  }
}
