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

/** `ai-tokenizer`'s encoding data (its public `Encoding` type): the pre-token pattern and the ranks. */
interface EncodingData {
  readonly pat_str: string;
  readonly stringEncoder: Readonly<Record<string, number>>;
}

/** Pre-tokens of more than one token whose counts are kept (a few MB; cleared when full). */
export const PIECE_CACHE_SIZE = 100_000;

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
  let data: EncodingData;
  try {
    const { Tokenizer } = require('ai-tokenizer') as {
      Tokenizer: new (data: unknown, special?: undefined, mergeCacheSize?: number) => BpeTokenizer;
    };
    const module = require(`ai-tokenizer/encoding/${name}`) as { default?: unknown };
    data = (module.default ?? module) as EncodingData;
    // Its own merge cache evicts by deleting the first key of a full Map (slow once full, like
    // chatfold's old cache): a size of 1 turns it off; the piece counts below are kept instead.
    tokenizer = new Tokenizer(data, undefined, 1);
  } catch (cause) {
    throw new ChatfoldError(
      'E_TOKENIZER',
      `could not load the ${name} encoding from ai-tokenizer; is the package installed?`,
      { encoding: name },
      { cause },
    );
  }
  const noSpecial: string[] = [];
  // Counting, not encoding: split into pre-tokens with the encoding's own pattern; a pre-token
  // in the vocabulary is one token, another is merged once and its count kept. No token array
  // is built per text (in a process holding a long session, garbage is what made counting
  // superlinear), and special-token strings stay ordinary text (TOK-2).
  const pattern = new RegExp(data.pat_str, 'gu');
  const ranks = data.stringEncoder;
  const pieceCounts = new Map<string, number>();
  const countPiece = (piece: string): number => {
    if (typeof ranks[piece] === 'number') return 1;
    let tokens = pieceCounts.get(piece);
    if (tokens === undefined) {
      tokens = tokenizer.encode(piece, noSpecial, noSpecial).length;
      // Bounded with O(1) amortised eviction: recounting a forgotten piece is cheap.
      if (pieceCounts.size >= PIECE_CACHE_SIZE) pieceCounts.clear();
      pieceCounts.set(piece, tokens);
    }
    return tokens;
  };
  const count = (text: string): number => {
    let tokens = 0;
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text))
      tokens += countPiece(match[0]);
    return tokens;
  };
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
