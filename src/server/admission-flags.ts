import { resolve } from 'node:path';
import { ADMISSION_PLUGIN_FACTORIES, DEFAULT_ON_ADMISSION_PLUGINS, ORDERED_ADMISSION_PLUGINS } from '../admission/plugins.js';
import type { ServerConfig } from './config.js';
import { FlagError, type FlagSpec, type ParsedFlags } from './flags.js';

/** kube's admission.Plugins.Registered(): every plugin name, sorted. */
const REGISTERED = [...ORDERED_ADMISSION_PLUGINS].sort();
/** kube's defaultEnabledPluginNames(): the default-on ones in kube's order. */
const DEFAULT_ENABLED = ORDERED_ADMISSION_PLUGINS.filter((n) => DEFAULT_ON_ADMISSION_PLUGINS.has(n));

/** kube-apiserver's admission flags (k8s.io/apiserver/pkg/server/options/admission.go). */
export const ADMISSION_FLAG_SPECS: FlagSpec[] = [
  {
    name: 'enable-admission-plugins',
    type: 'stringList',
    default: '',
    help: `admission plugins that should be enabled in addition to default enabled ones (${DEFAULT_ENABLED.join(', ')}). Comma-delimited list of admission plugins: ${REGISTERED.join(', ')}. The order of plugins in this flag does not matter. Capstan has built: ${ORDERED_ADMISSION_PLUGINS.filter((n) => ADMISSION_PLUGIN_FACTORIES.has(n)).join(', ')}.`,
  },
  {
    name: 'disable-admission-plugins',
    type: 'stringList',
    default: '',
    help: `admission plugins that should be disabled although they are in the default enabled plugins list (${DEFAULT_ENABLED.join(', ')}). Comma-delimited list of admission plugins: ${REGISTERED.join(', ')}. The order of plugins in this flag does not matter.`,
  },
  { name: 'admission-control-config-file', type: 'string', default: '', help: 'File with admission control configuration.' },
  {
    name: 'admission-control',
    type: 'stringList',
    help: `Admission is divided into two phases. In the first phase, only mutating admission plugins run. In the second phase, only validating admission plugins run. The names in the below list may represent a validating plugin, a mutating plugin, or both. The order of plugins in which they are passed to this flag does not matter. Comma-delimited list of: ${REGISTERED.join(', ')}.`,
    deprecated: 'Use --enable-admission-plugins or --disable-admission-plugins instead. Will be removed in a future version.',
  },
];

/**
 * The admission flags with kube's validation (AdmissionOptions.Validate:
 * unknown names, a name both enabled and disabled), then Capstan's own: a
 * kube plugin it has not built cannot be enabled. Undefined when no flag is set.
 */
export function admissionFromFlags(p: ParsedFlags, cwd: string): ServerConfig['admission'] {
  const enable = (p.values.get('enable-admission-plugins') as string[]).filter((n) => n !== '');
  const disable = (p.values.get('disable-admission-plugins') as string[]).filter((n) => n !== '');
  const configFile = String(p.values.get('admission-control-config-file') ?? '');
  const errs: string[] = [];
  // kube-apiserver's own AdmissionOptions.Validate, before the generic one.
  const legacy = p.set.has('admission-control') ? (p.values.get('admission-control') as string[]) : undefined;
  if (legacy && (p.set.has('enable-admission-plugins') || p.set.has('disable-admission-plugins'))) {
    errs.push('admission-control and enable-admission-plugins/disable-admission-plugins flags are mutually exclusive');
  }
  for (const name of legacy ?? []) if (!ORDERED_ADMISSION_PLUGINS.includes(name)) errs.push(`admission-control plugin "${name}" is unknown`);
  errs.push(...validateAdmissionPluginNames(enable, disable));
  // utilerrors.NewAggregate: one error as itself, several as [a, b].
  if (errs.length === 1) throw new FlagError(errs[0]!);
  if (errs.length > 1) throw new FlagError(`[${errs.join(', ')}]`);
  if (legacy) {
    // kube's computePluginNames: the list is the whole chain, every other plugin is disabled.
    enable.push(...legacy.filter((n) => n !== ''));
    const listed = new Set(enable);
    disable.push(...[...ORDERED_ADMISSION_PLUGINS].sort().filter((n) => !listed.has(n)));
  }
  const unbuilt = enable.filter((n) => !ADMISSION_PLUGIN_FACTORIES.has(n));
  if (unbuilt.length > 0) {
    const built = ORDERED_ADMISSION_PLUGINS.filter((n) => ADMISSION_PLUGIN_FACTORIES.has(n));
    throw new FlagError(`--${legacy ? 'admission-control' : 'enable-admission-plugins'}: ${unbuilt.map((n) => `"${n}"`).join(', ')} ${unbuilt.length === 1 ? 'is' : 'are'} not supported by this server yet (supported: ${built.join(', ')})`);
  }
  if (enable.length === 0 && disable.length === 0 && !configFile) return undefined;
  return {
    ...(enable.length > 0 ? { enablePlugins: enable } : {}),
    ...(disable.length > 0 ? { disablePlugins: disable } : {}),
    ...(configFile ? { configFile: resolve(cwd, configFile) } : {}),
  };
}

/** kube's AdmissionOptions.Validate texts, in its order. */
export function validateAdmissionPluginNames(enable: readonly string[], disable: readonly string[]): string[] {
  const registered = new Set(ORDERED_ADMISSION_PLUGINS);
  const errs: string[] = [];
  for (const name of enable) if (!registered.has(name)) errs.push(`enable-admission-plugins plugin "${name}" is unknown`);
  for (const name of disable) if (!registered.has(name)) errs.push(`disable-admission-plugins plugin "${name}" is unknown`);
  const disabled = new Set(disable);
  // sets.String.List(): sorted, unique; printed with %v as [a b].
  const overlap = [...new Set(enable.filter((n) => disabled.has(n)))].sort();
  if (overlap.length > 0) errs.push(`[${overlap.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  return errs;
}
