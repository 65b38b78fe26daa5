import type { Environment } from '@marcbachmann/cel-js';

/**
 * Registers Kubernetes' CEL libraries on a cel-js environment. Placeholder
 * with the agreed signature; the libraries themselves come from the cel-lib
 * branch, whose version of this file replaces this one.
 */
export function registerKubernetesLibraries(env: Environment, options: { authorizer?: boolean }): Environment {
  void options;
  return env;
}
