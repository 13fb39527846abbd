import { z } from 'zod';

/** Prices in US dollars per million tokens. */
const pricingSchema = z.strictObject({
  input: z.number().nonnegative().optional(),
  output: z.number().nonnegative().optional(),
  cacheRead: z.number().nonnegative().optional(),
  cacheWrite: z.number().nonnegative().optional(),
});

/**
 * One model in a registry file (MOD-1). `tokenizer` defaults to the model family's;
 * `maxOutputTokens` may be absent when no dataset publishes it.
 */
export const modelSnapshotEntrySchema = z.strictObject({
  id: z.string().trim().min(1),
  provider: z.string().trim().min(1),
  contextWindow: z.number().int().positive(),
  maxOutputTokens: z.number().int().positive().optional(),
  tokenizer: z.string().min(1).optional(),
  pricing: pricingSchema.optional(),
  aliases: z.array(z.string().trim().min(1)).optional(),
});

/** A registry file: the bundled snapshot's shape, or just its `models` array. */
export const modelSnapshotSchema = z.object({
  generatedAt: z.string().optional(),
  sources: z.array(z.object({ name: z.string(), version: z.string(), license: z.string() })).optional(),
  models: z.array(modelSnapshotEntrySchema),
});

/** A model as a registry file describes it. */
export type ModelSnapshotEntry = z.infer<typeof modelSnapshotEntrySchema>;
/** The bundled snapshot (`src/models/data/models.json`) and the files `loadModelRegistry` reads. */
export type ModelSnapshot = z.infer<typeof modelSnapshotSchema>;
