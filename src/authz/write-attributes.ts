import type { ResourceInfo } from '../api/types.js';
import type { UserInfo } from '../machinery/context.js';
import type { KubeObject } from '../machinery/object.js';

/**
 * What the authorization-side admission checks (RBAC escalation prevention,
 * NodeRestriction) read of a write: the admission chain's attributes,
 * structurally, since admission and authz are one layer and do not import
 * each other; the server hands these plugins to the chain.
 */
export interface WriteAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  resource: ResourceInfo;
  subresource: string;
  namespace: string;
  name: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  user?: UserInfo;
}
