import type { ApiCatalog } from '../api/catalog.js';
import type { AuthorizationAttributes, Authorizer } from '../authz/authorizer.js';
import type { UserInfo } from '../machinery/context.js';
import { strconvQuote } from '../machinery/go-compat.js';
import { jsonEqual, parseApiVersion, type KubeObject, type OwnerReference } from '../machinery/object.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './admission.js';
import { admissionForbidden, goError } from './forbidden.js';

/**
 * OwnerReferencesPermissionEnforcement (plugin/pkg/admission/gc, default
 * off): changing an object's ownerReferences needs `delete` on the object
 * (not on create: whoever may create it could have left it uncreated), and
 * setting blockOwnerDeletion on a reference needs `update` on the owner's
 * `finalizers` subresource, the owner's resource found from the
 * reference's apiVersion and kind. pods/status is exempt (its strategy keeps
 * ownerReferences).
 */
export class OwnerReferencesPermissionEnforcement implements AdmissionPlugin {
  readonly name = 'OwnerReferencesPermissionEnforcement';

  constructor(
    private readonly authorizer: Authorizer,
    private readonly catalog: Pick<ApiCatalog, 'groupVersion' | 'group'>,
  ) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.resource.group === '' && attrs.resource.name === 'pods' && attrs.subresource === 'status') return;
    const obj = attrs.object;
    const user = attrs.user;
    // No user: the server's own writes.
    if (!obj || !user || !changesOwnerReferences(obj, attrs.oldObject)) return;

    if (attrs.operation !== 'CREATE') {
      const d = await this.authorizer.authorize({
        user,
        verb: 'delete',
        resourceRequest: true,
        namespace: attrs.namespace,
        group: attrs.resource.group,
        version: attrs.resource.version,
        resource: attrs.resource.name,
        subresource: attrs.subresource,
        name: attrs.name,
      });
      if (d.decision !== 'Allow') throw admissionForbidden(attrs, `cannot set an ownerRef on a resource you can't delete: ${d.reason}, ${goError(d.error)}`);
    }

    const blocking = newBlockingRefs(obj, attrs.oldObject);
    if (blocking.length === 0) return;
    // One check that covers every owner, as kube makes before resolving any kind.
    const anything = await this.authorizer.authorize({ user, verb: 'update', resourceRequest: true, group: '*', version: '*', resource: '*', subresource: 'finalizers', name: '*' });
    if (anything.decision === 'Allow') return;

    for (const ref of blocking) {
      const records = this.finalizerRecords(ref, user, attrs.namespace);
      if (typeof records === 'string') {
        throw admissionForbidden(attrs, `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${ref.apiVersion} Kind ${ref.kind}: ${records}`);
      }
      for (const record of records) {
        const d = await this.authorizer.authorize(record);
        if (d.decision !== 'Allow') {
          throw admissionForbidden(attrs, `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${d.reason}, ${goError(d.error)}`);
        }
      }
    }
  }

  /**
   * `update` on `<owner resource>/finalizers` for the owner's name (an owner
   * is in the object's namespace, or cluster-scoped); the mapping error's
   * text (kube's NoKindMatchError) when the kind is not served.
   */
  private finalizerRecords(ref: OwnerReference, user: UserInfo, namespace: string): AuthorizationAttributes[] | string {
    const apiVersion = String(ref.apiVersion ?? '');
    if (apiVersion.split('/').length > 2) return `unexpected GroupVersion string: ${apiVersion}`;
    const { group, version } = parseApiVersion(apiVersion);
    const kind = String(ref.kind ?? '');
    const versions = version ? [version] : (this.catalog.group(group)?.versions.map((v) => v.version) ?? []);
    const resources = new Set<string>();
    for (const v of versions) {
      for (const r of this.catalog.groupVersion(group, v)?.resources ?? []) if (r.kind === kind) resources.add(r.name);
      if (version === '' && resources.size > 0) break;
    }
    if (resources.size === 0) {
      return version ? `no matches for kind ${strconvQuote(kind)} in version ${strconvQuote(apiVersion)}` : `no matches for kind ${strconvQuote(kind)} in group ${strconvQuote(group)}`;
    }
    return [...resources].map((resource) => ({
      user,
      verb: 'update',
      resourceRequest: true,
      namespace,
      group,
      version,
      resource,
      subresource: 'finalizers',
      name: String(ref.name ?? ''),
    }));
  }
}

function ownerRefsOf(obj: KubeObject | undefined): OwnerReference[] {
  const refs = obj?.metadata?.ownerReferences;
  return Array.isArray(refs) ? refs : [];
}

/** kube's isChangingOwnerReference: any reference on create; on update, any difference in order, number or content. */
function changesOwnerReferences(obj: KubeObject, old: KubeObject | undefined): boolean {
  const refs = ownerRefsOf(obj);
  if (!old) return refs.length > 0;
  const oldRefs = ownerRefsOf(old);
  return refs.length !== oldRefs.length || refs.some((r, i) => !jsonEqual(r, oldRefs[i]));
}

/** References that block their owner's deletion and did not before (new, or blockOwnerDeletion was unset or false), matched by uid. */
function newBlockingRefs(obj: KubeObject, old: KubeObject | undefined): OwnerReference[] {
  const blocking = ownerRefsOf(obj).filter((r) => r.blockOwnerDeletion === true);
  if (!old || blocking.length === 0) return blocking;
  const before = new Map(ownerRefsOf(old).map((r) => [r.uid, r]));
  return blocking.filter((r) => before.get(r.uid)?.blockOwnerDeletion !== true);
}
