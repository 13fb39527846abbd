/** A key as people mistype it: case, `_` and `-` do not matter (`max_input_tokens` ~ `maxInputTokens`). */
const normalise = (key: string): string => key.toLowerCase().replace(/[_-]/g, '');

/** Edit distance (insertions, deletions, substitutions, adjacent swaps), stopping past `limit`. */
function distance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (before[j - 2] as number) + 1);
      }
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * The known key an unknown one was probably meant to be (a typo, another spelling), for
 * "did you mean …?" hints: the same key in another case or with `_`/`-`, else the closest
 * key within a few edits (about one per four characters, at least two).
 *
 * @param unknown The key that was given.
 * @param known The keys accepted there.
 * @returns The suggestion, or `undefined` when nothing is close.
 */
export function closestKey(unknown: string, known: readonly string[]): string | undefined {
  const wanted = normalise(unknown);
  const limit = Math.max(2, Math.floor(wanted.length / 4));
  // A tie goes to the key written in the same style (snake_case for snake_case).
  const isSnake = (key: string): boolean => key.includes('_');
  let best: { key: string; distance: number } | undefined;
  for (const key of known) {
    const found = distance(wanted, normalise(key), limit);
    if (found > limit) continue;
    const isBetter =
      best === undefined ||
      found < best.distance ||
      (found === best.distance &&
        isSnake(key) === isSnake(unknown) &&
        isSnake(best.key) !== isSnake(unknown));
    if (isBetter) best = { key, distance: found };
  }
  return best?.key;
}

/** ` (did you mean X?)`, or nothing. */
export function didYouMean(unknown: string, known: readonly string[]): string {
  const key = closestKey(unknown, known);
  return key === undefined ? '' : ` (did you mean ${key}?)`;
}
