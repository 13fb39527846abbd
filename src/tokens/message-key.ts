import { markersOf } from '../messages/provider-metadata.ts';
import type { Message } from '../messages/types.ts';

/** Text chatfold counts for an attachment: its metadata only (seed 001 §3). */
export function attachmentText(part: {
  kind: string;
  mediaType: string;
  filename?: string;
  size?: number;
}): string {
  return `[${part.kind} ${part.filename ?? ''} ${part.mediaType} ${part.size ?? ''}]`;
}

/**
 * The function name when `message` is the result of a legacy OpenAI `function_call` (a
 * `role: 'function'` message, which `fromOpenAI` keeps as a tool result marked `legacy`):
 * OpenAI counts it under that role with the name. Undefined for every other message.
 */
export function legacyFunctionName(message: Message): string | undefined {
  if (message.role !== 'tool' || message.parts.length !== 1) return undefined;
  const part = message.parts[0];
  if (part?.type !== 'tool-result' || part.toolName === undefined) return undefined;
  return markersOf(part, 'openai').legacy === true ? part.toolName : undefined;
}

/** Texts at least this long are hashed from a UTF-16LE copy read as 32-bit words. */
const WORD_COPY_MIN_CHARS = 64;
/** Characters copied at a time (even, so word parity carries across chunks): 64 KB of scratch. */
const CHUNK_CHARS = 32_768;

interface WordBuffer {
  write(text: string, offset: number, encoding: 'utf16le'): number;
  readonly buffer: ArrayBufferLike;
  readonly byteOffset: number;
}
const NodeBuffer = (globalThis as { Buffer?: { allocUnsafe(size: number): WordBuffer } }).Buffer;
let scratch: { bytes: WordBuffer; words: Int32Array } | undefined;

/**
 * A 64-bit hash over several strings without joining them (two multiply-xor lanes, after
 * cyrb53): each string's length goes in before its characters, so `["ab", "c"]` and
 * `["a", "bc"]` differ. A string is read as 32-bit words of two UTF-16 code units (the odd last
 * unit alone), words alternating between the lanes. Long texts are copied into a scratch
 * buffer with Node's native UTF-16LE write and read as an `Int32Array` — the same words, 2.3×
 * faster than `charCodeAt` (issue 19 §3: a rebuilt 100k-message list is mostly hashing);
 * elsewhere (no `Buffer`) the same words come from `charCodeAt`.
 */
export class PieceHasher {
  h1 = 0xdeadbeef;
  h2 = 0x41c6ce57;

  add(text: string): void {
    const length = text.length;
    let h1 = Math.imul(this.h1 ^ length, 2654435761);
    let h2 = Math.imul(this.h2 ^ length, 1597334677);
    const pairs = length >> 1; // whole words
    if (length >= WORD_COPY_MIN_CHARS && NodeBuffer !== undefined) {
      if (scratch === undefined) {
        const bytes = NodeBuffer.allocUnsafe(CHUNK_CHARS * 2);
        scratch = { bytes, words: new Int32Array(bytes.buffer, bytes.byteOffset, CHUNK_CHARS / 2) };
      }
      const { bytes, words } = scratch;
      const end = pairs * 2;
      for (let start = 0; start < end; start += CHUNK_CHARS) {
        const stop = Math.min(end, start + CHUNK_CHARS);
        bytes.write(start === 0 && stop === length ? text : text.substring(start, stop), 0, 'utf16le');
        const count = (stop - start) >> 1;
        let i = 0;
        for (; i + 1 < count; i += 2) {
          h1 = Math.imul(h1 ^ (words[i] as number), 2654435761);
          h2 = Math.imul(h2 ^ (words[i + 1] as number), 1597334677);
        }
        // Only the last chunk can hold an odd number of words: the odd one is at an even index.
        if (i < count) h1 = Math.imul(h1 ^ (words[i] as number), 2654435761);
      }
    } else {
      let i = 0;
      for (; i + 3 < length; i += 4) {
        h1 = Math.imul(h1 ^ (text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16)), 2654435761);
        h2 = Math.imul(h2 ^ (text.charCodeAt(i + 2) | (text.charCodeAt(i + 3) << 16)), 1597334677);
      }
      if (i + 1 < length)
        h1 = Math.imul(h1 ^ (text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16)), 2654435761);
    }
    if ((length & 1) === 1) {
      // The odd last unit is word `pairs`: its lane by parity, as in the loops above.
      const last = text.charCodeAt(length - 1);
      if ((pairs & 1) === 0) h1 = Math.imul(h1 ^ last, 2654435761);
      else h2 = Math.imul(h2 ^ last, 1597334677);
    }
    this.h1 = h1;
    this.h2 = h2;
  }

  /** The hash as 16 hex characters after the character `prefix` (one flat string, made at once). */
  digest(prefix: string): string {
    let h1 = Math.imul(this.h1 ^ (this.h1 >>> 16), 2246822507);
    h1 ^= Math.imul(this.h2 ^ (this.h2 >>> 13), 3266489909);
    let h2 = Math.imul(this.h2 ^ (this.h2 >>> 16), 2246822507);
    h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    const hex = HEX_CODES;
    return String.fromCharCode(
      prefix.charCodeAt(0),
      hex[(h2 >>> 28) & 15] as number,
      hex[(h2 >>> 24) & 15] as number,
      hex[(h2 >>> 20) & 15] as number,
      hex[(h2 >>> 16) & 15] as number,
      hex[(h2 >>> 12) & 15] as number,
      hex[(h2 >>> 8) & 15] as number,
      hex[(h2 >>> 4) & 15] as number,
      hex[h2 & 15] as number,
      hex[(h1 >>> 28) & 15] as number,
      hex[(h1 >>> 24) & 15] as number,
      hex[(h1 >>> 20) & 15] as number,
      hex[(h1 >>> 16) & 15] as number,
      hex[(h1 >>> 12) & 15] as number,
      hex[(h1 >>> 8) & 15] as number,
      hex[(h1 >>> 4) & 15] as number,
      hex[h1 & 15] as number,
    );
  }
}

const HEX_CODES = Uint8Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));

/**
 * The cache key of a long text's count (`countText`): its hash and length, apart from message keys.
 *
 * @param text - The text.
 * @returns `t` and 16 hex characters.
 */
export function textKey(text: string): string {
  const hasher = new PieceHasher();
  hasher.add(text);
  return hasher.digest('t');
}

/**
 * The cache key of a message's token count (TOK-6): a hash of exactly what the counter
 * encodes — role, name, and per part its type and counted texts — read straight from the
 * message (no `JSON.stringify` of the whole message, which cost more than the hash). Ids,
 * timestamps and provider metadata are not counted, so they are not part of the key: two
 * messages that count the same share one entry.
 *
 * @param message - The message.
 * @param countsReasoning - Whether the chat format counts reasoning parts (then their text is keyed).
 * @returns 16 hex characters prefixed by `m`.
 */
export function messageKey(message: Message, countsReasoning: boolean): string {
  const hasher = new PieceHasher();
  hasher.add(message.role);
  hasher.add(message.name ?? '\u0000');
  hasher.add(legacyFunctionName(message) ?? '\u0000');
  // Piece counts make the sequence prefix-free: no two different messages give the same pieces.
  hasher.add(String(message.parts.length));
  for (const part of message.parts) {
    hasher.add(part.type);
    switch (part.type) {
      case 'text':
        hasher.add(part.text);
        break;
      case 'reasoning':
        if (countsReasoning) {
          hasher.add(part.text);
          hasher.add(part.redactedData ?? '\u0000');
        }
        break;
      case 'tool-call':
        hasher.add(part.name);
        hasher.add(part.arguments);
        break;
      case 'tool-result':
        hasher.add(String(part.content.length));
        for (const inner of part.content)
          hasher.add(inner.type === 'text' ? inner.text : attachmentText(inner));
        break;
      case 'attachment':
        hasher.add(attachmentText(part));
        break;
    }
  }
  return hasher.digest('m');
}
