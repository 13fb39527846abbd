import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { randomBase64 } from '../../test/fixtures/tokens/random-base64.ts';
import { referenceCount, sameUnicodeClasses } from '../../test/tokens/reference-tokenizer.ts';
import { importClaudeCode } from '../messages/claude-code.ts';
import { type EncodingName, loadEncoding, REFERENCE_PATTERNS } from './encodings.ts';

const require = createRequire(import.meta.url);
const names: EncodingName[] = ['o200k_base', 'cl100k_base', 'claude'];

const recordedTexts = (): string[] => {
  const file = new URL('../../test/fixtures/claude-code/tool_heavy.jsonl', import.meta.url);
  const texts: string[] = [];
  for (const message of importClaudeCode(readFileSync(file, 'utf8')).messages) {
    for (const part of message.parts) {
      if (part.type === 'text' || part.type === 'reasoning') texts.push(part.text);
      else if (part.type === 'tool-call') texts.push(part.arguments);
      else if (part.type === 'tool-result')
        for (const inner of part.content) if (inner.type === 'text') texts.push(inner.text);
    }
  }
  return texts;
};

describe('loadEncoding counts what the reference tokenizer (tiktoken) encodes (TOK-2)', () => {
  for (const name of names) {
    it(`${name}: the same count on every text of a recorded agent session`, () => {
      const count = loadEncoding(name);
      const expected = referenceCount(name);
      for (const text of recordedTexts()) expect(count(text)).toBe(expected(text));
    });
  }

  it('the same counts for any text, twice (the piece cache answers the second time) (property)', () => {
    const tricky = fc.constantFrom(
      '<|endoftext|>',
      '<|im_start|>',
      ' constructor',
      '__proto__',
      '  \n\t',
      '\u0085', // NEL: White_Space for the reference, not \s for JavaScript
      '\uFEFF', // the reverse: \s for JavaScript, not White_Space
      '\u00a0\u2028\u3000',
      "'ſ", // long s: the reference's case-insensitive 's
      "'S'LL'Ve",
      '\ud800', // a lone surrogate counts as U+FFFD
    );
    // Characters the reference's Unicode tables class otherwise than this runtime's (assigned
    // since, e.g. U+323B0 in CJK Extension J) are counted by this runtime's Unicode: left out.
    const text = fc
      .array(fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), tricky), {
        maxLength: 8,
      })
      .map((pieces) => pieces.join(''))
      .filter(sameUnicodeClasses);
    expect(sameUnicodeClasses("\u{323B0}'s")).toBe(false);
    for (const name of names) {
      const count = loadEncoding(name);
      const expected = referenceCount(name);
      fc.assert(
        fc.property(text, (value) => {
          const want = expected(value);
          expect(count(value)).toBe(want);
          expect(count(value)).toBe(want);
        }),
        { numRuns: 200 },
      );
    }
  });

  it('U+0085 (NEL) is whitespace as in the reference: " \\x850" is 4 tokens in cl100k (issue 14)', () => {
    expect(loadEncoding('cl100k_base')(' \x850')).toBe(4);
    for (const name of names)
      expect(loadEncoding(name)(' \x850\x85 a')).toBe(referenceCount(name)(' \x850\x85 a'));
  });

  it("the patterns are tiktoken's own, character for character", () => {
    for (const name of ['o200k_base', 'cl100k_base'] as const) {
      const published = require(`tiktoken/encoders/${name}.json`) as { pat_str: string };
      expect(REFERENCE_PATTERNS[name]).toBe(published.pat_str);
    }
  });
});

describe('counting is exact and linear on inputs without pre-token breaks (TOK-8)', () => {
  // Sizes where the reference (quadratic on one long pre-token) still takes well under a second.
  const inputs: Record<string, string> = {
    'repeated letter': 'x'.repeat(12_000),
    'repeated =': '='.repeat(12_000),
    'spaces then a word': `${' '.repeat(12_000)}word`,
    'CJK without punctuation': '中文字符'.repeat(1_000),
    'accented letters': 'é'.repeat(6_000),
    emoji: '🧪'.repeat(2_000),
    'random base64': randomBase64(100_000),
    'mixed run': `${'ab'.repeat(3_000)}${'Ab1'.repeat(2_000)}`,
  };
  for (const name of names) {
    it(`${name}: the same counts as the reference on long runs`, () => {
      const count = loadEncoding(name);
      const expected = referenceCount(name);
      for (const [label, text] of Object.entries(inputs)) expect(count(text), label).toBe(expected(text));
    });
  }

  it('counts a million repeated characters (19 minutes before) as the reference counts its period', () => {
    const count = loadEncoding('o200k_base');
    const expected = referenceCount('o200k_base');
    // A run of one letter merges into the same token over and over: the count scales exactly.
    expect(count('x'.repeat(1_000_000))).toBe(expected('x'.repeat(20_000)) * 50);
  });
});
