import type { UserInfo } from '../machinery/context.js';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer, RulesResult } from './authorizer.js';

/**
 * `--authorization-mode` (kube-apiserver's BuiltInAuthorizationOptions):
 * the mode names, their validation with kube's messages, and the two
 * authorizers that need nothing (authorizerfactory's AlwaysAllow and
 * AlwaysDeny).
 */

/** kube's AuthorizationModeChoices, in its order. */
export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

/** The modes this server can run; the others are valid names that fail at start. */
export const BUILT_MODES: readonly AuthorizationMode[] = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'RBAC', 'Node', 'Webhook'];

export interface AuthorizationFlags {
  modes: string[];
  policyFile?: string;
  webhookConfigFile?: string;
  /** --authorization-config. */
  configFile?: string;
  /** Whether --authorization-mode was given on the command line (kube's AreLegacyFlagsSet). */
  modeFlagSet?: boolean;
}

/** BuiltInAuthorizationOptions.Validate: every error, in kube's words. */
export function validateAuthorizationFlags(f: AuthorizationFlags): string[] {
  const errs: string[] = [];
  if (f.configFile) {
    if (f.modeFlagSet) errs.push('--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined');
    return errs;
  }
  if (f.modes.length === 0) errs.push('at least one authorization-mode must be passed');
  for (const mode of f.modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(mode)) errs.push(`authorization-mode "${mode}" is not a valid mode`);
    if (mode === 'ABAC' && !f.policyFile) errs.push("authorization-mode ABAC's authorization policy file not passed");
    if (mode === 'Webhook' && !f.webhookConfigFile) errs.push("authorization-mode Webhook's authorization config file not passed");
  }
  if (f.policyFile && !f.modes.includes('ABAC')) errs.push('cannot specify --authorization-policy-file without mode ABAC');
  if (f.webhookConfigFile && !f.modes.includes('Webhook')) errs.push('cannot specify --authorization-webhook-config-file without mode Webhook');
  if (new Set(f.modes).size !== f.modes.length) errs.push(`authorization-mode [${f.modes.map((m) => JSON.stringify(m)).join(' ')}] has mode specified more than once`);
  return errs;
}

/** AlwaysAllow: every request allowed; its rules are everything. */
export class AlwaysAllowAuthorizer implements Authorizer {
  async authorize(_attrs: AuthorizationAttributes): Promise<AuthorizationDecision> {
    return { decision: 'Allow', reason: '' };
  }

  async rulesFor(_user: UserInfo, _namespace: string): Promise<RulesResult> {
    return {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    };
  }
}

/** AlwaysDeny: no opinion on anything, with kube's reason (so the chain ends in 403 unless a later mode allows). */
export class AlwaysDenyAuthorizer implements Authorizer {
  async authorize(_attrs: AuthorizationAttributes): Promise<AuthorizationDecision> {
    return { decision: 'NoOpinion', reason: 'Everything is forbidden.' };
  }

  async rulesFor(_user: UserInfo, _namespace: string): Promise<RulesResult> {
    return { resourceRules: [], nonResourceRules: [], incomplete: false };
  }
}
