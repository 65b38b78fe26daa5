import type { Authorizer } from '../../authz/authorizer.js';
import type { UserInfo } from '../../machinery/context.js';

export const CERTIFICATES_GROUP = 'certificates.k8s.io';

/**
 * kube's certauthorization.IsAuthorizedForSignerName: `verb` on the
 * synthetic `signers` resource of certificates.k8s.io named by the signer,
 * or else on `<domain>/*` (the signer name's part before its first slash),
 * so that one grant covers every signer of a domain. An authorizer that
 * reported an error does not allow, whatever its decision. The plugins
 * skip the check for writes without a user: the server's own, in process.
 */
export async function isAuthorizedForSignerName(authorizer: Authorizer, user: UserInfo, verb: string, signerName: string): Promise<boolean> {
  const domain = signerName.split('/')[0]!;
  for (const name of [signerName, `${domain}/*`]) {
    const d = await authorizer.authorize({ user, verb, resourceRequest: true, group: CERTIFICATES_GROUP, version: '*', resource: 'signers', name });
    if (!d.error && d.decision === 'Allow') return true;
  }
  return false;
}
