/**
 * BPE merges a pre-token in time quadratic in its length: a 40,000-character run of one letter
 * took 1.4 s to count and a 1 MB one never finished (MSG-4: "a 50 MB message" must not hang).
 * Natural text never has such runs (words, numbers and punctuation split it into short
 * pre-tokens); pathological input does (`'a'.repeat(1e6)`, a wall of spaces). So runs of one
 * character class longer than {@link MAX_RUN_CHARS} are counted in pieces of that size, which
 * makes counting linear and changes the count by at most a token or two per cut.
 */

/**
 * Longest run of one character class counted in one piece. 512 is where cutting 400,000
 * letters into pieces was cheapest (0.9 s against 2.7 s at 4,096), and the count moved by
 * 0.05 %.
 */
export const MAX_RUN_CHARS = 512;

/** 0 whitespace, 1 digit, 2 ASCII punctuation, 3 anything else (letters, marks, non-ASCII). */
function charClass(code: number): number {
  if (code === 32 || (code >= 9 && code <= 13)) return 0;
  if (code >= 48 && code <= 57) return 1;
  if (code < 128 && !((code >= 65 && code <= 90) || (code >= 97 && code <= 122))) return 2;
  return 3;
}

/**
 * `text` cut inside every run of one character class longer than `max` (never between the
 * two halves of a surrogate pair), or undefined when it has no such run (then count it whole:
 * the count is exact). One pass, `charCodeAt` only.
 */
export function splitLongRuns(text: string, max = MAX_RUN_CHARS): string[] | undefined {
  if (text.length <= max) return undefined;
  let runClass = -1;
  let runStart = 0;
  let cuts: number[] | undefined;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const kind = charClass(code);
    if (kind !== runClass) {
      runClass = kind;
      runStart = i;
    } else if (i - runStart >= max && !(code >= 0xdc00 && code <= 0xdfff)) {
      cuts ??= [];
      cuts.push(i);
      runStart = i;
    }
  }
  if (cuts === undefined) return undefined;
  const pieces: string[] = [];
  let from = 0;
  for (const cut of cuts) {
    pieces.push(text.slice(from, cut));
    from = cut;
  }
  pieces.push(text.slice(from));
  return pieces;
}
