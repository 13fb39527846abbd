import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { randomBase64 } from '../../test/fixtures/tokens/random-base64.ts';
import { referenceCount } from '../../test/tokens/reference-tokenizer.ts';
import { type BpeRanks, decodeBpeRanks, encodeBpeRanks } from './bpe-ranks.ts';
import { countBytePairs, MERGE_WINDOWS, type MergeWindows, SCAN_MERGE_MAX_BYTES } from './byte-pair-count.ts';
import type { EncodingName } from './encodings.ts';

const ranksOf = (name: EncodingName) =>
  decodeBpeRanks(readFileSync(new URL(`../../data/encoding/${name}.bpe`, import.meta.url)), name);

const require = createRequire(import.meta.url);
const lite = require('tiktoken/lite') as {
  Tiktoken: new (
    ranks: string,
    special: Record<string, number>,
    pattern: string,
  ) => { encode(text: string, allowed: string[], disallowed: string[]): Uint32Array };
};

/**
 * tiktoken merging a whole text as one piece: its ranks are the encoding's file (one line
 * `! <first rank> <base64 of each token>…` per run of consecutive ranks) and its pattern matches
 * everything, so any piece — base64 with `+` and `/`, mixed case — is compared, not only those
 * the encoding's own pattern keeps whole.
 */
function wholePieceReference(ranks: BpeRanks): (piece: string) => number {
  const lines: string[] = [];
  let run: string[] = [];
  let first = 0;
  for (let rank = 0; rank <= ranks.size; rank++) {
    const bytes = rank < ranks.size ? ranks.tokenBytes(rank) : undefined;
    if (bytes === undefined) {
      if (run.length > 0) lines.push(`! ${first} ${run.join(' ')}`);
      run = [];
      continue;
    }
    if (run.length === 0) first = rank;
    run.push(Buffer.from(bytes).toString('base64'));
  }
  const encoder = new lite.Tiktoken(lines.join('\n'), {}, '(?s:.+)');
  return (piece) => encoder.encode(piece, [], []).length;
}

/** Deterministic random text over an alphabet (seeded like bench/tokens.ts). */
function randomOver(alphabet: readonly string[], length: number, seed: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    seed = Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5;
    out += alphabet[(seed >>> 8) % alphabet.length];
  }
  return out;
}

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

  // Issue 19: pieces over MERGE_WINDOWS.fromBytes merge a window at a time, each window's pair
  // across its start checked, back-offs and a whole-piece merge when a check fails. Tiny
  // windows put hundreds of window starts into pieces tiktoken merges quickly; the counts must
  // not move whatever the windows.
  const letters = [...'abcdefghijklmnopqrstuvwxyz'];
  const anyPiece = fc.oneof(
    fc.string({ unit: fc.constantFrom(...letters), minLength: 1, maxLength: 2500 }),
    fc.string({
      unit: fc.constantFrom(...letters, ...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'),
      minLength: 1,
      maxLength: 2500,
    }),
    fc.string({
      unit: fc.constantFrom('中', '文', '字', '符', '𠀋', 'の', '한', 'й'),
      minLength: 1,
      maxLength: 800,
    }),
    fc.string({ unit: fc.constantFrom(...'=-*#~.,;:!?()[]{}<>/\\|'), minLength: 1, maxLength: 2500 }),
    fc
      .tuple(fc.integer({ min: 1, max: 2500 }), fc.integer())
      .map(([length, seed]) => randomBase64(length + (seed & 3)).slice(seed & 3)),
    fc
      .tuple(
        fc.constantFrom('x', '=', 'ab', ' ', '0', 'é', '中', '🧪', 'aab'),
        fc.integer({ min: 1, max: 1200 }),
      )
      .map(([unit, n]) => unit.repeat(n)),
  );
  const smallWindows = fc.record({
    fromBytes: fc.integer({ min: 0, max: 200 }),
    windowBytes: fc.integer({ min: 1, max: 600 }),
    marginBytes: fc.integer({ min: 0, max: 300 }),
  });

  for (const name of ['o200k_base', 'cl100k_base', 'claude'] as const) {
    it(`${name}: any piece, merged whole or window by window, counts as tiktoken merging it whole (property)`, () => {
      const ranks = ranksOf(name);
      const expected = wholePieceReference(ranks);
      fc.assert(
        fc.property(anyPiece, smallWindows, (piece, windows) => {
          // A piece that is itself a token never reaches countBytePairs (encodings.ts).
          fc.pre(ranks.rankOf(piece, 0, piece.length) === -1);
          const want = expected(piece);
          expect(countBytePairs(piece, ranks)).toBe(want);
          expect(countBytePairs(piece, ranks, windows)).toBe(want);
        }),
        { numRuns: 120 },
      );
    });

    it(`${name}: pieces longer than the default windows' threshold count as tiktoken merging them whole`, () => {
      const ranks = ranksOf(name);
      const expected = wholePieceReference(ranks);
      const length = MERGE_WINDOWS.fromBytes + 700;
      const pieces = [
        randomOver(letters, length, 19),
        randomOver([...letters, ...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'], length, 7),
        randomBase64(length),
        randomOver([...'中文字符の한'], Math.ceil(length / 3), 3),
        'x'.repeat(length),
      ];
      for (const piece of pieces) {
        const stats = { windows: 0, backoffs: 0, wholePieces: 0 };
        expect(countBytePairs(piece, ranks, { ...MERGE_WINDOWS, stats })).toBe(expected(piece));
        expect(stats.windows).toBeGreaterThan(1);
      }
    });

    it(`${name}: pieces of 60,000–200,000 bytes count the same by windows as in one queue`, () => {
      const ranks = ranksOf(name);
      const oneQueue: MergeWindows = { ...MERGE_WINDOWS, fromBytes: Number.POSITIVE_INFINITY };
      for (const piece of [
        randomOver(letters, 200_000, 23),
        randomBase64(200_000),
        '='.repeat(200_001),
        randomOver(['ab', 'ba', 'a', 'é', 'ü'], 60_000, 5),
      ])
        expect(countBytePairs(piece, ranks)).toBe(countBytePairs(piece, ranks, oneQueue));
    });
  }

  /** Ranks from a list of tokens (rank = index) over the letters a, b, c. */
  const vocabularyRanks = (tokens: readonly string[]) =>
    decodeBpeRanks(
      encodeBpeRanks(new Map(tokens.map((token, rank) => [rank, new TextEncoder().encode(token)]))),
      'random',
    );

  // Random vocabularies rank tokens anyhow, so BPE reaches far: window starts that are none of
  // the whole piece's boundaries, failed checks, back-offs and whole-piece merges all happen.
  it('counts as the plain scan does with random vocabularies and tiny windows (property)', () => {
    const vocabulary = fc.uniqueArray(
      fc.string({ unit: fc.constantFrom('a', 'b', 'c'), minLength: 2, maxLength: 6 }),
      { minLength: 3, maxLength: 40 },
    );
    fc.assert(
      fc.property(
        vocabulary,
        fc.string({ unit: fc.constantFrom('a', 'b', 'c'), minLength: 65, maxLength: 300 }),
        fc.record({
          fromBytes: fc.constant(0),
          windowBytes: fc.integer({ min: 1, max: 40 }),
          marginBytes: fc.integer({ min: 0, max: 30 }),
        }),
        (tokens, piece, windows) => {
          const all = ['a', 'b', 'c', ...tokens];
          const want = scanCount(piece, new Map(all.map((token, rank) => [token, rank])));
          expect(countBytePairs(piece, vocabularyRanks(all), windows)).toBe(want);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a failed check backs off to the window before, or merges the whole piece when none is left', () => {
    const scanRanks = (tokens: readonly string[]) => new Map(tokens.map((token, rank) => [token, rank]));
    // `bc` outranks `ab`: "…ababc" ends a|bc, but windows of two bytes keep each "ab" whole; the
    // last one fails its check against "c" with no boundary before it in its window.
    const first = ['a', 'b', 'c', 'bc', 'ab'];
    const piece = `${'ab'.repeat(40)}c`;
    const whole = { windows: 0, backoffs: 0, wholePieces: 0 };
    const tiny: MergeWindows = { fromBytes: 0, windowBytes: 2, marginBytes: 0, stats: whole };
    expect(countBytePairs(piece, vocabularyRanks(first), tiny)).toBe(scanCount(piece, scanRanks(first)));
    expect(scanCount(piece, scanRanks(first))).toBe(41);
    expect(whole).toMatchObject({ backoffs: 1, wholePieces: 1 });
    // Found by search: windows of three keep boundaries that are none of the whole piece's; two
    // checks fail and back off one token each.
    const second = ['a', 'b', 'c', 'cb', 'acb', 'cbca'];
    const text = 'acacacbbcaaacaccbcbccbacacacaacbbbbbbbcccbcacbaaccaaacabaacacaabbcabacbcbca';
    const backoff = { windows: 0, backoffs: 0, wholePieces: 0 };
    expect(
      countBytePairs(text, vocabularyRanks(second), {
        fromBytes: 0,
        windowBytes: 3,
        marginBytes: 0,
        stats: backoff,
      }),
    ).toBe(scanCount(text, scanRanks(second)));
    expect(backoff).toEqual({ windows: 39, backoffs: 2, wholePieces: 0 });
  });

  it('a piece of one byte is one token, of none is none', () => {
    const ranks = ranksOf('claude');
    expect(countBytePairs('', ranks)).toBe(0);
    expect(countBytePairs('q', ranks)).toBe(1);
  });
});
