import type { UserInfo } from '../../machinery/context.js';
import { parseFieldSelector } from '../../machinery/selectors.js';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer, RulesResult } from '../authorizer.js';
import { ruleAllows, type PolicyRule } from '../rbac/rules.js';
import type { NodeGraph, VertexType } from './graph.js';

/**
 * kube's Node authorizer (plugin/pkg/auth/authorizer/node, with
 * AuthorizeNodeWithSelectors on as in 1.36): only users
 * `system:node:<name>` in `system:nodes`; secrets, configmaps, claims,
 * volumes and service account tokens only when the graph relates them to
 * the node; its own Node, Lease and CSINode; pods bound to it (lists only
 * with a `spec.nodeName=<name>` field selector); everything else as the
 * `system:node` ClusterRole's rules allow. Other users: no opinion.
 */

const NODE_PREFIX = 'system:node:';
const NODES_GROUP = 'system:nodes';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';

const noOpinion = (reason = ''): AuthorizationDecision => ({ decision: 'NoOpinion', reason });
const allow: AuthorizationDecision = { decision: 'Allow', reason: '' };

/** kube's default NodeIdentifier: the node name, or undefined for users that are not nodes. */
export function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.username.startsWith(NODE_PREFIX) || !user.groups.includes(NODES_GROUP)) return undefined;
  return user.username.slice(NODE_PREFIX.length);
}

function fieldEquals(attrs: AuthorizationAttributes, field: string, value: string): boolean {
  try {
    return parseFieldSelector(attrs.fieldSelector).requirements.some((r) => r.field === field && r.op === '=' && r.value === value);
  } catch {
    return false;
  }
}

export class NodeAuthorizer implements Authorizer {
  constructor(
    private readonly graph: NodeGraph,
    private readonly nodeRules: readonly PolicyRule[],
  ) {}

  async rulesFor(user: UserInfo, _namespace: string): Promise<RulesResult> {
    // Nodes' permissions are not enumerable.
    if (nodeIdentity(user) === undefined) return { resourceRules: [], nonResourceRules: [], incomplete: false };
    return { resourceRules: [], nonResourceRules: [], incomplete: true, error: 'node authorizer does not support user rule resolution' };
  }

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationDecision> {
    const node = nodeIdentity(attrs.user);
    if (node === undefined) return noOpinion();
    if (node === '') return noOpinion(`unknown node for user "${attrs.user.username}"`);
    if (attrs.resourceRequest) {
      const decided = this.subdivided(node, attrs);
      if (decided) return decided;
    }
    return this.nodeRules.some((r) => ruleAllows(attrs, r)) ? allow : noOpinion();
  }

  private subdivided(node: string, a: AuthorizationAttributes): AuthorizationDecision | undefined {
    const group = a.group ?? '';
    const gr = `${a.resource ?? ''}.${group}`;
    switch (gr) {
      case 'secrets.':
        return this.readNamespaced(node, 'secret', a);
      case 'configmaps.':
        return this.readNamespaced(node, 'configmap', a);
      case 'persistentvolumeclaims.':
        return a.subresource === 'status' ? this.statusUpdate(node, 'pvc', a) : this.get(node, 'pvc', a);
      case 'persistentvolumes.':
        return this.get(node, 'pv', a);
      case 'resourceclaims.resource.k8s.io':
        return this.get(node, 'resourceclaim', a);
      case 'volumeattachments.storage.k8s.io':
        return this.get(node, 'volumeattachment', a);
      case 'serviceaccounts.':
        if (a.verb !== 'create' || !a.name) return noOpinion('can only create tokens for individual service accounts');
        if (a.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
        return this.related(node, 'serviceaccount', a);
      case 'leases.coordination.k8s.io':
        if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
        if (a.namespace !== NODE_LEASE_NAMESPACE) return noOpinion(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
        if (a.verb !== 'create' && a.name !== node) return noOpinion('can only access node lease with the same name as the requesting node');
        return allow;
      case 'csinodes.storage.k8s.io':
        if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a CSINode');
        if (a.subresource) return noOpinion('cannot authorize CSINode subresources');
        if (a.verb !== 'create' && a.name !== node) return noOpinion('can only access CSINode with the same name as the requesting node');
        return allow;
      case 'resourceslices.resource.k8s.io':
        if (a.subresource) return noOpinion('cannot authorize ResourceSlice subresources');
        if (a.verb === 'create') return allow;
        // The existing slice must name the node (its graph edge); on create NodeRestriction checks the new object.
        if (['get', 'update', 'patch', 'delete'].includes(a.verb)) return this.related(node, 'resourceslice', a);
        if (['watch', 'list', 'deletecollection'].includes(a.verb)) {
          return fieldEquals(a, 'spec.nodeName', node) ? allow : noOpinion('can only list/watch/deletecollection resourceslices with nodeName field selector');
        }
        return noOpinion('only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection');
      case 'nodes.':
        return this.nodeObject(node, a);
      case 'pods.':
        return this.pod(node, a);
      default:
        return undefined;
    }
  }

  private readNamespaced(node: string, type: VertexType, a: AuthorizationAttributes): AuthorizationDecision {
    if (!['get', 'list', 'watch'].includes(a.verb)) return noOpinion('can only read resources of this type');
    if (a.subresource) return noOpinion('cannot read subresource');
    if (!a.namespace) return noOpinion('can only read namespaced object of this type');
    return this.related(node, type, a);
  }

  private get(node: string, type: VertexType, a: AuthorizationAttributes): AuthorizationDecision {
    if (a.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (a.subresource) return noOpinion('cannot get subresource');
    return this.related(node, type, a);
  }

  private statusUpdate(node: string, type: VertexType, a: AuthorizationAttributes): AuthorizationDecision {
    if (a.verb !== 'update' && a.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    return this.related(node, type, a);
  }

  private related(node: string, type: VertexType, a: AuthorizationAttributes): AuthorizationDecision {
    if (!a.name) return noOpinion('No Object name found');
    if (this.graph.pathFrom(node, type, a.namespace ?? '', a.name) !== undefined) return noOpinion(`no relationship found between node '${node}' and this object`);
    return allow;
  }

  private nodeObject(node: string, a: AuthorizationAttributes): AuthorizationDecision {
    if (!a.subresource) {
      // NodeRestriction limits a node's writes to its own Node.
      if (['create', 'update', 'patch'].includes(a.verb)) return allow;
      if (['get', 'list', 'watch'].includes(a.verb)) {
        if (a.name === node) return allow;
        if (!a.name) return noOpinion(`node '${node}' cannot read all nodes, only its own Node object`);
        return noOpinion(`node '${node}' cannot read '${a.name}', only its own Node object`);
      }
    } else if (a.subresource === 'status' && (a.verb === 'update' || a.verb === 'patch')) {
      return allow;
    }
    return noOpinion();
  }

  private pod(node: string, a: AuthorizationAttributes): AuthorizationDecision {
    switch (a.subresource ?? '') {
      case '':
        if (a.verb === 'get') return this.get(node, 'pod', a);
        if (a.verb === 'list' || a.verb === 'watch') {
          if (fieldEquals(a, 'spec.nodeName', node)) return allow;
          if (a.name) return this.related(node, 'pod', a);
          return noOpinion('can only list/watch pods with spec.nodeName field selector');
        }
        // Mirror pods; NodeRestriction limits them to the node's own.
        if (a.verb === 'create' || a.verb === 'delete') return allow;
        break;
      case 'status':
        if (a.verb === 'update' || a.verb === 'patch') return allow;
        break;
      case 'eviction':
        if (a.verb === 'create') return allow;
        break;
    }
    return noOpinion();
  }
}
