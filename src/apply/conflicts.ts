/**
 * The 409 kube-apiserver answers for apply conflicts
 * (managedfields/internal conflict.go + errors.NewApplyConflict): one
 * FieldManagerConflict cause per field, and a message that is a single line
 * for one conflict and a per-manager list otherwise.
 */
import { ApiError, type StatusCause } from '../machinery/errors.js';
import { pathToString } from './path.js';
import { parseIdentifier } from './managed.js';
import type { Conflict } from './updater.js';
import { strconvQuote } from '../machinery/go-compat.js';

/** printManager: `"name"`, plus ` with subresource "x"`, plus ` using <apiVersion>` for updaters. */
export function printManager(identifier: string): string {
  const info = parseIdentifier(identifier);
  let s = strconvQuote(info.manager);
  if (info.subresource !== '') s = `${s} with subresource ${strconvQuote(info.subresource)}`;
  // Identifiers never carry a time, so upstream's " at <time>" never shows.
  if (info.operation === 'Update') s = `${s} using ${info.apiVersion}`;
  return s;
}

export function conflictMessage(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 1) {
    const c = conflicts[0] as Conflict;
    return `Apply failed with 1 conflict: conflict with ${printManager(c.manager)}: ${pathToString(c.path)}`;
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const list = byManager.get(c.manager) ?? [];
    list.push(pathToString(c.path));
    byManager.set(c.manager, list);
  }
  const lines: string[] = [];
  for (const manager of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${printManager(manager)}:`);
    for (const p of byManager.get(manager) as string[]) lines.push(`- ${p}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/** NewConflictError: 409 Conflict with one cause per conflicting field. */
export function applyConflictError(conflicts: readonly Conflict[]): ApiError {
  const causes: StatusCause[] = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.manager)}`,
    field: pathToString(c.path),
  }));
  return new ApiError({ message: conflictMessage(conflicts), reason: 'Conflict', details: { causes }, code: 409 });
}
