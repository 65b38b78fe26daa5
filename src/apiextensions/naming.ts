import type { KubeObject } from '../machinery/object.js';
import { crdSpec, crdStatus, findCondition, type CrdCondition, type CrdNames } from './crd.js';

/**
 * kube's NamingConditionController's decision (apiextensions-apiserver
 * pkg/controller/status): which of a CRD's requested names it may have, given
 * the names other CRDs of its group have been accepted with, and its
 * NamesAccepted and Established conditions.
 */

export interface NamingResult {
  acceptedNames: CrdNames;
  namesAccepted: CrdCondition;
  established: CrdCondition;
}

function inUse(requested: string, accepted: string, used: ReadonlySet<string>): string | undefined {
  if (requested === accepted || !used.has(requested)) return undefined;
  return `${JSON.stringify(requested)} is already in use`;
}

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  // reflect.DeepEqual: nil and empty differ.
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The names every CRD of `group` has been accepted with (its own included, as kube's lister gives them). */
function usedNames(group: string, all: readonly KubeObject[]): { resources: Set<string>; kinds: Set<string> } {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const crd of all) {
    if (crdSpec(crd).group !== group) continue;
    const n = crdStatus(crd).acceptedNames ?? {};
    resources.add(n.plural ?? '');
    resources.add(n.singular ?? '');
    for (const s of n.shortNames ?? []) resources.add(s);
    kinds.add(n.kind ?? '');
    kinds.add(n.listKind ?? '');
  }
  return { resources, kinds };
}

export function calculateNames(crd: KubeObject, all: readonly KubeObject[]): NamingResult {
  const spec = crdSpec(crd);
  const { resources, kinds } = usedNames(spec.group ?? '', all);
  const requested = spec.names ?? {};
  const accepted = crdStatus(crd).acceptedNames ?? {};
  const names: CrdNames = { ...accepted };
  let cond: CrdCondition = { type: 'NamesAccepted', status: 'Unknown' };
  const conflict = (reason: string, message: string): void => {
    cond = { type: 'NamesAccepted', status: 'False', reason, message };
  };

  const plural = inUse(requested.plural ?? '', accepted.plural ?? '', resources);
  if (plural) conflict('PluralConflict', plural);
  else names.plural = requested.plural ?? '';
  const singular = inUse(requested.singular ?? '', accepted.singular ?? '', resources);
  if (singular) conflict('SingularConflict', singular);
  else if (requested.singular !== undefined) names.singular = requested.singular;
  if (!sameList(requested.shortNames, accepted.shortNames)) {
    const mine = new Set(accepted.shortNames ?? []);
    const errs = (requested.shortNames ?? []).filter((s) => !mine.has(s)).flatMap((s) => inUse(s, '', resources) ?? []);
    // utilerrors.NewAggregate: one error alone, several in brackets.
    if (errs.length > 0) conflict('ShortNamesConflict', errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`);
    else if (requested.shortNames !== undefined) names.shortNames = requested.shortNames;
    else delete names.shortNames;
  }
  const kind = inUse(requested.kind ?? '', accepted.kind ?? '', kinds);
  if (kind) conflict('KindConflict', kind);
  else names.kind = requested.kind ?? '';
  const listKind = inUse(requested.listKind ?? '', accepted.listKind ?? '', kinds);
  if (listKind) conflict('ListKindConflict', listKind);
  else if (requested.listKind !== undefined) names.listKind = requested.listKind;
  if (requested.categories !== undefined) names.categories = requested.categories;
  else delete names.categories;

  if (cond.status === 'Unknown') cond = { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };

  // Established stays False until the establishing controller sees the names served.
  let established: CrdCondition = findCondition(crd, 'Established') ?? { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' };
  if (established.status !== 'True' && cond.status === 'True') {
    established = { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' };
  }
  return { acceptedNames: names, namesAccepted: cond, established };
}
