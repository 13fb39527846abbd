/**
 * The compaction plan as a zod schema: plans travel through stores and queues (a pending
 * background plan, a plan sent to a UI and back), so `applyCompactionPlan` parses one like any
 * other input. Objects are loose: fields a newer planner adds ride along unchecked; every
 * field applying a plan reads is checked.
 */
import { z } from 'zod';
import { messageValueSchema } from '../messages/message-value-schema.ts';

const count = z.number().int().nonnegative();
const tokens = z.number().nonnegative();

/** A fact ledger (SUM-4); a list missing from an older record reads as empty. */
export const factLedgerSchema = z.looseObject({
  filesRead: z.array(z.string()).default([]),
  filesModified: z.array(z.string()).default([]),
  commands: z.array(z.string()).default([]),
  urls: z.array(z.string()).default([]),
  identifiers: z.array(z.string()).default([]),
  numbers: z.array(z.string()).default([]),
  errors: z.array(z.string()).default([]),
});

/** The stored messages a summary stands for (`SummaryCoverage`). */
export const summaryCoverageSchema = z.looseObject({
  firstId: z.string(),
  lastId: z.string(),
  count,
});

/** A summary's fields besides the id of its message (what `metadata.chatfold` carries). */
export const summaryFieldsSchema = z.looseObject({
  text: z.string(),
  ledger: factLedgerSchema,
  covers: summaryCoverageSchema,
  source: z.enum(['llm', 'extractive', 'custom']),
  model: z.string().exactOptional(),
});

/** `CompactionSummary`. */
export const compactionSummarySchema = summaryFieldsSchema.extend({ messageId: z.string() });

/** `StageEffect`: what one pipeline stage did. */
export const stageEffectSchema = z.looseObject({
  stage: z.string(),
  tokensBefore: tokens,
  tokensAfter: tokens,
  dropped: count,
  stubbed: count,
  masked: count,
  summarized: count,
  clipped: count,
  notes: z.array(z.string()),
});

const fallbackSchema = z.looseObject({
  source: z.enum(['summarizer', 'stage', 'counter']),
  fallback: z.string(),
  reason: z.string(),
  stage: z.string().exactOptional(),
});

const budgetSchema = z.looseObject({
  window: tokens,
  responseReserve: tokens,
  safetyMargin: tokens,
  toolTokens: tokens,
  messages: z.number(),
});

/** `CompactionPlan` (version 1). */
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
  tokensAfter: tokens,
  messagesBefore: count,
  messagesAfter: count,
  tokenizer: z.string(),
  accuracy: z.enum(['exact', 'calibrated', 'approximate']),
  stages: z.array(stageEffectSchema),
  summary: compactionSummarySchema.exactOptional(),
  fallbacks: z.array(fallbackSchema),
  warnings: z.array(z.string()),
  input: z.looseObject({
    count,
    firstId: z.string().exactOptional(),
    lastId: z.string().exactOptional(),
  }),
  dropped: z.array(z.string()),
  replaced: z.array(z.looseObject({ id: z.string(), message: messageValueSchema })),
  inserted: z.array(z.looseObject({ beforeId: z.string().nullable(), message: messageValueSchema })),
  firstKeptId: z.string().exactOptional(),
});
