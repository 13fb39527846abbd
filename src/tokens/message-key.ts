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

/**
 * A 64-bit hash over several strings without joining them (the two lanes of
 * `contentHash`, cyrb53): each string's length goes in before its characters, so
 * `["ab", "c"]` and `["a", "bc"]` differ.
 */
class PieceHasher {
  h1 = 0xdeadbeef;
  h2 = 0x41c6ce57;

  add(text: string): void {
    let h1 = Math.imul(this.h1 ^ text.length, 2654435761);
    let h2 = Math.imul(this.h2 ^ text.length, 1597334677);
    // Two UTF-16 code units per step (the length went in first, so an odd tail is unambiguous).
    const even = text.length & ~1;
    for (let i = 0; i < even; i += 2) {
      const c = text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    if (even < text.length) {
      const c = text.charCodeAt(even);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    this.h1 = h1;
    this.h2 = h2;
  }

  digest(): string {
    let h1 = Math.imul(this.h1 ^ (this.h1 >>> 16), 2246822507);
    h1 ^= Math.imul(this.h2 ^ (this.h2 >>> 13), 3266489909);
    let h2 = Math.imul(this.h2 ^ (this.h2 >>> 16), 2246822507);
    h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return (h2 >>> 0).toString(16).padStart(8, '0') + (h1 >>> 0).toString(16).padStart(8, '0');
  }
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
  return `m${hasher.digest()}`;
}
