import type { EngineCache } from '../messages/engine-cache.ts';
import type { Message, Part } from '../messages/types.ts';
import { tokensAtMost } from '../tokens/count-up-to.ts';
import type { TokenCounter } from '../tokens/types.ts';
import { chatfoldMetadata, formatCount, transformMessage } from './chatfold-metadata.ts';

/** Share of the kept characters taken from the head; the rest comes from the tail. */
const HEAD_SHARE = 0.6;

/**
 * Cuts the middle out of `text`, keeping `keepChars` characters (head and tail) and a marker
 * that says how much was removed. Never splits a surrogate pair.
 */
export function clipText(text: string, keepChars: number, messageId: string): string {
  if (text.length <= keepChars) return text;
  let head = Math.max(0, Math.floor(keepChars * HEAD_SHARE));
  let tail = Math.max(0, keepChars - head);
  if (head > 0 && isHighSurrogate(text.charCodeAt(head - 1))) head--;
  if (tail > 0 && isLowSurrogate(text.charCodeAt(text.length - tail))) tail--;
  const removed = text.length - head - tail;
  return `${text.slice(0, head)}\n[… chatfold clipped ${formatCount(removed)} of ${formatCount(text.length)} characters here; the full text is kept in the history as message ${messageId} …]\n${tail > 0 ? text.slice(text.length - tail) : ''}`;
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/**
 * Clips a message so it uses about `maxTokens`: its longest texts (text, tool output,
 * reasoning) are cut head+tail proportionally. Tool-call arguments stay intact (they must
 * remain valid JSON). Returns the message unchanged when it already fits. A summary keeps its
 * summary record (with `originalTokens`); anything else becomes `clipped`. `estimate`, when
 * given, stands for the message's count.
 */
export function clipMessage(
  message: Message,
  maxTokens: number,
  counter: TokenCounter,
  cache?: EngineCache,
  estimate?: number,
): Message {
  // A message whose lengths alone prove it fits is not counted (issue 19 §3: a long history's
  // old messages, most of which the compaction then summarizes); nor is one the run only
  // estimates (older than everything it counted).
  if (tokensAtMost(counter, message) <= maxTokens) return message;
  const tokens = estimate ?? counter.countMessage(message);
  if (tokens <= maxTokens) return message;
  let clippable = 0;
  for (const part of message.parts) clippable += clippableChars(part);
  if (clippable === 0) return message;
  // Characters per token of this message, to turn the token excess into characters to remove.
  const charsPerToken = Math.max(1, clippable / Math.max(1, tokens));
  const removeChars = Math.ceil((tokens - maxTokens) * charsPerToken) + 200;
  const keepRatio = Math.max(0, 1 - removeChars / clippable);
  const parts = message.parts.map((part): Part => {
    switch (part.type) {
      case 'text':
      case 'reasoning':
        if (part.type === 'reasoning' && part.signature !== undefined) return part; // signed: must stay intact
        return { ...part, text: clipText(part.text, Math.floor(part.text.length * keepRatio), message.id) };
      case 'tool-result':
        return {
          ...part,
          content: part.content.map((inner) =>
            inner.type === 'text'
              ? {
                  ...inner,
                  text: clipText(inner.text, Math.floor(inner.text.length * keepRatio), message.id),
                }
              : inner,
          ),
        };
      default:
        return part;
    }
  });
  // A clipped summary stays a summary (its record, with the size it had): the next compaction
  // must still find and merge it, and the status must still count it as one.
  const record = chatfoldMetadata(message);
  return transformMessage(
    message,
    parts,
    record?.transform === 'summary'
      ? { ...record, originalTokens: tokens }
      : { transform: 'clipped', originalTokens: tokens },
    cache,
  );
}

function clippableChars(part: Part): number {
  switch (part.type) {
    case 'text':
      return part.text.length;
    case 'reasoning':
      return part.signature === undefined ? part.text.length : 0;
    case 'tool-result':
      return part.content.reduce((sum, inner) => sum + (inner.type === 'text' ? inner.text.length : 0), 0);
    default:
      return 0;
  }
}
