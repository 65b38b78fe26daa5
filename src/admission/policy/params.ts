import type { ApiCatalog } from '../../api/catalog.js';
import type { ResourceInfo } from '../../api/types.js';
import { labelSelectorMatches } from '../../machinery/selectors.js';
import { parseApiVersion, type KubeObject } from '../../machinery/object.js';
import { cachedLookup } from '../../registry/object-lookup.js';
import type { Registry } from '../../registry/registry.js';
import type { ParamKind, ParamRef } from './types.js';

/**
 * A policy's params (kube's generic.CollectParams): the objects of its
 * paramKind, any served kind including custom resources, that a binding's
 * paramRef names or selects, read through the kind's watch cache.
 */

/** Go's GroupVersionKind.String(). */
export function gvkString(kind: ParamKind): string {
  const { group, version } = parseApiVersion(kind.apiVersion ?? '');
  return `${group}/${version}, Kind=${kind.kind ?? ''}`;
}

/** A configuration error: the policy or binding cannot be evaluated (kube's addConfigError). */
export class ConfigurationError extends Error {}

export class ParamSource {
  constructor(private readonly registry: Registry, private readonly catalog: ApiCatalog) {}

  /** The served resource of a paramKind; a ConfigurationError with kube's text when there is none. */
  resourceFor(kind: ParamKind): ResourceInfo {
    const { group, version } = parseApiVersion(kind.apiVersion ?? '');
    const info = this.catalog.resourceForKind(group, version, kind.kind ?? '');
    if (!info) throw new ConfigurationError(`failed to find resource referenced by paramKind: '${gvkString(kind)}'`);
    return info;
  }

  /**
   * The params to evaluate a binding with: [undefined] when the policy has
   * no paramKind or the binding no paramRef; [] when none is found and the
   * binding allows that.
   */
  async collect(paramKind: ParamKind | undefined, paramRef: ParamRef | undefined, requestNamespace: string): Promise<(KubeObject | undefined)[]> {
    if (!paramKind || !paramRef) return [undefined];
    const info = this.resourceFor(paramKind);
    let namespace: string | undefined;
    if (info.namespaced) {
      namespace = paramRef.namespace || requestNamespace;
      if (!namespace) throw new ConfigurationError('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
    } else if (paramRef.namespace) {
      throw new ConfigurationError('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
    }
    let params: KubeObject[];
    if (paramRef.name) {
      if (paramRef.selector) throw new ConfigurationError('paramRef.name and paramRef.selector are mutually exclusive');
      const found = await cachedLookup(() => this.registry.storeFor(info))(namespace, paramRef.name);
      params = found ? [found] : [];
    } else if (paramRef.selector) {
      const list = await this.registry.storeFor(info).list({ namespace, readAt: { kind: 'any' } });
      params = list.items.map((i) => i.object).filter((o) => labelSelectorMatches(paramRef.selector, (o.metadata?.labels ?? {}) as Record<string, string>));
    } else {
      throw new ConfigurationError('one of name or selector must be provided');
    }
    if (params.length === 0 && paramRef.parameterNotFoundAction === 'Deny') {
      throw new ConfigurationError('no params found for policy binding with `Deny` parameterNotFoundAction');
    }
    return params;
  }
}
