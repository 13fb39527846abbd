import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { referenceCount } from '../../test/tokens/reference-tokenizer.ts';
import { decodeBpeRanks } from './bpe-ranks.ts';
import { countBytePairs, SCAN_MERGE_MAX_BYTES } from './byte-pair-count.ts';
import type { EncodingName } from './encodings.ts';

const ranksOf = (name: EncodingName) =>
  decodeBpeRanks(readFileSync(new URL(`../../data/encoding/${name}.bpe`, import.meta.url)), name);

describe('countBytePairs merges as tiktoken does (TOK-2), in n log n on long pieces (TOK-8)', () => {
  // Runs of one of these make one pre-token in o200k_base: the reference merges the same piece.
  const units = ['x', 'ab', 'é', '中', '🧪', 'ſ', '=', '=-', '∑'];

  it('the same count as the reference on both sides of the scan/heap threshold (property)', () => {
    const ranks = ranksOf('o200k_base');
    const expected = referenceCount('o200k_base');
    fc.assert(
      fc.property(
        fc.constantFrom(...units),
        fc.integer({ min: 1, max: 4 * SCAN_MERGE_MAX_BYTES }),
        (unit, n) => {
          const piece = unit.repeat(n);
          expect(countBytePairs(piece, ranks)).toBe(expected(piece));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('merges a lowercase run of mixed letters like the reference (property)', () => {
    const ranks = ranksOf('cl100k_base');
    const expected = referenceCount('cl100k_base');
    const word = fc.string({
      unit: fc.constantFrom('a', 'b', 'e', 'n', 'r', 's', 't', 'ü', 'ß'),
      minLength: 2,
      maxLength: 400,
    });
    fc.assert(
      fc.property(word, (piece) => {
        expect(countBytePairs(piece, ranks)).toBe(expected(piece));
      }),
      { numRuns: 200 },
    );
  });

  it('a piece of one byte is one token, of none is none', () => {
    const ranks = ranksOf('claude');
    expect(countBytePairs('', ranks)).toBe(0);
    expect(countBytePairs('q', ranks)).toBe(1);
  });
});
