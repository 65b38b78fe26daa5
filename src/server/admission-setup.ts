import { AdmissionChain, type AdmissionPlugin } from '../admission/admission.js';
import { AdmissionConfigError, readAdmissionConfiguration } from '../admission/admission-config.js';
import type { AdmissionMetrics } from '../admission/metrics.js';
import type { AdmissionPluginContext } from '../admission/plugin-context.js';
import { ADMISSION_PLUGIN_FACTORIES, DEFAULT_ON_ADMISSION_PLUGINS, ORDERED_ADMISSION_PLUGINS } from '../admission/plugins.js';
import type { ServerConfig } from './config.js';

/** The admission chain cannot be built: its configuration file or a plugin's configuration is unusable (the server does not start). */
export class AdmissionSetupError extends Error {}

export interface AdmissionSelection {
  /**
   * The Node authorizer is configured: NodeRestriction (default-off in kube)
   * then runs unless --disable-admission-plugins names it, as kubeadm
   * enables the two together.
   */
  nodeAuthorizer?: boolean;
}

/**
 * The admission chain the flags name: kube's default-on plugins (those
 * Capstan has built), plus --enable-admission-plugins, minus
 * --disable-admission-plugins, in kube's fixed order.
 */
export function enabledAdmissionPlugins(admission: ServerConfig['admission'], selection: AdmissionSelection = {}): string[] {
  const explicit = new Set(admission?.enablePlugins ?? []);
  // kube's enabledPluginNames: an explicitly enabled plugin stays on even when also disabled.
  const off = new Set((admission?.disablePlugins ?? []).filter((n) => !explicit.has(n)));
  const on = new Set([...DEFAULT_ON_ADMISSION_PLUGINS].filter((n) => ADMISSION_PLUGIN_FACTORIES.has(n)));
  if (selection.nodeAuthorizer) on.add('NodeRestriction');
  return ORDERED_ADMISSION_PLUGINS.filter((name) => explicit.has(name) || (on.has(name) && !off.has(name)));
}

export interface AdmissionChainSetup extends AdmissionSelection {
  metrics?: AdmissionMetrics;
  /** Plugins' configurations an embedder gives (ApiServerOptions.admissionConfigurations), over the file's. */
  configurations?: ReadonlyMap<string, unknown>;
}

/**
 * Builds the named plugins, each with its section of
 * --admission-control-config-file, then the plugins that come with the
 * authorizers and an embedder's own; errors carry kube's texts.
 */
export function buildAdmissionChain(
  admission: ServerConfig['admission'],
  context: Omit<AdmissionPluginContext, 'configuration'>,
  extra: readonly AdmissionPlugin[],
  setup: AdmissionChainSetup = {},
): { chain: AdmissionChain; plugins: AdmissionPlugin[] } {
  const names = enabledAdmissionPlugins(admission, setup);
  let configurations: Map<string, unknown>;
  try {
    configurations = readAdmissionConfiguration(names, admission?.configFile);
    for (const [name, configuration] of setup.configurations ?? []) configurations.set(name, configuration);
  } catch (err) {
    if (err instanceof AdmissionConfigError) throw new AdmissionSetupError(err.message);
    throw err;
  }
  const plugins: AdmissionPlugin[] = [];
  for (const name of names) {
    const factory = ADMISSION_PLUGIN_FACTORIES.get(name);
    if (!factory) throw new AdmissionSetupError(`admission plugin "${name}" is not built in Capstan (built: ${builtAdmissionPlugins().join(', ')})`);
    try {
      plugins.push(factory({ ...context, configuration: configurations.get(name) }));
    } catch (err) {
      throw new AdmissionSetupError(`couldn't init admission plugin "${name}": ${(err as Error).message}`);
    }
  }
  // kube's NewFromPlugins reports the two phases' order (here from -v=1: `capstan serve` prints one ready line at -v=0).
  const mutating = plugins.filter((p) => p.admit).map((p) => p.name);
  const validating = plugins.filter((p) => p.validate).map((p) => p.name);
  if (mutating.length > 0 && context.logger.v(1)) context.logger.info(`Loaded ${mutating.length} mutating admission controller(s) successfully in the following order: ${mutating.join(',')}.`);
  if (validating.length > 0 && context.logger.v(1)) context.logger.info(`Loaded ${validating.length} validating admission controller(s) successfully in the following order: ${validating.join(',')}.`);
  // The plugins that come with the authorizers (RBAC's escalation check is storage in kube) and an embedder's are timed in the step only.
  const namedPlugins = new Set(plugins);
  plugins.push(...extra);
  return { chain: new AdmissionChain(plugins, { ...(setup.metrics ? { metrics: setup.metrics } : {}), logger: context.logger, namedPlugins }), plugins };
}

/** The kube plugins Capstan has built, in kube's order. */
export function builtAdmissionPlugins(): string[] {
  return ORDERED_ADMISSION_PLUGINS.filter((name) => ADMISSION_PLUGIN_FACTORIES.has(name));
}
