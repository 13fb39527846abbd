import { contentHash } from '../messages/content-hash.ts';
import type { JsonValue, Message, Part, TextPart, ToolResultPart } from '../messages/types.ts';

/** How a projection message differs from the stored original. */
export type Transform = 'superseded' | 'masked' | 'clipped' | 'marker' | 'summary';

/** The `metadata.chatfold` record compaction puts on every message it creates or changes. */
export interface ChatfoldMetadata {
  readonly transform: Transform;
  readonly [key: string]: JsonValue;
}

/** The chatfold record of a projection message, if compaction touched it. */
export function chatfoldMetadata(message: Message): ChatfoldMetadata | undefined {
  const value = message.metadata?.chatfold;
  return typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof value.transform === 'string'
    ? (value as ChatfoldMetadata)
    : undefined;
}

const transformed = new WeakMap<Message, Map<string, Message>>();

/**
 * A copy of `message` with new parts and its chatfold record set; the id stays the same.
 * The same transform of the same message object returns the same object, so counts and
 * ledger facts cached per object carry over between compactions (and prompts stay
 * reference-identical for the prefix check of RT-5).
 */
export function transformMessage(
  message: Message,
  parts: readonly Part[],
  record: ChatfoldMetadata,
): Message {
  const key = JSON.stringify([parts, record]);
  let byKey = transformed.get(message);
  const known = byKey?.get(key);
  if (known !== undefined) return known;
  const next: Message = { ...message, parts, metadata: { ...message.metadata, chatfold: record } };
  if (byKey === undefined) {
    byKey = new Map();
    transformed.set(message, byKey);
  } else if (byKey.size >= 4) {
    byKey.clear(); // clipped to ever-new budgets: keep the memo small
  }
  byKey.set(key, next);
  return next;
}

/**
 * A message chatfold inserts (omission marker, summary). Its id is derived from `key` so the
 * same compaction of the same input yields the same id (determinism, RT-1).
 */
export function createSyntheticMessage({
  role,
  text,
  key,
  createdAt,
  record,
}: {
  role: 'user' | 'system';
  text: string;
  key: string;
  createdAt: string;
  record: ChatfoldMetadata;
}): Message {
  return {
    id: `cf_${record.transform}_${contentHash(key)}`,
    role,
    parts: [{ type: 'text', text }],
    createdAt,
    metadata: { chatfold: record },
  };
}

/** All text of a tool result, joined. */
export function toolResultText(part: ToolResultPart): string {
  let text = '';
  for (const inner of part.content) if (inner.type === 'text') text += inner.text;
  return text;
}

/** A tool result whose content is replaced by one text part. */
export function replaceToolResult(part: ToolResultPart, text: string): ToolResultPart {
  const replacement: TextPart = { type: 'text', text };
  return { ...part, content: [replacement] };
}

/** Thousands separators for messages shown to people and models. */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}
