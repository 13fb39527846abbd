import { ChatfoldError } from '../errors/chatfold-error.ts';

/**
 * The ranks of a BPE encoding, for counting (TOK-2): a pre-token whose text has a rank is one
 * token, and merging looks byte ranges up here. Tokens whose bytes are valid UTF-8 are found by
 * their text — a range of a string, so neither a pre-token in the vocabulary nor a merge step
 * makes a substring; the others (a part of a multi-byte character) by their bytes.
 */
export interface BpeRanks {
  /** Longest token in bytes: a longer byte range is no token, without a lookup. */
  readonly maxTokenBytes: number;
  /** Ranks in the encoding, used or not (the largest rank + 1). */
  readonly size: number;
  /** The rank of the token whose text is `text.slice(start, end)`, or -1. */
  rankOf(text: string, start: number, end: number): number;
  /**
   * The same answer as {@link rankOf}, for callers whose lookups mostly find nothing (merging a
   * long run of random letters: 97 % of new pairs are no token). A Bloom filter of the token
   * texts, a bit array small enough for the processor's cache, answers most misses without the
   * table, the offsets and the text (megabytes, a cache miss each). Built on the first call
   * (o200k_base: a few milliseconds), so plain counting never pays for it.
   */
  rankOfMostlyAbsent(text: string, start: number, end: number): number;
  /** The rank of a token that is no valid UTF-8 alone, by its bytes read as Latin-1, or -1. */
  rankOfBytes(latin1: string): number;
  /** The bytes of a rank's token, or undefined for an unused rank. */
  tokenBytes(rank: number): Uint8Array | undefined;
}

/*
 * File layout (`data/encoding/*.bpe`, written by scripts/build-encodings.ts), little-endian; the
 * file is the lookup structure, so loading it is a read, one TextDecoder call and typed-array
 * views (no per-token work: o200k_base took 0.9–1.5 s to load from a 7 MB JavaScript module and
 * ~60 ms into a Map of 200,000 strings):
 *   0  "CFB2"  4 u32 ranks N  8 u32 slots S (a power of two)  12 u32 raw tokens R
 *   16 u32 text bytes T  20 u32 longest token in bytes  24..31 zero
 *   32 (N + 1) × i32: where each rank's text starts in the text, in UTF-16 code units (a rank
 *      with no text, unused or raw, starts where the next one does)
 *   then S × i32: an open-addressing table (linear probing) of ranks by hashText, -1 = empty
 *   then R × (u32 rank, u8 length, bytes): the raw tokens
 *   then T bytes of UTF-8: the text tokens in rank order.
 */
const MAGIC = 0x32424643; // "CFB2"
const HEADER_BYTES = 32;
const EMPTY = -1;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const isLittleEndian = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/** FNV-1a over UTF-16 code units with a final mix: where a token's text sits in the table. */
function hashText(text: string, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  hash ^= hash >>> 15;
  hash = Math.imul(hash, 0x2c1b3c6d);
  return hash ^ (hash >>> 12);
}

/**
 * Words of the Bloom filter behind {@link BpeRanks.rankOfMostlyAbsent}: 256 KiB. A text sets
 * three bits of one word (one memory access a lookup); o200k_base's 200,000 texts fill about a
 * quarter of the bits, so about 2 % of absent texts pass to the table.
 */
const FILTER_WORDS = 1 << 16;

/** The three bits a text with this {@link hashText} sets in its filter word (bits 16+ pick the word). */
function filterBits(hash: number): number {
  return (1 << (hash & 31)) | (1 << ((hash >>> 5) & 31)) | (1 << ((hash >>> 10) & 31));
}

/** The Bloom filter of every text token of a decoded file (see {@link FILTER_WORDS}). */
function textFilter(allText: string, starts: Int32Array, count: number): Int32Array {
  const filter = new Int32Array(FILTER_WORDS);
  for (let rank = 0; rank < count; rank++) {
    const start = starts[rank] as number;
    const end = starts[rank + 1] as number;
    if (start === end) continue;
    const hash = hashText(allText, start, end);
    const word = (hash >>> 16) & (FILTER_WORDS - 1);
    filter[word] = (filter[word] as number) | filterBits(hash);
  }
  return filter;
}

function latin1(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return text;
}

/**
 * Writes ranks in the `.bpe` layout (scripts/build-encodings.ts).
 *
 * @param ranks - The bytes of each token by rank.
 * @returns The file's bytes.
 */
export function encodeBpeRanks(ranks: ReadonlyMap<number, Uint8Array>): Uint8Array {
  let count = 0;
  for (const rank of ranks.keys()) count = Math.max(count, rank + 1);
  const starts = new Int32Array(count + 1);
  const texts: string[] = [];
  const raws: [number, Uint8Array][] = [];
  let units = 0;
  let maxTokenBytes = 0;
  for (let rank = 0; rank < count; rank++) {
    starts[rank] = units;
    const bytes = ranks.get(rank);
    if (bytes === undefined) continue;
    if (bytes.length === 0) throw new Error(`rank ${rank}: an empty token`);
    maxTokenBytes = Math.max(maxTokenBytes, bytes.length);
    let text: string | undefined;
    try {
      text = strictUtf8.decode(bytes);
    } catch {
      if (bytes.length > 255) throw new Error(`rank ${rank}: a raw token of ${bytes.length} bytes`);
      raws.push([rank, bytes]);
      continue;
    }
    texts.push(text);
    units += text.length;
  }
  starts[count] = units;
  const allText = texts.join('');
  let slots = 16;
  while (slots < texts.length * 2) slots *= 2;
  const table = new Int32Array(slots).fill(EMPTY);
  for (let rank = 0; rank < count; rank++) {
    const start = starts[rank] as number;
    const end = starts[rank + 1] as number;
    if (start === end) continue;
    let slot = hashText(allText, start, end) & (slots - 1);
    while (table[slot] !== EMPTY) slot = (slot + 1) & (slots - 1);
    table[slot] = rank;
  }
  const text = new TextEncoder().encode(allText);
  const rawBytes = raws.reduce((sum, [, raw]) => sum + 5 + raw.length, 0);
  const file = new Uint8Array(HEADER_BYTES + (count + 1) * 4 + slots * 4 + rawBytes + text.length);
  const view = new DataView(file.buffer);
  [MAGIC, count, slots, raws.length, text.length, maxTokenBytes].forEach((value, index) => {
    view.setUint32(index * 4, value, true);
  });
  let offset = HEADER_BYTES;
  for (const start of starts) {
    view.setInt32(offset, start, true);
    offset += 4;
  }
  for (const rank of table) {
    view.setInt32(offset, rank, true);
    offset += 4;
  }
  for (const [rank, raw] of raws) {
    view.setUint32(offset, rank, true);
    view.setUint8(offset + 4, raw.length);
    file.set(raw, offset + 5);
    offset += 5 + raw.length;
  }
  file.set(text, offset);
  return file;
}

/** 32-bit integers of the file, as a view where the machine is little-endian, else copied. */
function int32s(file: Uint8Array, offset: number, length: number): Int32Array {
  if (isLittleEndian) return new Int32Array(file.buffer, file.byteOffset + offset, length);
  const view = new DataView(file.buffer, file.byteOffset + offset, length * 4);
  return Int32Array.from({ length }, (_, i) => view.getInt32(i * 4, true));
}

/**
 * Reads a `.bpe` file. The returned ranks keep the file's bytes as their tables.
 *
 * @param file - The file's bytes.
 * @param name - The encoding, for the error.
 * @throws ChatfoldError `E_TOKENIZER` when the bytes are not a `.bpe` file.
 */
export function decodeBpeRanks(file: Uint8Array, name: string): BpeRanks {
  const corrupt = (why: string): ChatfoldError =>
    new ChatfoldError('E_TOKENIZER', `the ${name} encoding file is damaged (${why}); reinstall chatfold`, {
      encoding: name,
    });
  // Typed-array views need 4-byte alignment (a large read is its own buffer, so this is rare).
  const bytes = file.byteOffset % 4 === 0 ? file : file.slice();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < HEADER_BYTES || view.getUint32(0, true) !== MAGIC) throw corrupt('no CFB2 header');
  const [count, slots, rawCount, textBytes, maxTokenBytes] = [4, 8, 12, 16, 20].map((at) =>
    view.getUint32(at, true),
  ) as [number, number, number, number, number];
  const tableAt = HEADER_BYTES + (count + 1) * 4;
  const rawAt = tableAt + slots * 4;
  if ((slots & (slots - 1)) !== 0 || rawAt + textBytes > bytes.byteLength) throw corrupt('wrong length');
  const starts = int32s(bytes, HEADER_BYTES, count + 1);
  const table = int32s(bytes, tableAt, slots);
  // A lookup probes until an empty slot: a table without one would never return.
  if (!table.includes(EMPTY)) throw corrupt('no empty slot');
  const raw = new Map<string, number>();
  const rawByRank = new Map<number, Uint8Array>();
  let offset = rawAt;
  for (let i = 0; i < rawCount; i++) {
    if (offset + 5 > bytes.byteLength) throw corrupt('wrong length');
    const rank = view.getUint32(offset, true);
    const token = bytes.subarray(offset + 5, offset + 5 + view.getUint8(offset + 4));
    raw.set(latin1(token), rank);
    rawByRank.set(rank, token);
    offset += 5 + token.length;
  }
  if (offset + textBytes !== bytes.byteLength) throw corrupt('wrong length');
  let allText: string;
  try {
    allText = strictUtf8.decode(bytes.subarray(offset));
  } catch {
    throw corrupt('text is not UTF-8');
  }
  if (starts[count] !== allText.length) throw corrupt('offsets do not match the text');
  const mask = slots - 1;
  /** The rank of the token `text.slice(start, end)` whose {@link hashText} is `hash`, or -1. */
  const probe = (hash: number, text: string, start: number, end: number): number => {
    const length = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const rank = table[slot] as number;
      if (rank === EMPTY) return EMPTY;
      const at = starts[rank] as number;
      if ((starts[rank + 1] as number) - at !== length) continue;
      let i = 0;
      while (i < length && allText.charCodeAt(at + i) === text.charCodeAt(start + i)) i++;
      if (i === length) return rank;
    }
  };
  let filter: Int32Array | undefined;
  return {
    maxTokenBytes,
    size: count,
    rankOf: (text, start, end) => probe(hashText(text, start, end), text, start, end),
    rankOfMostlyAbsent(text, start, end) {
      filter ??= textFilter(allText, starts, count);
      const hash = hashText(text, start, end);
      const word = filter[(hash >>> 16) & (FILTER_WORDS - 1)] as number;
      const bits = filterBits(hash);
      return (word & bits) === bits ? probe(hash, text, start, end) : EMPTY;
    },
    rankOfBytes: (key) => raw.get(key) ?? EMPTY,
    tokenBytes(rank) {
      const start = starts[rank];
      const end = starts[rank + 1];
      if (start === undefined || end === undefined) return undefined;
      if (start < end) return new TextEncoder().encode(allText.slice(start, end));
      return rawByRank.get(rank);
    },
  };
}
