import { defaultPtr, type JsonObject } from './util.js';

/** SetDefaults_PersistentVolumeClaimSpec: used by PVCs, claim templates and ephemeral volumes. */
export function defaultPvcSpec(spec: JsonObject): void {
  defaultPtr(spec, 'volumeMode', 'Filesystem');
}
