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

/**
 * The character classes chatfold's patterns use whose members depend on the Unicode version.
 * `\s` is left out on purpose: chatfold follows the reference's White_Space (NEL, U+FEFF), not
 * JavaScript's, and the tests check that.
 */
const VERSIONED_CLASSES = ['L', 'Lu', 'Ll', 'Lt', 'Lm', 'Lo', 'M', 'N'] as const;

/** Per class: does tiktoken's regex (its own Unicode tables) match the character? */
let tiktokenClasses: ((character: string) => boolean)[] | undefined;
const classified = new Map<number, boolean>();

/**
 * Whether every character of `text` belongs to the same Unicode classes for tiktoken's regex
 * as for this Node's (Node 24 reads Unicode 17; tiktoken's regex crate an older version, so a
 * character assigned since — CJK Extension J, say — is a letter here and not there). Counts of
 * such text follow this runtime's Unicode and cannot match the reference; properties keep to
 * text the two agree on. Each class is asked of a tiktoken whose pattern is that class alone,
 * over single-byte ranks: it encodes what the class matches and skips the rest.
 */
export function sameUnicodeClasses(text: string): boolean {
  tiktokenClasses ??= VERSIONED_CLASSES.map((name) => {
    const bytes = Array.from({ length: 256 }, (_, byte) => Buffer.from([byte]).toString('base64'));
    const encoder = new lite.Tiktoken(`! 0 ${bytes.join(' ')}`, {}, String.raw`\p{${name}}`);
    return (character: string) => encoder.encode(character, [], []).length > 0;
  });
  const classes = tiktokenClasses;
  for (const character of text) {
    const code = character.codePointAt(0) as number;
    let same = classified.get(code);
    if (same === undefined) {
      same = VERSIONED_CLASSES.every(
        (name, index) =>
          new RegExp(String.raw`^\p{${name}}$`, 'u').test(character) === classes[index]?.(character),
      );
      classified.set(code, same);
    }
    if (!same) return false;
  }
  return true;
}
