/**
 * Freezes a JSON value in place, deeply, so a store can hand out the rows it keeps without
 * copying them (callers get a `TypeError` if they try to change one).
 *
 * @param value - A parsed or cloned JSON value nobody else holds.
 * @returns The same value, frozen.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
