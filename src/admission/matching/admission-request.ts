import type { GroupVersionKind, ResourceInfo } from '../../api/types.js';
import type { KubeObject } from '../../machinery/object.js';
import type { AdmissionAttributes } from '../admission.js';
import { requestNamespace } from './rules.js';

/**
 * kube's admission/v1 AdmissionRequest as JSON: what a webhook receives in
 * an AdmissionReview and what CEL's `request` variable holds. `kind` and
 * `resource` are those the webhook or policy matched (an equivalent resource
 * under matchPolicy Equivalent), `requestKind` and `requestResource` the
 * request's own.
 */
export interface AdmissionRequestJson {
  uid: string;
  kind: GroupVersionKind;
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  requestKind: GroupVersionKind;
  requestResource: { group: string; version: string; resource: string };
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: string;
  userInfo: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  object?: KubeObject | null;
  oldObject?: KubeObject | null;
  dryRun: boolean;
  options?: Record<string, unknown> | null;
}

/** The resource and kind a webhook or policy matched, and the request's objects converted to them. */
export interface MatchedVersion {
  resource: ResourceInfo;
  kind: GroupVersionKind;
  object?: KubeObject;
  oldObject?: KubeObject;
}

function gvr(r: ResourceInfo): { group: string; version: string; resource: string } {
  return { group: r.group, version: r.version, resource: r.name };
}

export function admissionRequest(attrs: AdmissionAttributes, matched: MatchedVersion, requestKind: GroupVersionKind, uid: string): AdmissionRequestJson {
  const user = attrs.user;
  const out: AdmissionRequestJson = {
    uid,
    kind: matched.kind,
    resource: gvr(matched.resource),
    requestKind,
    requestResource: gvr(attrs.resource),
    operation: attrs.operation,
    userInfo: user
      ? {
          username: user.username,
          ...(user.uid ? { uid: user.uid } : {}),
          ...(user.groups.length ? { groups: [...user.groups] } : {}),
          ...(user.extra && Object.keys(user.extra).length ? { extra: user.extra } : {}),
        }
      : {},
    dryRun: attrs.dryRun,
  };
  // omitempty fields, as kube's JSON leaves them out when empty
  if (attrs.subresource) {
    out.subResource = attrs.subresource;
    out.requestSubResource = attrs.subresource;
  }
  if (attrs.name) out.name = attrs.name;
  const namespace = requestNamespace(attrs);
  if (namespace) out.namespace = namespace;
  out.object = matched.object ?? null;
  out.oldObject = matched.oldObject ?? null;
  out.options = attrs.options ?? null;
  return out;
}
