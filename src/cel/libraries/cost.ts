/** A size range (elements of a list or map, characters of a string, bytes). */
export interface SizeEstimate {
  min: number;
  max: number;
}

/** A cost range in kube's cost units. */
export interface CostEstimate {
  min: number;
  max: number;
}

/**
 * Static cost of a Kubernetes library call. Placeholder with the agreed
 * signature (the cel-lib branch's version replaces it): undefined means "not
 * a library function".
 */
export function estimateLibraryCallCost(
  fn: string,
  target: SizeEstimate | undefined,
  args: SizeEstimate[],
): { cost: CostEstimate; resultSize?: SizeEstimate } | undefined {
  void fn;
  void target;
  void args;
  return undefined;
}

/** Runtime cost of a Kubernetes library call; undefined = not a library function. */
export function libraryCallCost(fn: string, target: unknown, args: unknown[], result: unknown): number | undefined {
  void fn;
  void target;
  void args;
  void result;
  return undefined;
}
