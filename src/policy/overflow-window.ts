import { DEFAULTS } from '../defaults.ts';
/** What a provider's context-overflow error said (`parseContextOverflow`). */
export interface OverflowNumbers {
  /** The real context limit, when the error names it. */
  readonly limit?: number | undefined;
  /** The prompt's real size, when the error names it. */
  readonly actual?: number | undefined;
}

/**
 * The window to compact against after a provider rejected a prompt as too long (RT-3): the
 * limit the error reported; else, when it reported the prompt's real size, either the same
 * window (`calibrated`: the caller has just calibrated its counter on that size) or the window
 * scaled down by how far `estimate`, chatfold's count of the rejected prompt, was off; else
 * `DEFAULTS.overflowShrink` of it. Never larger than `current`.
 */
export function windowAfterOverflow(
  current: number,
  overflow: OverflowNumbers,
  { estimate, calibrated = false }: { readonly estimate?: number; readonly calibrated?: boolean } = {},
): number {
  const { limit, actual } = overflow;
  if (limit !== undefined && limit > 0) return Math.min(current, limit);
  if (actual !== undefined && actual > 0) {
    if (calibrated) return current;
    if (estimate !== undefined && estimate > 0 && actual > estimate) {
      return Math.floor((current * estimate) / actual);
    }
  }
  return Math.floor(current * DEFAULTS.overflowShrink);
}
