import { z } from 'zod';
import { adoptDerived } from '../messages/check-messages.ts';
import { contentHash } from '../messages/content-hash.ts';
import { cacheTable, type EngineCache } from '../messages/engine-cache.ts';
import type { JsonValue, Message, Part, TextPart, ToolResultPart } from '../messages/types.ts';
import { checkRecordVersion, parseVersionedRecord, type RecordFormat } from '../options/parse-record.ts';
import { factLedgerSchema, nonNegativeInteger, openObject, summaryFieldsSchema } from './plan-schema.ts';

/** How a projection message differs from the stored original. */
export type Transform = 'superseded' | 'masked' | 'clipped' | 'marker' | 'summary';

/** The `metadata.chatfold` record compaction puts on every message it creates or changes. */
export interface ChatfoldMetadata {
  readonly transform: Transform;
  readonly [key: string]: JsonValue;
}

/**
 * The format of `metadata.chatfold` records: version 1. Records written before versions
 * existed have none and read as version 1; a newer version is `E_UNSUPPORTED_VERSION`.
 */
export const CHATFOLD_METADATA_FORMAT: RecordFormat = { record: 'metadata.chatfold record', version: 1 };

const TRANSFORMS: ReadonlySet<string> = new Set<Transform>([
  'superseded',
  'masked',
  'clipped',
  'marker',
  'summary',
]);

const version = z.literal(1);

/** `metadata.chatfold` (version 1), one shape per transform; keys a newer chatfold adds are kept. */
export const chatfoldMetadataSchema = z.discriminatedUnion('transform', [
  openObject({
    version,
    transform: z.literal('superseded'),
    /** Id of the message whose tool call superseded this output. */
    by: z.string().exactOptional(),
    /** The supersession rule that matched. */
    rule: z.string().exactOptional(),
  }),
  openObject({ version, transform: z.literal('masked') }),
  openObject({
    version,
    transform: z.literal('clipped'),
    /** Tokens of the message before it was clipped. */
    originalTokens: z.number().nonnegative().exactOptional(),
  }),
  openObject({
    version,
    transform: z.literal('marker'),
    /** Stored messages the marker stands for. */
    omitted: nonNegativeInteger.exactOptional(),
    firstId: z.string().exactOptional(),
    lastId: z.string().exactOptional(),
  }),
  summaryFieldsSchema.extend({
    version,
    transform: z.literal('summary'),
    // Summaries of other tools and early versions may lack these.
    ledger: factLedgerSchema.prefault({}),
    source: summaryFieldsSchema.shape.source.default('custom'),
  }),
]);

/** A `metadata.chatfold` record as its schema reads it. */
export type ChatfoldMetadataRecord = z.output<typeof chatfoldMetadataSchema>;

/**
 * The chatfold record of a projection message, if compaction touched it. Cheap enough for
 * the loops of every stage: the record's version and transform are checked here; the fields
 * of a summary (the record read back as data) by {@link parseChatfoldMetadata}.
 *
 * @throws ChatfoldError `E_UNSUPPORTED_VERSION` for a record written by a newer chatfold.
 */
export function chatfoldMetadata(message: Message): ChatfoldMetadata | undefined {
  const value = message.metadata?.chatfold;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  if (typeof value.transform !== 'string') return undefined;
  if (value.version !== undefined && value.version !== 1) {
    checkRecordVersion(value, CHATFOLD_METADATA_FORMAT);
    return undefined;
  }
  return TRANSFORMS.has(value.transform) ? (value as ChatfoldMetadata) : undefined;
}

/**
 * Reads a `metadata.chatfold` value through its schema: the record, or undefined when it is
 * not one (another key's data, a malformed record).
 *
 * @throws ChatfoldError `E_UNSUPPORTED_VERSION` for a record written by a newer chatfold.
 */
export function parseChatfoldMetadata(value: unknown): ChatfoldMetadataRecord | undefined {
  const result = parseVersionedRecord(value, chatfoldMetadataSchema, CHATFOLD_METADATA_FORMAT);
  return result.success ? result.data : undefined;
}

/** A record as chatfold writes it: with the format's version. */
function versioned(record: ChatfoldMetadata): ChatfoldMetadata {
  return record.version === undefined ? { version: CHATFOLD_METADATA_FORMAT.version, ...record } : record;
}

/** Transforms made of each message, by parts and record (at most a few per message). */
const TRANSFORMED = cacheTable('strategies.transformed', () => new WeakMap<Message, Map<string, Message>>());

/**
 * A copy of `message` with new parts and its chatfold record set; the id stays the same.
 * With a `cache`, the same transform of the same message object returns the same object, so
 * counts and ledger facts cached per object carry over between compactions (and prompts stay
 * reference-identical for the prefix check of RT-5).
 */
export function transformMessage(
  message: Message,
  parts: readonly Part[],
  record: ChatfoldMetadata,
  cache?: EngineCache,
): Message {
  const transformed = cache?.table(TRANSFORMED);
  if (transformed === undefined) return withRecord(message, parts, record);
  const key = JSON.stringify([parts, record]);
  let byKey = transformed.get(message);
  const known = byKey?.get(key);
  if (known !== undefined) return known;
  const next = withRecord(message, parts, record);
  if (byKey === undefined) {
    byKey = new Map();
    transformed.set(message, byKey);
  } else if (byKey.size >= 4) {
    byKey.clear(); // clipped to ever-new budgets: keep the memo small
  }
  byKey.set(key, next);
  return next;
}

function withRecord(message: Message, parts: readonly Part[], record: ChatfoldMetadata): Message {
  // Made here from a checked message: known checked too (counted without a copy).
  return adoptDerived(
    { ...message, parts, metadata: { ...message.metadata, chatfold: versioned(record) } },
    message,
  );
}

/**
 * A message chatfold inserts (omission marker, summary). Its id is derived from `key` so the
 * same compaction of the same input yields the same id (determinism, RT-1).
 */
export function createSyntheticMessage({
  role,
  key,
  createdAt,
  record,
  ...content
}: {
  role: 'user' | 'system';
  key: string;
  createdAt: string;
  record: ChatfoldMetadata;
} & ({ text: string } | { parts: readonly TextPart[] })): Message {
  return {
    id: `cf_${record.transform}_${contentHash(key)}`,
    role,
    parts: 'parts' in content ? content.parts : [{ type: 'text', text: content.text }],
    createdAt,
    metadata: { chatfold: versioned(record) },
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

/** Thousands separators for messages shown to people and models (en-US, without loading `Intl`). */
export { formatCount } from '../messages/format-count.ts';
