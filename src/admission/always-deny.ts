import type { AdmissionAttributes, AdmissionPlugin } from './admission.js';
import { admissionForbidden } from './errors.js';

/** AlwaysDeny: deprecated upstream, refuses every write in both phases. */
export class AlwaysDeny implements AdmissionPlugin {
  readonly name = 'AlwaysDeny';

  async admit(attrs: AdmissionAttributes): Promise<void> {
    throw admissionForbidden(attrs, 'admission control is denying all modifications');
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    throw admissionForbidden(attrs, 'admission control is denying all modifications');
  }
}
