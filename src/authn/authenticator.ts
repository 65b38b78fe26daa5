import type { IncomingMessage } from 'node:http';
import type { UserInfo } from '../machinery/context.js';

/**
 * Authentication as kube-apiserver structures it (k8s.io/apiserver
 * authenticator.Request): each authenticator looks at the request and
 * answers with a user, with no opinion (the credential it knows is absent),
 * or fails (the credential it knows is present and wrong: the request is 401).
 */

export interface AuthenticationResult {
  user: UserInfo;
  /** The credential's audiences, where it names them (tokens). */
  audiences?: string[];
  /** Warning header values for the response (kube's warning.AddWarning from an authenticator). */
  warnings?: string[];
  /** Audit annotations the authenticator adds to the request's event (kube's audit.AddAuditAnnotation). */
  auditAnnotations?: Record<string, string>;
}

export interface Authenticator {
  /** undefined: no opinion. A rejected promise: the credential is invalid. */
  authenticate(req: IncomingMessage): Promise<AuthenticationResult | undefined>;
}

/** Raised by an authenticator whose credential is present but invalid. */
export class AuthenticationError extends Error {
  constructor(
    message: string,
    /** Audit annotations added before the credential was refused (they stay on the request's audit event). */
    readonly auditAnnotations?: Record<string, string>,
  ) {
    super(message);
  }
}

/** A union's failure: every message aggregated, every failure's audit annotations kept. */
export function unionFailure(failures: readonly unknown[]): AuthenticationError {
  const annotations: Record<string, string> = {};
  for (const f of failures) if (f instanceof AuthenticationError && f.auditAnnotations) Object.assign(annotations, f.auditAnnotations);
  const messages = failures.map((f) => (f instanceof Error ? f.message : String(f)));
  return new AuthenticationError(aggregate(messages), Object.keys(annotations).length > 0 ? annotations : undefined);
}

/**
 * kube's union authenticator: the first authenticator that names a user
 * wins; when none does and some failed, the request fails with every
 * failure; when all have no opinion, so does the union.
 */
export class UnionAuthenticator implements Authenticator {
  constructor(private readonly authenticators: readonly Authenticator[]) {}

  async authenticate(req: IncomingMessage): Promise<AuthenticationResult | undefined> {
    const failures: unknown[] = [];
    for (const a of this.authenticators) {
      try {
        const result = await a.authenticate(req);
        if (result) return result;
      } catch (err) {
        failures.push(err);
      }
    }
    if (failures.length > 0) throw unionFailure(failures);
    return undefined;
  }
}

/** Several failures as Go's utilerrors.NewAggregate prints them: one alone, several in brackets. */
export function aggregate(messages: readonly string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}

export const AUTHENTICATED_GROUP = 'system:authenticated';

/**
 * kube's AuthenticatedGroupAdder: every authenticated user is in
 * system:authenticated, unless it is system:anonymous or already names
 * system:authenticated or system:unauthenticated.
 */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.username === ANONYMOUS.username) return user;
  if (user.groups.includes(AUTHENTICATED_GROUP) || user.groups.includes('system:unauthenticated')) return user;
  return { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}

export const ANONYMOUS: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
