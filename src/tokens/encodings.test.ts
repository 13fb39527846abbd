import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { importClaudeCode } from '../messages/claude-code.ts';
import { type EncodingName, loadEncoding } from './encodings.ts';

const require = createRequire(import.meta.url);
const { Tokenizer } = require('ai-tokenizer') as {
  Tokenizer: new (data: unknown) => { encode(text: string, a: string[], d: string[]): number[] };
};
/** The tokenizer as ai-tokenizer ships it: encode, then the length of the token array. */
const reference = (name: EncodingName) => {
  const module = require(`ai-tokenizer/encoding/${name}`) as { default?: unknown };
  const tokenizer = new Tokenizer(module.default ?? module);
  return (text: string) => tokenizer.encode(text, [], []).length;
};

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

describe('loadEncoding counts what ai-tokenizer encodes (TOK-2)', () => {
  const names: EncodingName[] = ['o200k_base', 'cl100k_base', 'claude'];
  for (const name of names) {
    it(`${name}: the same count as the token array's length, on a recorded agent session`, () => {
      const count = loadEncoding(name);
      const expected = reference(name);
      for (const text of recordedTexts()) expect(count(text)).toBe(expected(text));
    });
  }

  it('the same counts for any text, twice (the piece cache answers the second time) (property)', () => {
    const count = loadEncoding('o200k_base');
    const expected = reference('o200k_base');
    const special = fc.constantFrom(
      '<|endoftext|>',
      '<|im_start|>',
      '<|fim_prefix|>',
      ' constructor',
      '__proto__',
    );
    const text = fc
      .array(
        fc.oneof(
          fc.string({ unit: 'grapheme' }),
          fc.string({ unit: 'binary' }),
          special,
          fc.constant('  \n\t'),
        ),
        {
          maxLength: 8,
        },
      )
      .map((pieces) => pieces.join(''));
    fc.assert(
      fc.property(text, (value) => {
        const want = expected(value);
        expect(count(value)).toBe(want);
        expect(count(value)).toBe(want);
      }),
      { numRuns: 300 },
    );
  });
});
