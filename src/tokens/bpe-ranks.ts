import { ChatfoldError } from '../errors/chatfold-error.ts';

/**
 * The ranks of a BPE encoding, keyed for counting (TOK-2): a pre-token found in `text` is one
 * token, and merging looks byte ranges up here. Tokens whose bytes are valid UTF-8 are keyed by
 * their text, so the common case (a whole pre-token in the vocabulary) is one `Map` lookup of a
 * string the pattern already produced; the others (a part of a multi-byte character) by their
 * bytes read as Latin-1.
 */
export interface BpeRanks {
  readonly text: ReadonlyMap<string, number>;
  readonly bytes: ReadonlyMap<string, number>;
  /** Longest token in bytes: a longer byte range is no token, without a lookup. */
  readonly maxTokenBytes: number;
}

/*
 * File layout (`data/encoding/*.bpe`, written by scripts/build-encodings.ts), little-endian:
 *   0  "CFB1"   4  u32 ranks N   8  u32 text bytes T   12  u32 raw bytes R
 *   16 N × u16: per rank, 0 = unused; bit 15 set = a raw token of (value & 0x7fff) bytes;
 *      else a text token of that many UTF-16 code units
 *   then T bytes of UTF-8 (the text tokens in rank order), then R raw bytes.
 * One TextDecoder call and a slice per token: o200k_base loads in ~30 ms where parsing a 7 MB
 * JavaScript object literal took 0.9–1.5 s (issue 14).
 */
const MAGIC = 0x31424643; // "CFB1"
const HEADER_BYTES = 16;
const RAW_FLAG = 0x8000;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

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
  const lengths = new Uint16Array(count);
  const texts: string[] = [];
  const raws: Uint8Array[] = [];
  for (let rank = 0; rank < count; rank++) {
    const bytes = ranks.get(rank);
    if (bytes === undefined) continue;
    let text: string | undefined;
    try {
      text = strictUtf8.decode(bytes);
    } catch {
      text = undefined;
    }
    const length = text === undefined ? bytes.length : text.length;
    if (length === 0 || length >= RAW_FLAG) throw new Error(`rank ${rank}: a token of ${length} units`);
    if (text === undefined) {
      lengths[rank] = RAW_FLAG | length;
      raws.push(bytes);
    } else {
      lengths[rank] = length;
      texts.push(text);
    }
  }
  const text = new TextEncoder().encode(texts.join(''));
  const rawBytes = raws.reduce((sum, raw) => sum + raw.length, 0);
  const file = new Uint8Array(HEADER_BYTES + count * 2 + text.length + rawBytes);
  const view = new DataView(file.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, count, true);
  view.setUint32(8, text.length, true);
  view.setUint32(12, rawBytes, true);
  lengths.forEach((length, rank) => {
    view.setUint16(HEADER_BYTES + rank * 2, length, true);
  });
  let offset = HEADER_BYTES + count * 2;
  file.set(text, offset);
  offset += text.length;
  for (const raw of raws) {
    file.set(raw, offset);
    offset += raw.length;
  }
  return file;
}

/**
 * Reads a `.bpe` file.
 *
 * @param file - The file's bytes.
 * @param name - The encoding, for the error.
 * @throws ChatfoldError `E_TOKENIZER` when the bytes are not a `.bpe` file.
 */
export function decodeBpeRanks(file: Uint8Array, name: string): BpeRanks {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const corrupt = (why: string): ChatfoldError =>
    new ChatfoldError('E_TOKENIZER', `the ${name} encoding file is damaged (${why}); reinstall chatfold`, {
      encoding: name,
    });
  if (file.byteLength < HEADER_BYTES || view.getUint32(0, true) !== MAGIC) throw corrupt('no CFB1 header');
  const count = view.getUint32(4, true);
  const textStart = HEADER_BYTES + count * 2;
  const rawStart = textStart + view.getUint32(8, true);
  if (rawStart + view.getUint32(12, true) !== file.byteLength) throw corrupt('wrong length');
  let allText: string;
  try {
    allText = strictUtf8.decode(file.subarray(textStart, rawStart));
  } catch {
    throw corrupt('text section is not UTF-8');
  }
  const text = new Map<string, number>();
  const bytes = new Map<string, number>();
  let textOffset = 0;
  let rawOffset = rawStart;
  let maxTokenBytes = 0;
  for (let rank = 0; rank < count; rank++) {
    const entry = view.getUint16(HEADER_BYTES + rank * 2, true);
    if (entry === 0) continue;
    const length = entry & ~RAW_FLAG;
    if ((entry & RAW_FLAG) !== 0) {
      bytes.set(latin1(file.subarray(rawOffset, rawOffset + length)), rank);
      rawOffset += length;
      maxTokenBytes = Math.max(maxTokenBytes, length);
    } else {
      text.set(allText.slice(textOffset, textOffset + length), rank);
      textOffset += length;
      // At most 3 UTF-8 bytes per UTF-16 unit (a surrogate pair is 4 bytes for 2 units).
      maxTokenBytes = Math.max(maxTokenBytes, length * 3);
    }
  }
  if (textOffset !== allText.length || rawOffset !== file.byteLength) throw corrupt('lengths do not add up');
  return { text, bytes, maxTokenBytes };
}
