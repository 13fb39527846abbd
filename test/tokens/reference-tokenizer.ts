/**
 * The reference tokenizer for chatfold's counting tests and benchmark: OpenAI's tiktoken (the
 * Rust implementation, compiled to WebAssembly by the `tiktoken` package). For `o200k_base` and
 * `cl100k_base` it brings its own ranks and patterns, so a match checks chatfold's data files,
 * patterns and merging at once; for `claude` it runs Anthropic's pattern over the ranks in
 * `data/encoding/claude.bpe` (their source is recorded in data/encoding/README.md).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { decodeBpeRanks } from '../../src/tokens/bpe-ranks.ts';
import { type EncodingName, REFERENCE_PATTERNS } from '../../src/tokens/encodings.ts';

interface Tiktoken {
  encode(text: string, allowedSpecial?: string[], disallowedSpecial?: string[]): Uint32Array;
}

const require = createRequire(import.meta.url);
const tiktoken = require('tiktoken') as { get_encoding(name: string): Tiktoken };
const lite = require('tiktoken/lite') as {
  Tiktoken: new (ranks: string, special: Record<string, number>, pattern: string) => Tiktoken;
};

/**
 * `data/encoding/<name>.bpe` in tiktoken's text form: per run of consecutive ranks one line
 * `! <first rank> <base64 of each token>…` (another first field makes it panic).
 */
function tiktokenRanks(name: EncodingName): string {
  const ranks = decodeBpeRanks(
    readFileSync(new URL(`../../data/encoding/${name}.bpe`, import.meta.url)),
    name,
  );
  const base64: (string | undefined)[] = [];
  for (let rank = 0; rank < ranks.size; rank++) {
    const bytes = ranks.tokenBytes(rank);
    base64[rank] = bytes === undefined ? undefined : Buffer.from(bytes).toString('base64');
  }
  const lines: string[] = [];
  for (let rank = 0; rank < base64.length; rank++) {
    if (base64[rank] === undefined) continue;
    const first = rank;
    while (base64[rank + 1] !== undefined) rank++;
    lines.push(`! ${first} ${base64.slice(first, rank + 1).join(' ')}`);
  }
  return lines.join('\n');
}

const made = new Map<EncodingName, (text: string) => number>();

/**
 * The reference count of a text: tiktoken's `encode(text).length`, special-token strings as
 * text.
 */
export function referenceCount(name: EncodingName): (text: string) => number {
  let count = made.get(name);
  if (count === undefined) {
    const encoder =
      name === 'claude'
        ? new lite.Tiktoken(tiktokenRanks(name), {}, REFERENCE_PATTERNS.claude)
        : tiktoken.get_encoding(name);
    count = (text) => encoder.encode(text, [], []).length;
    made.set(name, count);
  }
  return count;
}
