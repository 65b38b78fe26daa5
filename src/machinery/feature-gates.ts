/**
 * Feature gates (`--feature-gates=A=true,B=false`), as kube-apiserver 1.36
 * has them. Every gate name kube-apiserver knows is accepted, with its 1.36
 * stage, default and lock (KUBE_FEATURE_GATES); a gate that changes
 * Capstan's behaviour is also one line in FEATURE_GATES, which is what code
 * may ask about. Any other name is an error, as in kube
 * (`unrecognized feature gate: X`).
 */
import { KUBE_FEATURE_GATES, type KubeFeatureSpec } from './kube-feature-gates.js';

export type FeatureStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

interface FeatureSpec {
  stage: FeatureStage;
  default: boolean;
  lockToDefault?: boolean;
}

export const FEATURE_GATES = {
  // Responses to Accept-Encoding: gzip are compressed (large get and list bodies).
  APIResponseCompression: { stage: 'BETA', default: true },
  // KEP-3926: DELETE with ignoreStoreReadErrorWithClusterBreakingPotential removes objects that cannot be decoded.
  AllowUnsafeMalformedObjectDeletion: { stage: 'ALPHA', default: false },
  // KEP-4222: application/cbor bodies and responses, application/cbor-seq watches, application/apply-patch+cbor.
  CBORServingAndStorage: { stage: 'ALPHA', default: false },
  // KEP-4742: the PodTopologyLabels admission plugin copies a node's topology labels to the pods bound to it.
  PodTopologyLabelsAdmission: { stage: 'BETA', default: true },
  // KEP-4358: Exact and continued lists read the watch cache's snapshots of past states; off, they read the store.
  ListFromCacheSnapshot: { stage: 'BETA', default: true },
  // KEP-3157: watch with sendInitialEvents streams the initial state; off, the parameter is refused.
  WatchList: { stage: 'BETA', default: true },
  // Capstan's validation is hand-written only: these gates are accepted and change nothing (README).
  DeclarativeValidation: { stage: 'BETA', default: true },
  DeclarativeValidationTakeover: { stage: 'BETA', default: false },
  // Locked on in 1.36: selectors reach authorizers, consistent lists come from the cache, authn/authz config files are honoured.
  AuthorizeWithSelectors: { stage: 'GA', default: true, lockToDefault: true },
  ConsistentListFromCache: { stage: 'GA', default: true, lockToDefault: true },
  StructuredAuthenticationConfiguration: { stage: 'GA', default: true, lockToDefault: true },
  StructuredAuthorizationConfiguration: { stage: 'GA', default: true, lockToDefault: true },
  // Alpha DRA device fields: off, ResourceSlice writes drop them unless the stored slice uses them.
  DRANodeAllocatableResources: { stage: 'ALPHA', default: false },
  DRAListTypeAttributes: { stage: 'ALPHA', default: false },
  // Capstan has no egress selector: accepted, no effect.
  StructuredAuthenticationConfigurationEgressSelector: { stage: 'BETA', default: true },
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

/** strconv.ParseBool. */
function parseGoBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

const ALL_ALPHA = 'AllAlpha';
const ALL_BETA = 'AllBeta';

/** One gate as /metrics reports it (kubernetes_feature_enabled). */
export interface FeatureState {
  name: string;
  stage: FeatureStage;
  enabled: boolean;
}

export class FeatureGates {
  private constructor(
    private readonly explicit: ReadonlyMap<string, boolean>,
    /** kube's klog warnings for GA and deprecated gates that were set. */
    readonly warnings: readonly string[] = [],
  ) {}

  /** Every gate at its default. */
  static defaults(): FeatureGates {
    return new FeatureGates(new Map());
  }

  /**
   * The gates after each `--feature-gates` value in turn (later values win, as
   * repeated flags do in kube). Throws FeatureGateError with kube's message.
   */
  static parse(values: readonly string[]): FeatureGates {
    const explicit = new Map<string, boolean>();
    const warnings: string[] = [];
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
      // unsafeSetFromMap: an unknown name ends the check, a locked gate's other value is one more error.
      const errors: string[] = [];
      for (const [name, on] of pairs) {
        const spec = KUBE_FEATURE_GATES.get(name);
        if (!spec) {
          errors.push(`unrecognized feature gate: ${name}`);
          break;
        }
        if (spec.lockToDefault && spec.default !== on) {
          errors.push(`cannot set feature gate ${name} to ${on}, feature is locked to ${spec.default}`);
          continue;
        }
        explicit.set(name, on);
        if (spec.stage === 'DEPRECATED') warnings.push(`Setting deprecated feature gate ${name}=${on}. It will be removed in a future release.`);
        else if (spec.stage === 'GA') warnings.push(`Setting GA feature gate ${name}=${on}. It will be removed in a future release.`);
      }
      // utilerrors.NewAggregate: one error as itself, several as [a, b].
      if (errors.length === 1) throw new FeatureGateError(errors[0]!, value);
      if (errors.length > 1) throw new FeatureGateError(`[${errors.join(', ')}]`, value);
    }
    return new FeatureGates(explicit, warnings);
  }

  enabled(name: FeatureName): boolean {
    return this.enabledByName(name, KUBE_FEATURE_GATES.get(name)!);
  }

  private enabledByName(name: string, spec: KubeFeatureSpec): boolean {
    const set = this.explicit.get(name);
    if (set !== undefined) return set;
    // AllAlpha / AllBeta set every gate of their stage that was not set by name.
    if (spec.stage === 'ALPHA' && name !== ALL_ALPHA) return this.explicit.get(ALL_ALPHA) ?? spec.default;
    if (spec.stage === 'BETA' && name !== ALL_BETA) return this.explicit.get(ALL_BETA) ?? spec.default;
    return spec.default;
  }

  /** Every known gate with its stage and state, sorted by name. */
  all(): FeatureState[] {
    return [...KUBE_FEATURE_GATES].map(([name, spec]) => ({ name, stage: spec.stage, enabled: this.enabledByName(name, spec) }));
  }
}

/** The flag's help, listing the gates as kube-apiserver's does (GA and deprecated ones hidden). */
export function featureGatesHelp(): string {
  const options = [...KUBE_FEATURE_GATES]
    .filter(([, spec]) => spec.stage === 'ALPHA' || spec.stage === 'BETA')
    .map(([name, spec]) => `${name}=true|false (${spec.stage} - default=${spec.default})`)
    .sort();
  return `A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:\n${options.join('\n')}`;
}
