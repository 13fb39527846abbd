import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { referenceCount } from '../../test/tokens/reference-tokenizer.ts';
import { decodeBpeRanks, encodeBpeRanks } from './bpe-ranks.ts';
import { countBytePairs, SCAN_MERGE_MAX_BYTES } from './byte-pair-count.ts';
import type { EncodingName } from './encodings.ts';

const ranksOf = (name: EncodingName) =>
  decodeBpeRanks(readFileSync(new URL(`../../data/encoding/${name}.bpe`, import.meta.url)), name);

/** The reference merge, plainly: the lowest-ranked adjacent pair, leftmost on a tie, until none. */
function scanCount(piece: string, ranks: ReadonlyMap<string, number>): number {
  const parts = [...piece];
  for (;;) {
    let best = -1;
    let at = -1;
    for (let i = 0; i + 1 < parts.length; i++) {
      const rank = ranks.get(`${parts[i]}${parts[i + 1]}`);
      if (rank !== undefined && (best === -1 || rank < best)) {
        best = rank;
        at = i;
      }
    }
    if (at === -1) return parts.length;
    parts.splice(at, 2, `${parts[at]}${parts[at + 1]}`);
  }
}

describe('countBytePairs merges as tiktoken does (TOK-2), in about linear time on long pieces (TOK-8)', () => {
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

  // Long pieces go through the bucket queue and the pair-rank table (issue 19 §3): one
  // pre-token each in every encoding (lowercase letters, CJK, or punctuation), random over
  // alphabets small enough that pairs repeat and merge far, large enough that ranks vary.
  const longPiece = fc.oneof(
    fc.string({
      unit: fc.constantFrom('a', 'b', 'e', 'n', 'r', 's', 't', 'x', 'ü', 'ß', 'é'),
      minLength: 65,
      maxLength: 3000,
    }),
    fc.string({ unit: fc.constantFrom('a', 'a', 'a', 'b'), minLength: 65, maxLength: 3000 }),
    fc.string({ unit: fc.constantFrom('中', '文', '字', '符', '𠀋', 'の'), minLength: 22, maxLength: 1000 }),
    fc.string({ unit: fc.constantFrom('=', '-', '*', '#', '∑', '~'), minLength: 65, maxLength: 3000 }),
  );

  for (const name of ['o200k_base', 'cl100k_base', 'claude'] as const) {
    it(`${name}: long random pieces count as the reference counts them (property)`, () => {
      const ranks = ranksOf(name);
      const expected = referenceCount(name);
      fc.assert(
        fc.property(longPiece, (piece) => {
          expect(countBytePairs(piece, ranks)).toBe(expected(piece));
        }),
        { numRuns: 150 },
      );
    });
  }

  // Real vocabularies rank a token after its parts; random ones do not, so a pair can join its
  // bucket left of the pairs already there (the side heap) and ranks can fall after a merge.
  it('counts as the plain scan does with random vocabularies (property)', () => {
    const vocabulary = fc.uniqueArray(
      fc.string({ unit: fc.constantFrom('a', 'b', 'c'), minLength: 2, maxLength: 5 }),
      {
        minLength: 3,
        maxLength: 40,
      },
    );
    fc.assert(
      fc.property(
        vocabulary,
        fc.string({ unit: fc.constantFrom('a', 'b', 'c'), minLength: 65, maxLength: 400 }),
        (tokens, piece) => {
          const all = ['a', 'b', 'c', ...tokens];
          const ranks = decodeBpeRanks(
            encodeBpeRanks(new Map(all.map((token, rank) => [rank, new TextEncoder().encode(token)]))),
            'random',
          );
          expect(countBytePairs(piece, ranks)).toBe(
            scanCount(piece, new Map(all.map((token, rank) => [token, rank]))),
          );
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a piece of one byte is one token, of none is none', () => {
    const ranks = ranksOf('claude');
    expect(countBytePairs('', ranks)).toBe(0);
    expect(countBytePairs('q', ranks)).toBe(1);
  });
});
