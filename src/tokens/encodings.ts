import { createRequire } from 'node:module';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { splitLongRuns } from './long-runs.ts';

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
 * strings is counted as ordinary text and never throws (TOK-2). Runs of one character class
 * longer than `MAX_RUN_CHARS` are counted in pieces, so counting stays linear (MSG-4).
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
  const count = (text: string): number => tokenizer.encode(text, noSpecial, noSpecial).length;
  const encode: TextEncoder = (text) => {
    if (text.length === 0) return 0;
    // Long runs of one character class would take quadratic time (see long-runs.ts, MSG-4).
    const pieces = splitLongRuns(text);
    if (pieces === undefined) return count(text);
    let total = 0;
    for (const piece of pieces) total += count(piece);
    return total;
  };
  loaded.set(name, encode);
  return encode;
}
