/**
 * The API catalog at run time: which groups, versions and resources this
 * server serves, after `--runtime-config`, with the lookups the request path
 * needs. Built once at startup from src/api/generated/catalog.json.
 */
import { readGeneratedJson } from './files.js';
import {
  parseRuntimeConfig,
  RuntimeConfigError,
  type RuntimeConfigEntry,
  type RuntimeConfigMatcher,
} from './runtime-config.js';
import type { Catalog, GroupInfo, ResourceInfo, Stability, SubresourceInfo, VersionInfo } from './types.js';
import { compareKubeAwareVersions, stabilityOf } from './versions.js';
import type { JsonObject } from '../machinery/json.js';

export { parseRuntimeConfig, RuntimeConfigError, type RuntimeConfigEntry } from './runtime-config.js';

/** groupPriorityMinimum that kube-aggregator gives auto-registered (custom resource) groups. */
export const CUSTOM_GROUP_PRIORITY = 1000;

export interface EnabledVersion {
  group: string;
  version: string;
  /** `v1` for the core group, `<group>/<version>` otherwise. */
  groupVersion: string;
  stability: Stability;
  /** Enabled resources, sorted by name. */
  resources: readonly ResourceInfo[];
}

export interface EnabledGroup {
  name: string;
  priority: number;
  /** Enabled versions, preferred first. */
  versions: readonly EnabledVersion[];
  preferred: EnabledVersion;
}

/**
 * A group-version an extension API server serves through an APIService
 * (kube-aggregator): in discovery, never in the registry. `resources` are the
 * entries of the extension server's APIResourceList once fetched.
 */
export interface AggregatedGroupVersion {
  group: string;
  version: string;
  groupPriority: number;
  versionPriority: number;
  resources?: readonly JsonObject[];
  /** The last discovery fetch failed (or the APIService is unavailable): aggregated discovery marks the version Stale. */
  stale?: boolean;
}

export interface ApiCatalogOptions {
  /** `--runtime-config` value(s) or already parsed entries. */
  runtimeConfig?: string | readonly string[] | Readonly<Record<string, string>> | readonly RuntimeConfigEntry[];
}

let cachedBuiltin: Catalog | undefined;

/** The generated built-in catalog, parsed once per process. Treat it as read-only. */
export function builtinCatalog(): Catalog {
  cachedBuiltin ??= readGeneratedJson<Catalog>('catalog.json');
  return cachedBuiltin;
}

function gvKey(group: string, version: string): string {
  return `${group}/${version}`;
}

function gvrKey(group: string, version: string, resource: string): string {
  return `${group}/${version}/${resource}`;
}

function isEntryList(v: ApiCatalogOptions['runtimeConfig']): v is readonly RuntimeConfigEntry[] {
  return Array.isArray(v) && v.every((e) => typeof e === 'object' && e !== null && 'kind' in e);
}

function matcherApplies(matcher: RuntimeConfigMatcher, stability: Stability): boolean {
  switch (matcher) {
    case 'api/all':
      return true;
    case 'api/ga':
      return stability === 'stable';
    case 'api/beta':
      return stability === 'beta';
    case 'api/alpha':
      return stability === 'alpha';
  }
}

export class ApiCatalog {
  /** Increments whenever the served set changes (custom resources), so callers can drop caches. */
  generation = 0;

  private readonly groupsByName = new Map<string, GroupInfo>();
  private readonly versionEnabled = new Map<string, boolean>();
  private readonly resourceOverride = new Map<string, boolean>();
  private readonly resourceIndex = new Map<string, ResourceInfo>();
  private enabledCache: { generation: number; groups: EnabledGroup[]; byName: Map<string, EnabledGroup> } | undefined;
  private nameIndexCache: { generation: number; index: Map<string, ResourceInfo[]> } | undefined;
  private readonly customDefinitions = new Map<string, Readonly<Record<string, JsonObject>>>();
  private readonly aggregated = new Map<string, AggregatedGroupVersion>();

  /** Loads the generated catalog and applies the options. */
  static load(options: ApiCatalogOptions = {}): ApiCatalog {
    return new ApiCatalog(builtinCatalog(), options);
  }

  constructor(
    readonly data: Catalog,
    options: ApiCatalogOptions = {},
  ) {
    for (const group of data.groups) this.indexGroup(group);
    const rc = options.runtimeConfig;
    if (rc !== undefined) this.applyRuntimeConfig(isEntryList(rc) ? rc : parseRuntimeConfig(rc as string | readonly string[] | Readonly<Record<string, string>>));
  }

  private indexGroup(source: GroupInfo): void {
    // A shallow copy: custom versions may be added later, and the parsed
    // built-in catalog is shared by every instance in the process.
    const group: GroupInfo = { ...source, versions: [...source.versions] };
    this.groupsByName.set(group.name, group);
    for (const v of group.versions) {
      if (!this.versionEnabled.has(gvKey(group.name, v.version))) this.versionEnabled.set(gvKey(group.name, v.version), v.enabledByDefault);
      for (const r of v.resources) this.resourceIndex.set(gvrKey(group.name, v.version, r.name), r);
    }
  }

  /**
   * Applies `--runtime-config` entries the way kube-apiserver does: matchers
   * first (all, ga, beta, alpha), then group/version keys, then single
   * resources, so the more specific key wins. Unknown groups, versions or
   * resources are errors.
   */
  applyRuntimeConfig(entries: readonly RuntimeConfigEntry[]): void {
    const matchers = entries.filter((e): e is Extract<RuntimeConfigEntry, { kind: 'matcher' }> => e.kind === 'matcher');
    if (entries.length === 1 && matchers.length === 1 && matchers[0]?.key === 'api/all' && !matchers[0].enabled) {
      throw new RuntimeConfigError('invalid key with only api/all=false');
    }
    const unknownGroups = new Set<string>();
    for (const e of entries) {
      if (e.kind !== 'matcher' && !this.groupsByName.has(e.group)) unknownGroups.add(e.group === '' ? 'api' : e.group);
    }
    if (unknownGroups.size > 0) throw new RuntimeConfigError(`unknown api groups ${[...unknownGroups].sort().join(',')}`);

    for (const matcher of ['api/all', 'api/ga', 'api/beta', 'api/alpha'] as const) {
      for (const e of matchers) {
        if (e.key !== matcher) continue;
        for (const g of this.groupsByName.values()) {
          for (const v of g.versions) if (matcherApplies(matcher, v.stability)) this.versionEnabled.set(gvKey(g.name, v.version), e.enabled);
        }
      }
    }
    for (const e of entries) {
      if (e.kind !== 'groupVersion') continue;
      this.requireVersion(e.group, e.version);
      this.versionEnabled.set(gvKey(e.group, e.version), e.enabled);
    }
    for (const e of entries) {
      if (e.kind !== 'resource') continue;
      this.requireVersion(e.group, e.version);
      if (!this.resourceIndex.has(gvrKey(e.group, e.version, e.resource))) {
        throw new RuntimeConfigError(`runtime-config key ${e.key}: resource ${e.resource} is not served by ${e.group === '' ? 'v1' : gvKey(e.group, e.version)}`);
      }
      this.resourceOverride.set(gvrKey(e.group, e.version, e.resource), e.enabled);
    }
    this.generation++;
  }

  private requireVersion(group: string, version: string): void {
    const g = this.groupsByName.get(group);
    if (!g?.versions.some((v) => v.version === version)) {
      throw new RuntimeConfigError(`group version ${group === '' ? version : gvKey(group, version)} that has not been registered`);
    }
  }

  // ---------------------------------------------------------------------------
  // Enablement.

  /** Whether a resource is served: its own runtime-config setting, else its version's. */
  isResourceEnabled(group: string, version: string, resource: string): boolean {
    if (!this.resourceIndex.has(gvrKey(group, version, resource))) return false;
    return this.resourceOverride.get(gvrKey(group, version, resource)) ?? this.versionEnabled.get(gvKey(group, version)) ?? false;
  }

  /** A group-version is served when at least one of its resources is. */
  isGroupVersionEnabled(group: string, version: string): boolean {
    return this.enabled().byName.get(group)?.versions.some((v) => v.version === version) ?? false;
  }

  private enabled(): { groups: EnabledGroup[]; byName: Map<string, EnabledGroup> } {
    if (this.enabledCache?.generation === this.generation) return this.enabledCache;
    const groups: EnabledGroup[] = [];
    for (const g of this.groupsByName.values()) {
      const versions: EnabledVersion[] = [];
      for (const v of g.versions) {
        const resources = v.resources.filter((r) => this.isResourceEnabled(g.name, v.version, r.name));
        if (resources.length === 0) continue;
        versions.push({
          group: g.name,
          version: v.version,
          groupVersion: g.name === '' ? v.version : gvKey(g.name, v.version),
          stability: v.stability,
          resources,
        });
      }
      const preferred = versions[0];
      if (preferred) groups.push({ name: g.name, priority: g.priority ?? CUSTOM_GROUP_PRIORITY, versions, preferred });
    }
    groups.sort((a, b) => {
      if (a.name === '') return -1;
      if (b.name === '') return 1;
      if (a.priority !== b.priority) return b.priority - a.priority;
      return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
    });
    this.enabledCache = { generation: this.generation, groups, byName: new Map(groups.map((g) => [g.name, g])) };
    return this.enabledCache;
  }

  /** Served groups in discovery order, the core group (`''`) first. */
  groups(): readonly EnabledGroup[] {
    return this.enabled().groups;
  }

  /** Served named groups (everything under /apis), in discovery order. */
  apiGroups(): readonly EnabledGroup[] {
    return this.enabled().groups.filter((g) => g.name !== '');
  }

  group(name: string): EnabledGroup | undefined {
    return this.enabled().byName.get(name);
  }

  groupVersion(group: string, version: string): EnabledVersion | undefined {
    return this.group(group)?.versions.find((v) => v.version === version);
  }

  // ---------------------------------------------------------------------------
  // Lookups.

  /** A served resource by group, version and plural name. */
  resource(group: string, version: string, name: string): ResourceInfo | undefined {
    return this.isResourceEnabled(group, version, name) ? this.resourceIndex.get(gvrKey(group, version, name)) : undefined;
  }

  /** A known resource whether served or not (e.g. to tell 404 from "disabled"). */
  knownResource(group: string, version: string, name: string): ResourceInfo | undefined {
    return this.resourceIndex.get(gvrKey(group, version, name));
  }

  subresource(group: string, version: string, resource: string, subresource: string): SubresourceInfo | undefined {
    return this.resource(group, version, resource)?.subresources.find((s) => s.name === subresource);
  }

  /** The served resource of a kind in a group-version (kinds are unique within a group-version). */
  resourceForKind(group: string, version: string, kind: string): ResourceInfo | undefined {
    return this.groupVersion(group, version)?.resources.find((r) => r.kind === kind);
  }

  /** Every served resource, every served version, in discovery order. */
  allResources(): ResourceInfo[] {
    return this.groups().flatMap((g) => g.versions.flatMap((v) => [...v.resources]));
  }

  /** Served resources in their group's preferred version only (what `kubectl api-resources` lists). */
  preferredResources(): ResourceInfo[] {
    return this.groups().flatMap((g) => [...g.preferred.resources]);
  }

  private nameIndex(): Map<string, ResourceInfo[]> {
    if (this.nameIndexCache?.generation === this.generation) return this.nameIndexCache.index;
    const index = new Map<string, ResourceInfo[]>();
    const add = (key: string, r: ResourceInfo): void => {
      const k = key.toLowerCase();
      const list = index.get(k);
      if (!list) index.set(k, [r]);
      else if (!list.includes(r)) list.push(r);
    };
    for (const r of this.allResources()) {
      add(r.name, r);
      add(r.singularName, r);
      add(r.kind, r);
      for (const s of r.shortNames) add(s, r);
    }
    this.nameIndexCache = { generation: this.generation, index };
    return index;
  }

  /**
   * Resolves a kubectl-style resource argument: a plural, singular, short name
   * or kind, optionally qualified as `<name>.<group>` or
   * `<name>.<version>.<group>` (`deploy`, `deployments.apps`,
   * `deployment.v1.apps`, `po`). Returns every match, best first: group
   * discovery order, then version preference — the first entry is what kubectl
   * would pick.
   */
  resolve(arg: string): ResourceInfo[] {
    const index = this.nameIndex();
    const candidates: { name: string; group?: string; version?: string }[] = [{ name: arg }];
    const parts = arg.split('.');
    if (parts.length >= 2) candidates.push({ name: parts[0] as string, group: parts.slice(1).join('.') });
    if (parts.length >= 3) candidates.push({ name: parts[0] as string, version: parts[1] as string, group: parts.slice(2).join('.') });

    const found: ResourceInfo[] = [];
    for (const c of candidates) {
      for (const r of index.get(c.name.toLowerCase()) ?? []) {
        if (c.group !== undefined && r.group !== c.group) continue;
        if (c.version !== undefined && r.version !== c.version) continue;
        if (!found.includes(r)) found.push(r);
      }
    }
    const order = new Map(this.groups().map((g, i) => [g.name, i]));
    return found.sort((a, b) => {
      const ga = order.get(a.group) ?? Number.MAX_SAFE_INTEGER;
      const gb = order.get(b.group) ?? Number.MAX_SAFE_INTEGER;
      if (ga !== gb) return ga - gb;
      return compareKubeAwareVersions(b.version, a.version);
    });
  }

  /** The single resource kubectl would act on for `arg`, if any. */
  resolveOne(arg: string): ResourceInfo | undefined {
    return this.resolve(arg)[0];
  }

  // ---------------------------------------------------------------------------
  // Custom resources.

  /**
   * Adds or replaces a served group-version of custom resources (a CRD
   * version). New groups get the priority kube-aggregator gives CRD groups.
   */
  setCustomGroupVersion(groupName: string, version: VersionInfo, priority = CUSTOM_GROUP_PRIORITY): void {
    let group = this.groupsByName.get(groupName);
    if (!group) {
      group = { name: groupName, versions: [], priority };
      this.groupsByName.set(groupName, group);
    }
    const versions = group.versions.filter((v) => v.version !== version.version);
    for (const old of group.versions) {
      if (old.version === version.version) for (const r of old.resources) this.resourceIndex.delete(gvrKey(groupName, old.version, r.name));
    }
    versions.push(version);
    versions.sort((a, b) => compareKubeAwareVersions(b.version, a.version));
    group.versions = versions;
    this.versionEnabled.set(gvKey(groupName, version.version), true);
    for (const r of version.resources) this.resourceIndex.set(gvrKey(groupName, version.version, r.name), r);
    this.generation++;
  }

  /**
   * Serves one more resource in a group-version, creating either as needed
   * (resources added at run time; the Registry calls this). `definitions`
   * are the OpenAPI definitions the resource's schema adds.
   */
  addCustomResource(info: ResourceInfo, definitions: Readonly<Record<string, JsonObject>> = {}): void {
    const existing = this.groupsByName.get(info.group)?.versions.find((v) => v.version === info.version);
    const resources = [...(existing?.resources ?? []).filter((r) => r.name !== info.name), info].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.customDefinitions.set(gvrKey(info.group, info.version, info.name), definitions);
    this.setCustomGroupVersion(info.group, {
      version: info.version,
      stability: existing?.stability ?? stabilityOf(info.version),
      enabledByDefault: true,
      resources,
    });
  }

  /** Stops serving a resource added with addCustomResource (and its version and group once empty). */
  removeCustomResource(group: string, version: string, name: string): void {
    const existing = this.groupsByName.get(group)?.versions.find((v) => v.version === version);
    if (!existing?.resources.some((r) => r.name === name)) return;
    this.customDefinitions.delete(gvrKey(group, version, name));
    const resources = existing.resources.filter((r) => r.name !== name);
    if (resources.length === 0) this.removeCustomGroupVersion(group, version);
    else this.setCustomGroupVersion(group, { ...existing, resources });
  }

  /** OpenAPI definitions of the resources added at run time, by definition name. */
  definitionsAdded(): Record<string, JsonObject> {
    const out: Record<string, JsonObject> = {};
    for (const defs of this.customDefinitions.values()) Object.assign(out, defs);
    return out;
  }

  removeCustomGroupVersion(groupName: string, version: string): void {
    const group = this.groupsByName.get(groupName);
    if (!group) return;
    const old = group.versions.find((v) => v.version === version);
    if (!old) return;
    for (const r of old.resources) this.resourceIndex.delete(gvrKey(groupName, version, r.name));
    group.versions = group.versions.filter((v) => v.version !== version);
    this.versionEnabled.delete(gvKey(groupName, version));
    if (group.versions.length === 0) this.groupsByName.delete(groupName);
    this.generation++;
  }

  // ---------------------------------------------------------------------------
  // Group-versions of extension API servers (APIServices with a service).

  /** Adds or replaces a group-version served by an extension API server. */
  setAggregatedGroupVersion(gv: AggregatedGroupVersion): void {
    const key = gvKey(gv.group, gv.version);
    const before = this.aggregated.get(key);
    this.aggregated.set(key, gv);
    // Discovery is read again every 30 s: only a change moves the generation (and the discovery ETag).
    if (!before || JSON.stringify(before) !== JSON.stringify(gv)) this.generation++;
  }

  removeAggregatedGroupVersion(group: string, version: string): void {
    if (this.aggregated.delete(gvKey(group, version))) this.generation++;
  }

  aggregatedGroupVersion(group: string, version: string): AggregatedGroupVersion | undefined {
    return this.aggregated.get(gvKey(group, version));
  }

  aggregatedGroupVersions(): readonly AggregatedGroupVersion[] {
    return [...this.aggregated.values()];
  }
}
