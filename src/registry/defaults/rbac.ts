import type { KubeObject } from '../../machinery/object.js';
import { defaultString, ensureObject, isEmptyString, objectsAt } from './util.js';

/** rbac.authorization.k8s.io/v1 defaulting: the API groups of roleRef and User/Group subjects. */

const RBAC_GROUP = 'rbac.authorization.k8s.io';

export function defaultRoleBinding(binding: KubeObject): void {
  defaultString(ensureObject(binding, 'roleRef'), 'apiGroup', RBAC_GROUP);
  for (const subject of objectsAt(binding, 'subjects')) {
    if (isEmptyString(subject.apiGroup) && (subject.kind === 'User' || subject.kind === 'Group')) subject.apiGroup = RBAC_GROUP;
  }
}
