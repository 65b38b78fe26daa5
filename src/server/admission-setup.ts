import { AdmissionChain, type AdmissionPlugin } from '../admission/admission.js';
import type { AdmissionPluginContext } from '../admission/plugin-context.js';
import { ADMISSION_PLUGIN_FACTORIES, DEFAULT_ON_ADMISSION_PLUGINS, ORDERED_ADMISSION_PLUGINS } from '../admission/plugins.js';
import type { ServerConfig } from './config.js';

/**
 * The admission chain the flags name: kube's default-on plugins (those
 * Capstan has built), plus --enable-admission-plugins, minus
 * --disable-admission-plugins, in kube's fixed order; then the plugins that
 * come with the authorizers and an embedder's own.
 */
export function enabledAdmissionPlugins(admission: ServerConfig['admission']): string[] {
  const enabled = new Set(admission?.enablePlugins ?? []);
  const disabled = new Set(admission?.disablePlugins ?? []);
  for (const name of DEFAULT_ON_ADMISSION_PLUGINS) if (ADMISSION_PLUGIN_FACTORIES.has(name) && !disabled.has(name)) enabled.add(name);
  for (const name of disabled) enabled.delete(name);
  return ORDERED_ADMISSION_PLUGINS.filter((name) => enabled.has(name));
}

export function buildAdmissionChain(
  admission: ServerConfig['admission'],
  context: Omit<AdmissionPluginContext, 'configuration'>,
  configurations: ReadonlyMap<string, unknown>,
  extra: readonly AdmissionPlugin[],
): { chain: AdmissionChain; plugins: AdmissionPlugin[] } {
  const plugins: AdmissionPlugin[] = [];
  for (const name of enabledAdmissionPlugins(admission)) {
    const factory = ADMISSION_PLUGIN_FACTORIES.get(name);
    if (!factory) throw new Error(`admission plugin "${name}" is not built in Capstan`);
    plugins.push(factory({ ...context, configuration: configurations.get(name) }));
  }
  plugins.push(...extra);
  return { chain: new AdmissionChain(plugins), plugins };
}
