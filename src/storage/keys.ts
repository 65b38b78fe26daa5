/**
 * Storage keys laid out as kube-apiserver lays them out in etcd:
 * `/registry/<resource-prefix>/<namespace>/<name>` for namespaced and
 * `/registry/<resource-prefix>/<name>` for cluster-scoped resources.
 *
 * Built-in resources use the bare resource name as prefix, except the few
 * kube-apiserver overrides; custom resources, CRDs and APIServices carry
 * their group (their registries live in separate servers upstream).
 */

const SPECIAL_PREFIXES: Record<string, string> = {
  '/replicationcontrollers': 'controllers',
  '/endpoints': 'services/endpoints',
  '/nodes': 'minions',
  '/services': 'services/specs',
  'extensions/ingresses': 'ingress',
  'networking.k8s.io/ingresses': 'ingress',
};

const GROUP_QUALIFIED = new Set(['apiextensions.k8s.io', 'apiregistration.k8s.io']);

export interface KeyLayoutOptions {
  /** Root of every key; kube-apiserver's `--etcd-prefix`, default `/registry`. */
  root: string;
}

export class KeyLayout {
  readonly root: string;

  constructor(opts: Partial<KeyLayoutOptions> = {}) {
    this.root = (opts.root ?? '/registry').replace(/\/+$/, '');
  }

  /**
   * The key prefix of a resource (with a trailing slash), shared by every
   * version of it. `builtIn` false marks custom resources.
   */
  resourcePrefix(group: string, resource: string, builtIn = true): string {
    const special = SPECIAL_PREFIXES[`${group}/${resource}`];
    if (special) return `${this.root}/${special}/`;
    if (!builtIn || GROUP_QUALIFIED.has(group)) return `${this.root}/${group}/${resource}/`;
    return `${this.root}/${resource}/`;
  }

  /** Prefix of one namespace's objects of a resource. */
  namespacePrefix(resourcePrefix: string, namespace: string): string {
    return `${resourcePrefix}${namespace}/`;
  }

  objectKey(resourcePrefix: string, namespace: string | undefined, name: string): string {
    return namespace ? `${resourcePrefix}${namespace}/${name}` : `${resourcePrefix}${name}`;
  }
}
