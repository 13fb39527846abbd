import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caughtError } from '../test/caught-error.ts';
import { decodeBpeRanks, encodeBpeRanks } from './bpe-ranks.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('.bpe rank files (TOK-2, TOK-8: a compact form that loads fast)', () => {
  it('reads back every token: text ones by their text, partial characters by their bytes', () => {
    const ranks = new Map<number, Uint8Array>([
      [0, bytes('!')],
      [1, bytes(' the')],
      [2, Uint8Array.of(0xe4)], // the first byte of a CJK character: not valid UTF-8 alone
      [3, bytes('中')],
      [5, bytes('\uFEFF')], // a byte order mark is a token like any other, never stripped
      [6, Uint8Array.of(0x00)],
    ]);
    const decoded = decodeBpeRanks(encodeBpeRanks(ranks), 'test');
    expect([...decoded.text]).toEqual([
      ['!', 0],
      [' the', 1],
      ['中', 3],
      ['\uFEFF', 5],
      ['\u0000', 6],
    ]);
    expect([...decoded.bytes]).toEqual([['\u00e4', 2]]);
    expect(decoded.maxTokenBytes).toBeGreaterThanOrEqual(4);
  });

  it('round-trips any ranks (property)', () => {
    const token = fc.uint8Array({ minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(fc.uniqueArray(token, { maxLength: 60, selector: (t) => t.join(',') }), (tokens) => {
        const ranks = new Map(tokens.map((t, rank) => [rank * 2, t] as const));
        const decoded = decodeBpeRanks(encodeBpeRanks(ranks), 'test');
        const back = new Map<number, string>();
        for (const [text, rank] of decoded.text) back.set(rank, Buffer.from(text, 'utf8').toString('hex'));
        for (const [raw, rank] of decoded.bytes) back.set(rank, Buffer.from(raw, 'latin1').toString('hex'));
        expect(back).toEqual(new Map([...ranks].map(([rank, t]) => [rank, Buffer.from(t).toString('hex')])));
        for (const t of tokens) expect(decoded.maxTokenBytes).toBeGreaterThanOrEqual(t.length);
      }),
      { numRuns: 100 },
    );
  });

  it('the shipped files hold the full vocabularies', () => {
    const sizes = { o200k_base: 199_998, cl100k_base: 100_256, claude: 64_995 };
    for (const [name, size] of Object.entries(sizes)) {
      const file = readFileSync(new URL(`../../data/encoding/${name}.bpe`, import.meta.url));
      const ranks = decodeBpeRanks(file, name);
      expect(ranks.text.size + ranks.bytes.size, name).toBe(size);
    }
  });

  it('a damaged file is E_TOKENIZER naming the encoding, not a RangeError', () => {
    const file = encodeBpeRanks(new Map([[0, bytes('a')]]));
    for (const damaged of [file.subarray(0, 10), file.subarray(0, file.length - 1), bytes('not a file')]) {
      const error = caughtError(() => decodeBpeRanks(damaged, 'o200k_base'));
      expect(error.code).toBe('E_TOKENIZER');
      expect(error.message).toContain('o200k_base');
    }
  });
});
