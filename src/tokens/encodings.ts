import { createRequire } from 'node:module';
import { ChatfoldError } from '../errors/chatfold-error.ts';

/** BPE encodings chatfold ships through `ai-tokenizer` (measured fastest here, see bench/RESULTS.md). */
export type EncodingName = 'o200k_base' | 'cl100k_base' | 'claude';

/** Counts the tokens of a text with one encoding, treating special-token strings as text. */
export type TextEncoder = (text: string) => number;

interface BpeTokenizer {
  encode(text: string, allowedSpecial?: string[] | 'all', disallowedSpecial?: string[] | 'all'): number[];
}

const require = createRequire(import.meta.url);
const loaded = new Map<EncodingName, TextEncoder>();

/**
 * Loads an encoding on first use (each is 2–4 MB, so nothing loads until a counter needs it)
 * and returns a counting function. Text containing `<|endoftext|>` and other special-token
 * strings is counted as ordinary text and never throws (TOK-2).
 */
export function loadEncoding(name: EncodingName): TextEncoder {
  const cached = loaded.get(name);
  if (cached !== undefined) return cached;
  let tokenizer: BpeTokenizer;
  try {
    const { Tokenizer } = require('ai-tokenizer') as { Tokenizer: new (data: unknown) => BpeTokenizer };
    const data = require(`ai-tokenizer/encoding/${name}`) as { default?: unknown };
    tokenizer = new Tokenizer(data.default ?? data);
  } catch (cause) {
    throw new ChatfoldError(
      'E_TOKENIZER',
      `could not load the ${name} encoding from ai-tokenizer; is the package installed?`,
      { encoding: name },
      { cause },
    );
  }
  const noSpecial: string[] = [];
  const encode: TextEncoder = (text) =>
    text.length === 0 ? 0 : tokenizer.encode(text, noSpecial, noSpecial).length;
  loaded.set(name, encode);
  return encode;
}
