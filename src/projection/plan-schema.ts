/**
 * The compaction plan as a zod schema: plans travel through stores and queues (a pending
 * background plan, a plan sent to a UI and back), so `applyCompactionPlan` parses one like any
 * other input. Every field applying a plan reads is checked; fields a newer planner adds ride
 * along unchecked. The summary, ledger and stage schemas are shared with the other persisted
 * records (snapshot content, `metadata.chatfold`).
 */
import { z } from 'zod';
import { messageValueSchema } from '../messages/message-value-schema.ts';

/**
 * An object schema that keeps the keys it does not name (a newer chatfold's fields ride along
 * through a read and a write) while its type names only the keys it checks, so the interfaces
 * of the records it describes are assignable to it.
 */
export const openObject = <Shape extends z.ZodRawShape>(shape: Shape): z.ZodObject<Shape> =>
  z.looseObject(shape) as unknown as z.ZodObject<Shape>;

/** A list read from a record, typed `readonly` as the records' interfaces are. */
export const readonlyArray = <Item extends z.ZodType>(item: Item) => z.array(item).readonly();

/** A count: messages, seq numbers, entries. */
export const nonNegativeInteger = z.number().int().nonnegative();
const tokens = z.number().nonnegative();

/** A fact ledger (SUM-4); a list missing from an older record reads as empty. */
export const factLedgerSchema = openObject({
  filesRead: readonlyArray(z.string()).default([]),
  filesModified: readonlyArray(z.string()).default([]),
  commands: readonlyArray(z.string()).default([]),
  urls: readonlyArray(z.string()).default([]),
  identifiers: readonlyArray(z.string()).default([]),
  numbers: readonlyArray(z.string()).default([]),
  errors: readonlyArray(z.string()).default([]),
});

/** The stored messages a summary stands for (`SummaryCoverage`). */
export const summaryCoverageSchema = openObject({
  firstId: z.string(),
  lastId: z.string(),
  count: nonNegativeInteger,
});

/** A summary's fields besides the id of its message (what `metadata.chatfold` carries). */
export const summaryFieldsSchema = openObject({
  text: z.string(),
  ledger: factLedgerSchema,
  covers: summaryCoverageSchema,
  source: z.enum(['llm', 'extractive', 'custom']),
  model: z.string().exactOptional(),
});

/** `CompactionSummary`. */
export const compactionSummarySchema = summaryFieldsSchema.extend({ messageId: z.string() });

/** `StageEffect`: what one pipeline stage did. */
export const stageEffectSchema = openObject({
  stage: z.string(),
  tokensBefore: tokens,
  tokensAfter: tokens,
  dropped: nonNegativeInteger,
  stubbed: nonNegativeInteger,
  masked: nonNegativeInteger,
  summarized: nonNegativeInteger,
  clipped: nonNegativeInteger,
  notes: readonlyArray(z.string()),
});

const fallbackSchema = openObject({
  source: z.enum(['summarizer', 'stage', 'counter']),
  fallback: z.string(),
  reason: z.string(),
  stage: z.string().exactOptional(),
});

const budgetSchema = openObject({
  window: tokens,
  responseReserve: tokens,
  safetyMargin: tokens,
  toolTokens: tokens,
  messages: z.number(),
});

/** `CompactionPlan` (version 1); unknown keys at every level are kept. */
export const compactionPlanSchema = z.looseObject({
  version: z.literal(1),
  compacted: z.boolean(),
  cancelled: z.boolean(),
  mode: z.enum(['auto', 'manual', 'overflow']),
  reason: z.string(),
  provider: z.enum(['openai', 'anthropic', 'gemini']).exactOptional(),
  budget: budgetSchema,
  target: z.number(),
  tokensBefore: tokens,
  tokensBeforeEstimated: z.literal(true).exactOptional(),
  tokensAfter: tokens,
  messagesBefore: nonNegativeInteger,
  messagesAfter: nonNegativeInteger,
  tokenizer: z.string(),
  accuracy: z.enum(['exact', 'calibrated', 'approximate']),
  stages: readonlyArray(stageEffectSchema),
  summary: compactionSummarySchema.exactOptional(),
  fallbacks: readonlyArray(fallbackSchema),
  warnings: readonlyArray(z.string()),
  input: openObject({
    count: nonNegativeInteger,
    firstId: z.string().exactOptional(),
    lastId: z.string().exactOptional(),
  }),
  dropped: readonlyArray(z.string()),
  replaced: readonlyArray(openObject({ id: z.string(), message: messageValueSchema })),
  inserted: readonlyArray(openObject({ beforeId: z.string().nullable(), message: messageValueSchema })),
  firstKeptId: z.string().exactOptional(),
});
