import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadEncoding } from './encodings.ts';
import { MAX_RUN_CHARS, splitLongRuns } from './long-runs.ts';

const require = createRequire(import.meta.url);
/** ai-tokenizer's own count, uncut (the reference for texts without long runs). */
function rawCount(text: string): number {
  const { Tokenizer } = require('ai-tokenizer') as {
    Tokenizer: new (data: unknown) => { encode(text: string, a: string[], b: string[]): number[] };
  };
  const data = require('ai-tokenizer/encoding/o200k_base') as { default?: unknown };
  return new Tokenizer(data.default ?? data).encode(text, [], []).length;
}

describe('long runs are counted in pieces (MSG-4: no quadratic BPE on a 50 MB message)', () => {
  it('leaves text without long runs whole, so its count stays exact', () => {
    const prose = 'The quick brown fox jumps over the lazy dog. '.repeat(200);
    expect(splitLongRuns(prose)).toBeUndefined();
    expect(loadEncoding('o200k_base')(prose)).toBe(rawCount(prose));
    // Base64 and minified JSON are long without spaces but split by class changes.
    const base64 = btoa('x'.repeat(3000));
    expect(splitLongRuns(base64)).toBeUndefined();
  });

  it('cuts runs of one class every MAX_RUN_CHARS characters, losing nothing', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', ' ', '7', '=', 'é', '🧪', 'word '), { maxLength: 40 }),
        fc.integer({ min: 1, max: 3 * MAX_RUN_CHARS }),
        (chunks, repeat) => {
          const text = chunks.map((chunk) => chunk.repeat(repeat)).join('');
          const pieces = splitLongRuns(text);
          if (pieces === undefined) return;
          expect(pieces.join('')).toBe(text);
          for (const piece of pieces) {
            // Never between the halves of a surrogate pair.
            expect(piece.isWellFormed()).toBe(true);
            expect(piece.length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('counts a 1 MB run of one letter (it never finished before), close to the piecewise count', () => {
    const run = 'a'.repeat(1024 * 1024);
    const tokens = loadEncoding('o200k_base')(run);
    const piece = rawCount('a'.repeat(MAX_RUN_CHARS));
    expect(tokens).toBe(piece * ((1024 * 1024) / MAX_RUN_CHARS));
  });
});
