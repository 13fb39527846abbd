import { readFileSync } from 'node:fs';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { type BpeRanks, decodeBpeRanks } from './bpe-ranks.ts';
import { countBytePairs } from './byte-pair-count.ts';

/** BPE encodings chatfold ships in `data/encoding/` (see its README for sources and licences). */
export type EncodingName = 'o200k_base' | 'cl100k_base' | 'claude';

/** Counts the tokens of a text with one encoding, treating special-token strings as text. */
export type TextEncoder = (text: string) => number;

/**
 * Each encoding's pre-token pattern exactly as its publisher ships it: OpenAI's tiktoken
 * (`o200k_base`, `cl100k_base`) and Anthropic's `claude.json`. {@link toJavaScriptPattern}
 * turns it into the same pattern in JavaScript's syntax.
 */
export const REFERENCE_PATTERNS: Readonly<Record<EncodingName, string>> = {
  o200k_base: String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
  cl100k_base: String.raw`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
  claude: String.raw`'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`,
};

/**
 * A reference pattern (Rust `regex` syntax) as a JavaScript pattern that splits every text the
 * same way:
 * - `\s` is Unicode's White_Space in Rust; JavaScript's `\s` lacks U+0085 (NEL) and adds
 *   U+FEFF, so `" \x850"` was 3 tokens in cl100k instead of 4 (issue 14);
 * - `(?i:…)` needs Node 23's regex modifiers, and Rust's case folding also matches `ſ`
 *   (U+017F, long s) for `s`: the contractions are spelled out.
 *
 * @param pattern - A pattern of {@link REFERENCE_PATTERNS}.
 * @returns The JavaScript source, for the `gu` flags.
 */
export function toJavaScriptPattern(pattern: string): string {
  return pattern
    .replaceAll("(?i:'s|'t|'re|'ve|'m|'ll|'d)", "(?:'[sSſ]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])")
    .replaceAll(String.raw`\s`, String.raw`\p{White_Space}`)
    .replaceAll(String.raw`\S`, String.raw`\P{White_Space}`);
}

/** Merged pre-tokens whose counts are kept (cleared when full: recounting one is cheap). */
export const PIECE_CACHE_SIZE = 100_000;
/** Longer pre-tokens are not kept (a million repeated characters is one pre-token). */
const PIECE_CACHE_MAX_CHARS = 256;

const loaded = new Map<EncodingName, TextEncoder>();

/** Reads `data/encoding/<name>.bpe` (beside `src/` and `dist/` alike). */
function readRanks(name: EncodingName): BpeRanks {
  const file = new URL(`../../data/encoding/${name}.bpe`, import.meta.url);
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file);
  } catch (cause) {
    throw new ChatfoldError(
      'E_TOKENIZER',
      `could not read the ${name} encoding from ${file.pathname}; reinstall chatfold`,
      { encoding: name },
      { cause },
    );
  }
  return decodeBpeRanks(bytes, name);
}

/**
 * Loads an encoding on first use (nothing loads until a counter counts: a short CLI command
 * starts fast, TOK-8) and returns a counting function. Special-token strings such as
 * `<|endoftext|>` count as ordinary text and never throw (TOK-2). Counts are exact for every
 * input and take time linear in its length up to a log factor, also for a million repeated
 * characters (TOK-8, see byte-pair-count.ts).
 *
 * @throws ChatfoldError `E_TOKENIZER` when the encoding's data file is missing or damaged.
 */
export function loadEncoding(name: EncodingName): TextEncoder {
  const cached = loaded.get(name);
  if (cached !== undefined) return cached;
  const ranks = readRanks(name);
  // Counting, not encoding: split into pre-tokens with the encoding's pattern; a pre-token in
  // the vocabulary is one token, another is merged and its count kept. No token array is built
  // (in a process holding a long session that garbage made counting superlinear).
  const pattern = new RegExp(toJavaScriptPattern(REFERENCE_PATTERNS[name]), 'gu');
  const pieceCounts = new Map<string, number>();
  const countPiece = (piece: string): number => {
    if (ranks.rankOf(piece, 0, piece.length) !== -1) return 1;
    if (piece.length > PIECE_CACHE_MAX_CHARS) return countBytePairs(piece, ranks);
    let tokens = pieceCounts.get(piece);
    if (tokens === undefined) {
      tokens = countBytePairs(piece, ranks);
      if (pieceCounts.size >= PIECE_CACHE_SIZE) pieceCounts.clear();
      pieceCounts.set(piece, tokens);
    }
    return tokens;
  };
  const encode: TextEncoder = (text) => {
    if (text.length === 0) return 0;
    // Lone surrogates become U+FFFD, as UTF-8 encoding them does (the reference sees bytes).
    const input = text.isWellFormed() ? text : text.toWellFormed();
    let tokens = 0;
    pattern.lastIndex = 0;
    for (let match = pattern.exec(input); match !== null; match = pattern.exec(input))
      tokens += countPiece(match[0]);
    return tokens;
  };
  loaded.set(name, encode);
  return encode;
}
