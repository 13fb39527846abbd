/**
 * A whole number with thousands separators, exactly as `n.toLocaleString('en-US')` writes it
 * (`12,345`, `-1,000`), without `Intl`: the first `toLocaleString` of a process loads locale
 * data (tens of milliseconds), which a first compaction would pay for its notes, stubs and
 * summary header. Other numbers (fractions, -0, beyond 2^53) are left to `toLocaleString`.
 *
 * @param n The number.
 * @returns Its en-US text.
 */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  let text = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let at = text.length; at < digits.length; at += 3) text += `,${digits.slice(at, at + 3)}`;
  return n < 0 ? `-${text}` : text;
}
