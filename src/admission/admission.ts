import type { ResourceInfo } from '../api/types.js';
import type { KubeObject } from '../machinery/object.js';
import type { UserInfo } from '../machinery/context.js';

/**
 * Admission: every write passes mutating plugins, then validating plugins,
 * before the registry stores it. Reads never do. A plugin rejects by throwing
 * an ApiError.
 */

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  resource: ResourceInfo;
  subresource: string;
  namespace: string;
  name: string;
  /** The incoming object (served version), for CREATE and UPDATE. */
  object?: KubeObject;
  /** The stored object (served version), for UPDATE and DELETE. */
  oldObject?: KubeObject;
  dryRun: boolean;
  user?: UserInfo;
}

export interface AdmissionPlugin {
  readonly name: string;
  /** Mutating phase; may change attrs.object. */
  admit?(attrs: AdmissionAttributes): Promise<void>;
  /** Validating phase; must not change anything. */
  validate?(attrs: AdmissionAttributes): Promise<void>;
}

export class AdmissionChain {
  constructor(private readonly plugins: AdmissionPlugin[]) {}

  async run(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) if (p.admit) await p.admit(attrs);
    for (const p of this.plugins) if (p.validate) await p.validate(attrs);
  }
}
