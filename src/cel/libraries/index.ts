import type { Environment } from '@marcbachmann/cel-js';

import { registerAuthz } from './authz.js';
import { refuseBindings } from './bindings.js';
import { registerStringBuiltinOverrides } from './builtins.js';
import { registerFormat } from './format.js';
import { registerCIDR, registerIP } from './ip.js';
import { registerQuantity } from './quantity.js';
import { registerURLs } from './urls.js';
import { registerExtLists, registerKubeLists } from './lists.js';
import { registerTwoVarComprehensions } from './macros.js';
import { registerRegex } from './regex.js';
import { registerSemver } from './semver.js';
import { registerSets } from './sets.js';
import { registerStrings } from './strings.js';
import { CURRENT_VERSION, type KubeVersion, libraryEnabled, parseKubeVersion } from './versions.js';

export type { KubeVersion, LibraryName } from './versions.js';
export { LIBRARY_VERSIONS, libraryEnabled } from './versions.js';
export * from './authz.js';
export { registerJSONPatch } from './jsonpatch.js';

export interface KubernetesLibraryOptions {
  /** Register the `Authorizer` type and its functions (for the environments that declare `authorizer`). */
  authorizer?: boolean;
  /** Keep cel-js's `cel.bind` (ext.Bindings), which only the DRA device selector environment adds to the base one. */
  bindings?: boolean;
  /**
   * The compatibility version ("1.30"): only the libraries kube's base
   * environment has at that version are registered. Defaults to 1.36.
   */
  version?: string;
}

/**
 * Registers every Kubernetes CEL library kube-apiserver's base environment
 * has at the given compatibility version on `env`, and returns it (cel-js
 * environments are mutable until cloned). The environment must not have
 * been cloned from yet.
 */
export function registerKubernetesLibraries(env: Environment, options: KubernetesLibraryOptions = {}): Environment {
  const v: KubeVersion = options.version === undefined ? CURRENT_VERSION : parseKubeVersion(options.version);
  if (libraryEnabled('urls', v)) registerURLs(env);
  if (libraryEnabled('regex', v)) registerRegex(env);
  // indexOf/lastIndexOf/substring with cel-go's semantics: kube's lists (1.0) and ext.Strings (every version).
  registerStringBuiltinOverrides(env);
  // ext.Bindings is not in kube's base environment at any version; cel-js always has it.
  if (!options.bindings) refuseBindings(env);
  if (libraryEnabled('lists', v)) registerKubeLists(env);
  if (options.authorizer && libraryEnabled('authz', v)) registerAuthz(env, libraryEnabled('authzSelectors', v));
  if (libraryEnabled('quantity', v)) registerQuantity(env);
  if (libraryEnabled('stringsV2', v)) registerStrings(env, 2);
  else if (libraryEnabled('stringsV0', v)) registerStrings(env, 0);
  if (libraryEnabled('sets', v)) registerSets(env);
  if (libraryEnabled('ip', v)) registerIP(env);
  if (libraryEnabled('cidr', v)) registerCIDR(env);
  if (libraryEnabled('format', v)) registerFormat(env);
  if (libraryEnabled('twoVarComprehensions', v)) registerTwoVarComprehensions(env);
  if (libraryEnabled('semver', v)) registerSemver(env);
  if (libraryEnabled('extLists', v)) registerExtLists(env);
  return env;
}
