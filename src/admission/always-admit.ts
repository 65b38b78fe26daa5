import type { AdmissionPlugin } from './admission.js';

/** AlwaysAdmit: deprecated upstream, admits everything in both phases. */
export class AlwaysAdmit implements AdmissionPlugin {
  readonly name = 'AlwaysAdmit';

  async admit(): Promise<void> {}

  async validate(): Promise<void> {}
}

/** What kube-apiserver logs (as a warning) when it builds AlwaysAdmit or AlwaysDeny. */
export function deprecatedPluginWarning(name: string): string {
  return `${name} admission controller is deprecated. Please remove this controller from your configuration files and scripts.`;
}
