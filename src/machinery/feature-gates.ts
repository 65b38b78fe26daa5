/**
 * Feature gates (`--feature-gates=A=true,B=false`), as kube-apiserver 1.36
 * has them: each known gate with its stage and default. A gate that changes
 * Capstan's behaviour is one line in FEATURE_GATES; naming any other gate is
 * an error, as in kube (`unrecognized feature gate: X`).
 */

export type FeatureStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

interface FeatureSpec {
  stage: FeatureStage;
  default: boolean;
}

export const FEATURE_GATES = {
  // KEP-3926: DELETE with ignoreStoreReadErrorWithClusterBreakingPotential removes objects that cannot be decoded.
  AllowUnsafeMalformedObjectDeletion: { stage: 'ALPHA', default: false },
  // KEP-4222: application/cbor bodies and responses, application/cbor-seq watches, application/apply-patch+cbor.
  CBORServingAndStorage: { stage: 'ALPHA', default: false },
  // KEP-4742: the PodTopologyLabels admission plugin copies a node's topology labels to the pods bound to it.
  PodTopologyLabelsAdmission: { stage: 'BETA', default: true },
} as const satisfies Record<string, FeatureSpec>;

export type FeatureName = keyof typeof FEATURE_GATES;

/** A --feature-gates value kube would refuse; the message is kube's. */
export class FeatureGateError extends Error {
  constructor(
    message: string,
    /** The flag value it is about. */
    readonly value: string,
  ) {
    super(message);
    this.name = 'FeatureGateError';
  }
}

function isFeatureName(name: string): name is FeatureName {
  return Object.hasOwn(FEATURE_GATES, name);
}

/** strconv.ParseBool. */
function parseGoBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

export class FeatureGates {
  private constructor(private readonly explicit: ReadonlyMap<FeatureName, boolean>) {}

  /** Every gate at its default. */
  static defaults(): FeatureGates {
    return new FeatureGates(new Map());
  }

  /**
   * The gates after each `--feature-gates` value in turn (later values win, as
   * repeated flags do in kube). Throws FeatureGateError with kube's message.
   */
  static parse(values: readonly string[]): FeatureGates {
    const explicit = new Map<FeatureName, boolean>();
    for (const value of values) {
      // featureGate.Set: the whole value is checked before any of it applies.
      const pairs = new Map<string, boolean>();
      for (const item of value.split(',')) {
        if (item === '') continue;
        const eq = item.indexOf('=');
        const name = (eq < 0 ? item : item.slice(0, eq)).trim();
        if (eq < 0) throw new FeatureGateError(`missing bool value for ${name}`, value);
        const text = item.slice(eq + 1).trim();
        const on = parseGoBool(text);
        if (on === undefined) throw new FeatureGateError(`invalid value of ${name}=${text}, err: strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`, value);
        pairs.set(name, on);
      }
      for (const [name, on] of pairs) {
        if (!isFeatureName(name)) throw new FeatureGateError(`unrecognized feature gate: ${name}`, value);
        explicit.set(name, on);
      }
    }
    return new FeatureGates(explicit);
  }

  enabled(name: FeatureName): boolean {
    return this.explicit.get(name) ?? FEATURE_GATES[name].default;
  }
}

/** The flag's help, listing the gates as kube-apiserver's does. */
export function featureGatesHelp(): string {
  const options = Object.entries(FEATURE_GATES).map(([name, spec]) => `${name}=true|false (${spec.stage} - default=${spec.default})`);
  return `A set of key=value pairs that describe feature gates for alpha/experimental features. Options are: ${options.join(', ')}`;
}
