import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caughtError } from '../test/caught-error.ts';
import { type BpeRanks, decodeBpeRanks, encodeBpeRanks } from './bpe-ranks.ts';

const bytes = (text: string) => new TextEncoder().encode(text);
const hex = (token: Uint8Array | undefined) =>
  token === undefined ? undefined : Buffer.from(token).toString('hex');
const tokensOf = (ranks: BpeRanks) =>
  new Map(
    Array.from({ length: ranks.size }, (_, rank) => [rank, hex(ranks.tokenBytes(rank))] as const).filter(
      ([, token]) => token !== undefined,
    ),
  );

describe('.bpe rank files (TOK-2, TOK-8: the file is the lookup table, so it loads at once)', () => {
  it('finds text tokens by a range of any string, partial characters by their bytes', () => {
    const ranks = new Map<number, Uint8Array>([
      [0, bytes('!')],
      [1, bytes(' the')],
      [2, Uint8Array.of(0xe4)], // the first byte of a CJK character: not valid UTF-8 alone
      [3, bytes('中')],
      [5, bytes('\uFEFF')], // a byte order mark is a token like any other, never stripped
      [6, Uint8Array.of(0x00)],
    ]);
    const decoded = decodeBpeRanks(encodeBpeRanks(ranks), 'test');
    expect(decoded.rankOf('say the word', 3, 7)).toBe(1);
    expect(decoded.rankOf('say the word', 3, 6)).toBe(-1);
    expect(decoded.rankOf('中', 0, 1)).toBe(3);
    expect(decoded.rankOf('\uFEFF', 0, 1)).toBe(5);
    expect(decoded.rankOf('\u0000', 0, 1)).toBe(6);
    expect(decoded.rankOfBytes('\u00e4')).toBe(2);
    expect(decoded.rankOfBytes('\u00e5')).toBe(-1);
    expect(decoded.tokenBytes(4)).toBeUndefined();
    expect(decoded.size).toBe(7);
    expect(decoded.maxTokenBytes).toBe(4);
    expect(tokensOf(decoded)).toEqual(new Map([...ranks].map(([rank, token]) => [rank, hex(token)])));
  });

  it('round-trips any ranks and finds every text token (property)', () => {
    const token = fc.uint8Array({ minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(fc.uniqueArray(token, { maxLength: 60, selector: (t) => t.join(',') }), (tokens) => {
        const ranks = new Map(tokens.map((t, rank) => [rank * 2, t] as const));
        const decoded = decodeBpeRanks(encodeBpeRanks(ranks), 'test');
        expect(tokensOf(decoded)).toEqual(new Map([...ranks].map(([rank, t]) => [rank, hex(t)])));
        for (const [rank, t] of ranks) {
          const text = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(t);
          const isText = hex(new TextEncoder().encode(text)) === hex(t);
          if (isText) expect(decoded.rankOf(`<${text}>`, 1, text.length + 1)).toBe(rank);
          else expect(decoded.rankOfBytes(Buffer.from(t).toString('latin1'))).toBe(rank);
          expect(decoded.maxTokenBytes).toBeGreaterThanOrEqual(t.length);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('the shipped files hold the full vocabularies', () => {
    const sizes = { o200k_base: 199_998, cl100k_base: 100_256, claude: 64_995 };
    for (const [name, size] of Object.entries(sizes)) {
      const ranks = decodeBpeRanks(
        readFileSync(new URL(`../../data/encoding/${name}.bpe`, import.meta.url)),
        name,
      );
      expect(tokensOf(ranks).size, name).toBe(size);
    }
  });

  it('a damaged file is E_TOKENIZER naming the encoding, not a RangeError or a hang', () => {
    const file = encodeBpeRanks(new Map([[0, bytes('a')]]));
    const fullTable = file.slice();
    // Every slot of the 16-slot table (after the 32-byte header and two offsets) taken.
    for (let slot = 0; slot < 16; slot++) new DataView(fullTable.buffer).setInt32(40 + slot * 4, 0, true);
    const unaligned = new Uint8Array(file.length + 1).subarray(1);
    unaligned.set(file);
    expect(decodeBpeRanks(unaligned, 'o200k_base').rankOf('a', 0, 1)).toBe(0);
    for (const damaged of [
      file.subarray(0, 10),
      file.subarray(0, file.length - 1),
      bytes('not a file'),
      fullTable,
    ]) {
      const error = caughtError(() => decodeBpeRanks(damaged, 'o200k_base'));
      expect(error.code).toBe('E_TOKENIZER');
      expect(error.message).toContain('o200k_base');
    }
  });

  // Issue 19: long pieces look pairs up through a Bloom filter of the token texts; a filter
  // never says no to a token (no false negatives), and lets through what the table decides.
  it('rankOfMostlyAbsent finds every token text of the shipped files, and answers as rankOf does', () => {
    for (const name of ['o200k_base', 'cl100k_base', 'claude']) {
      const ranks = decodeBpeRanks(
        readFileSync(new URL(`../../data/encoding/${name}.bpe`, import.meta.url)),
        name,
      );
      const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
      let texts = 0;
      for (let rank = 0; rank < ranks.size; rank++) {
        const token = ranks.tokenBytes(rank);
        if (token === undefined) continue;
        let text: string;
        try {
          text = decoder.decode(token);
        } catch {
          continue; // a raw token (part of a character): looked up by its bytes
        }
        texts++;
        const padded = `«${text}»`;
        if (ranks.rankOfMostlyAbsent(padded, 1, 1 + text.length) !== rank)
          expect(ranks.rankOfMostlyAbsent(padded, 1, 1 + text.length), `${name} ${rank}`).toBe(rank);
      }
      expect(texts, name).toBeGreaterThan(60_000);
      fc.assert(
        fc.property(
          fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz =_中é'), maxLength: 12 }),
          (text) => {
            expect(ranks.rankOfMostlyAbsent(text, 0, text.length)).toBe(ranks.rankOf(text, 0, text.length));
          },
        ),
        { numRuns: 2000 },
      );
    }
  });

  it('rankOfMostlyAbsent on a small vocabulary: the filter lets no token through unseen', () => {
    const ranks = decodeBpeRanks(
      encodeBpeRanks(
        new Map(['a', 'b', 'ab', 'abc', 'bca', '中', 'x'.repeat(40)].map((t, r) => [r, bytes(t)])),
      ),
      'test',
    );
    for (const [text, rank] of [
      ['ab', 2],
      ['abc', 3],
      ['bca', 4],
      ['中', 5],
      ['x'.repeat(40), 6],
      ['ba', -1],
      ['abcd', -1],
      ['', -1],
    ] as const)
      expect(ranks.rankOfMostlyAbsent(`[${text}]`, 1, 1 + text.length)).toBe(rank);
  });
});
