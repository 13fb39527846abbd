/** Lines longer than this are tested on their first this-many characters only (bounds regex time). */
export const MAX_TESTED_LINE = 10_000;

/** A compiled pattern: RE2's `test` (linear time in the line's length). */
export interface LineTest {
  test(input: string): boolean;
}

/** Matching lines of one file: how many in all, and the first few as shown. */
export interface LineMatches {
  readonly total: number;
  /** 1-based line number and the line cut to `lineChars` (with `…`). */
  readonly shown: readonly { readonly line: number; readonly text: string }[];
}

/**
 * Tests each line of a text against a pattern (`search`, AG-2): pure, so it runs in the search
 * worker, off the event loop.
 *
 * @param regex The compiled pattern.
 * @param text The file's text.
 * @param options How many matching lines to keep, and how many characters of each.
 */
export function matchLines(
  regex: LineTest,
  text: string,
  { maxShown, lineChars }: { readonly maxShown: number; readonly lineChars: number },
): LineMatches {
  const lines = text.split('\n');
  const shown: { line: number; text: string }[] = [];
  let total = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (!regex.test(line.length > MAX_TESTED_LINE ? line.slice(0, MAX_TESTED_LINE) : line)) continue;
    total++;
    if (shown.length < maxShown) {
      shown.push({ line: i + 1, text: line.length > lineChars ? `${line.slice(0, lineChars)}…` : line });
    }
  }
  return { total, shown };
}
