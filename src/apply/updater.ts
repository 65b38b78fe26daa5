/**
 * The ownership engine (structured-merge-diff merge.Updater): Update records
 * what a non-apply write changed; Apply merges an applied configuration,
 * prunes what the applier stopped applying and nobody else owns, and detects
 * conflicts with other managers.
 *
 * Every manager's set is read in the one version we serve; upstream converts
 * objects to each manager's recorded apiVersion first (see the module
 * README note in index.ts).
 */
import { FieldSet } from './fieldset.js';
import type { Path } from './path.js';
import type { TypeRef } from './schema.js';
import { type Comparison, compare, ensureNamedFieldsAreMembers, formatValidationErrors, merge, removeItems, toFieldSet } from './typed.js';
import { type JsonValue, valuesEqual } from './value.js';

export interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  /** Whether the entry comes from an apply (operation Apply). */
  readonly applied: boolean;
}

/** Manager identifier → the fields it owns. */
export type ManagedSets = Map<string, VersionedSet>;

export interface Conflict {
  readonly manager: string;
  readonly path: Path;
}

/** merge.Conflicts: an apply would change fields owned by other managers. */
export class ConflictsError extends Error {
  constructor(readonly conflicts: readonly Conflict[]) {
    super(`${conflicts.length} conflicts`);
    this.name = 'ConflictsError';
  }
}

/** A failure of the merge machinery itself (upstream returns it as a plain error: 500). */
export class MergeError extends Error {}

export interface UpdaterOptions {
  /** Fields never tracked for this version (kube's reset fields, e.g. status on the main resource). */
  readonly ignored?: FieldSet;
}

export class Updater {
  constructor(
    private readonly type: TypeRef,
    private readonly opts: UpdaterOptions = {},
  ) {}

  private filter(set: FieldSet): FieldSet {
    return this.opts.ignored ? set.recursiveDifference(this.opts.ignored) : set;
  }

  private compareFiltered(a: JsonValue, b: JsonValue): Comparison {
    const c = compare(a, b, this.type);
    if (!this.opts.ignored) return c;
    return { removed: this.filter(c.removed), modified: this.filter(c.modified), added: this.filter(c.added) };
  }

  /** update(): conflicts and removals for every manager but the acting one. */
  private update(oldObj: JsonValue, newObj: JsonValue, managers: ManagedSets, workflow: string, force: boolean): Comparison {
    const c = this.compareFiltered(oldObj, newObj);
    const changed = c.modified.union(c.added);
    const conflicts = new Map<string, FieldSet>();
    for (const [manager, vs] of managers) {
      if (manager === workflow) continue;
      const cs = vs.set.intersection(changed);
      if (!cs.empty()) conflicts.set(manager, cs);
    }
    if (!force && conflicts.size > 0) {
      const list: Conflict[] = [];
      // Upstream walks a Go map; sorted managers keep the order stable.
      for (const manager of [...conflicts.keys()].sort()) {
        for (const path of (conflicts.get(manager) as FieldSet).paths()) list.push({ manager, path });
      }
      throw new ConflictsError(list);
    }
    for (const [manager, cs] of conflicts) {
      const vs = managers.get(manager) as VersionedSet;
      managers.set(manager, { ...vs, set: vs.set.difference(cs) });
    }
    if (!c.removed.empty()) {
      for (const [manager, vs] of managers) {
        if (manager === workflow) continue;
        managers.set(manager, { ...vs, set: vs.set.difference(c.removed) });
      }
    }
    for (const [manager, vs] of [...managers]) if (vs.set.empty()) managers.delete(manager);
    return c;
  }

  /** Update: managers after a non-apply write from live to next by `manager`. */
  updateManagers(live: JsonValue, next: JsonValue, version: string, managers: ManagedSets, manager: string): ManagedSets {
    const out = new Map(managers);
    const c = this.update(live, next, out, manager, true);
    const prev = out.get(manager)?.set ?? new FieldSet();
    const set = this.filter(prev.difference(c.removed).union(c.modified).union(c.added));
    if (set.empty()) out.delete(manager);
    else out.set(manager, { set, apiVersion: version, applied: false });
    return out;
  }

  /**
   * Apply: the merged object (undefined when it equals live: a no-op) and the
   * managers afterwards. Throws ConflictsError unless force.
   */
  apply(live: JsonValue, config: JsonValue, version: string, managers: ManagedSets, manager: string, force: boolean): { object: JsonValue | undefined; managers: ManagedSets } {
    const out = new Map(managers);
    const merged = merge(live, config, this.type);
    if (merged.errors.length > 0) throw new MergeError(`failed to merge config: ${formatValidationErrors(merged.errors)}`);
    let next: JsonValue = merged.value ?? null;
    const lastSet = out.get(manager);
    const set = this.filter(toFieldSet(config, this.type));
    out.set(manager, { set, apiVersion: version, applied: true });
    next = this.prune(next, out, lastSet);
    this.update(live, next, out, manager, force);
    return { object: valuesEqual(live, next) ? undefined : next, managers: out };
  }

  private enfam(set: FieldSet): FieldSet {
    return ensureNamedFieldsAreMembers(set, this.type);
  }

  /**
   * prune: removes what the applier applied last time but not this time,
   * unless another manager (or the new configuration) owns it; only the
   * applier's formerly owned items go.
   */
  private prune(merged: JsonValue, managers: ManagedSets, lastSet: VersionedSet | undefined): JsonValue {
    if (lastSet === undefined || lastSet.set.empty()) return merged;
    let pruned = removeItems(merged, this.enfam(lastSet.set), this.type);
    // addBackOwnedItems
    let managed = new FieldSet();
    for (const vs of managers.values()) managed = managed.union(vs.set);
    const mergedSet = this.enfam(toFieldSet(merged, this.type));
    const prunedSet = this.enfam(toFieldSet(pruned, this.type));
    pruned = removeItems(merged, mergedSet.difference(prunedSet.union(this.enfam(managed))), this.type);
    // addBackDanglingItems
    const prunedSet2 = this.enfam(toFieldSet(pruned, this.type));
    return removeItems(merged, mergedSet.difference(prunedSet2).intersection(this.enfam(lastSet.set)), this.type);
  }
}

/** Convenience for tests and callers: the field set of a value. */
export function fieldSetOf(value: JsonValue, type: TypeRef): FieldSet {
  return toFieldSet(value, type);
}
