import { listOf, mapOf, namedType, objectOf, Types, type ObjectType } from './types.js';

const str = Types.string;
const strings = listOf(str);

/** kube's kubernetes.UserInfo (authentication user, admission request's userInfo). */
export const UserInfoType: ObjectType = objectOf('kubernetes.UserInfo', {
  username: str, uid: str, groups: strings, extra: mapOf(str, strings),
});

const gvk = objectOf('kubernetes.GroupVersionKind', { group: str, version: str, kind: str });
const gvr = objectOf('kubernetes.GroupVersionResource', { group: str, version: str, resource: str });

/** kube's kubernetes.AdmissionRequest (the `request` variable of admission expressions). */
export const AdmissionRequestType: ObjectType = objectOf('kubernetes.AdmissionRequest', {
  kind: gvk, resource: gvr, subResource: str, requestKind: gvk, requestResource: gvr, requestSubResource: str,
  name: str, namespace: str, operation: str, userInfo: UserInfoType, dryRun: Types.bool, options: Types.dyn,
});

/** kube's kubernetes.Namespace (the `namespaceObject` variable): metadata, spec and status of the namespace. */
export const NamespaceType: ObjectType = objectOf('kubernetes.Namespace', {
  metadata: objectOf('kubernetes.Namespace.metadata', {
    name: str, generateName: str, namespace: str, labels: mapOf(str, str), annotations: mapOf(str, str),
    UID: str, creationTimestamp: Types.timestamp, deletionGracePeriodSeconds: Types.int,
    deletionTimestamp: Types.timestamp, generation: Types.int, resourceVersion: str, finalizers: strings,
  }),
  spec: objectOf('kubernetes.Namespace.spec', { finalizers: strings }),
  status: objectOf('kubernetes.Namespace.status', {
    conditions: listOf(objectOf('kubernetes.Namespace.status.conditions', {
      type: str, status: str, lastTransitionTime: Types.timestamp, message: str, reason: str,
    })),
    phase: str,
  }),
});

const requirement = objectOf('kubernetes.authorization.Requirement', { key: str, operator: str, values: strings });

/** kube's SubjectAccessReviewSpec (the `request` variable of authorization webhook match conditions). */
export const SubjectAccessReviewSpecType: ObjectType = objectOf('kubernetes.SubjectAccessReviewSpec', {
  resourceAttributes: objectOf('kubernetes.ResourceAttributes', {
    namespace: str, verb: str, group: str, version: str, resource: str, subresource: str, name: str,
    fieldSelector: objectOf('kubernetes.FieldSelectorAttributes', { rawSelector: str, requirements: listOf(requirement) }),
    labelSelector: objectOf('kubernetes.LabelSelectorAttributes', { rawSelector: str, requirements: listOf(requirement) }),
  }),
  nonResourceAttributes: objectOf('kubernetes.NonResourceAttributes', { path: str, verb: str }),
  user: str, groups: strings, extra: mapOf(str, strings), uid: str,
});

/** The authorizer library's types (registered by src/cel/libraries/). */
export const AuthorizerType = namedType('kubernetes.authorization.Authorizer');
export const ResourceCheckType = namedType('kubernetes.authorization.ResourceCheck');
