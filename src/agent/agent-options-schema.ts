import { z } from 'zod';
import type { CompactionQueue } from '../background/types.ts';
import { fn, withMethods } from '../options/parse-options.ts';
import type { Store } from '../stores/types.ts';
import type { TokenCounter } from '../tokens/types.ts';

// createAgent's options, checked when given (E_INVALID_OPTIONS): every object is strict, so an
// unknown key — `context.maxMessagesBeforeSumary` — fails with a did-you-mean instead of being
// ignored. Models, stores, counters and tools are checked by the methods they must have.

const positiveInt = z.number().int().positive();
const share = z.number().gt(0).lte(1);

/** `{ provider, name, … }`: a model by name (AG-1). */
export const agentModelSpecSchema = z.strictObject({
  provider: z.enum(['openai', 'anthropic', 'google', 'openai-compatible']),
  name: z.string().min(1),
  baseURL: z.string().min(1).optional(),
  apiKey: z.string().optional(),
  maxInputTokens: positiveInt.optional(),
  maxOutputTokens: positiveInt.optional(),
  temperature: z.number().min(0).max(2).optional(),
});

/** An AI SDK model instance, or a model id the AI SDK's global provider resolves. */
const languageModel = z.union([
  z.string().min(1),
  withMethods<object>('an AI SDK language model', ['doGenerate', 'doStream']),
]);

/** Whether a `model` option is a spec (`{ provider, name }`) rather than an AI SDK model. */
export const isModelSpecObject = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  !('specificationVersion' in value) &&
  typeof (value as { doStream?: unknown }).doStream !== 'function';

/** The keys of `context` (seed 004's settings in camelCase, and chatfold's). */
export const agentContextSchema = z.strictObject({
  // A preset name or a policy object, checked where the policy is resolved.
  policy: z.union([z.string().min(1), z.record(z.string(), z.unknown())]).optional(),
  autoSummarize: z.boolean().optional(),
  maxMessagesBeforeSummary: positiveInt.optional(),
  maxTokensBeforeSummary: positiveInt.optional(),
  minRecentMessages: positiveInt.optional(),
  responseReserve: z.number().int().nonnegative().optional(),
  threshold: share.optional(),
  target: share.optional(),
  retentionTokens: positiveInt.optional(),
});

/** How a `model` or `summarizer` option is checked: as a spec, or as an AI SDK model. */
type ModelSchema = typeof agentModelSpecSchema | typeof languageModel;

/** The schema of `createAgent`'s options with the given checks of `model` and `summarizer`. */
function buildAgentOptionsSchema(model: ModelSchema, summarizer: ModelSchema) {
  return z.strictObject({
    model,
    name: z.string().min(1).optional(),
    instructions: z.string().optional(),
    tools: z.record(z.string(), z.unknown()).optional(),
    recall: z.boolean().optional(),
    history: z.string().min(1).optional(),
    context: agentContextSchema.optional(),
    summarizer: summarizer.optional(),
    hooks: z
      .strictObject({
        beforeCompact: fn('beforeCompact').optional(),
        afterCompact: fn('afterCompact').optional(),
      })
      .optional(),
    store: withMethods<Store>('a store', [
      'append',
      'messages',
      'writeSnapshot',
      'latestSnapshot',
      'close',
    ]).optional(),
    session: z.string().min(1).optional(),
    maxSteps: positiveInt.optional(),
    counter: withMethods<TokenCounter>('a token counter', ['count', 'countMessage', 'countText']).optional(),
    requestTimeoutMs: positiveInt.optional(),
    background: z
      .strictObject({
        queue: withMethods<CompactionQueue>('a compaction queue', ['enqueue', 'work', 'close']),
        threshold: z.number().gt(0).lt(1).optional(),
      })
      .optional(),
    turnLease: z
      .union([
        z.literal('off'),
        z.strictObject({
          label: z.string().min(1).optional(),
          ttlMs: positiveInt.optional(),
          renewMs: positiveInt.optional(),
        }),
      ])
      .optional(),
  });
}

// The four schemas, built once (NFR-7.5): building one and compiling its first parse took a
// web server's event loop about a millisecond on every agent it built (every chat's first open).
// Schemas are immutable; zod keeps only its compiled parser in them.
const optionsSchemas = {
  specSpec: buildAgentOptionsSchema(agentModelSpecSchema, agentModelSpecSchema),
  specModel: buildAgentOptionsSchema(agentModelSpecSchema, languageModel),
  modelSpec: buildAgentOptionsSchema(languageModel, agentModelSpecSchema),
  modelModel: buildAgentOptionsSchema(languageModel, languageModel),
} as const;

/**
 * Schema of `createAgent`'s options. `model` and `summarizer` are checked as specs when they are
 * plain objects (so `model.maxInputToken` is named as an unknown key), else as AI SDK models.
 * The schemas are built once; this picks the one for the given options.
 */
export function agentOptionsSchema(options: { readonly model: unknown; readonly summarizer?: unknown }) {
  const isModelSpec = isModelSpecObject(options.model);
  const isSummarizerSpec = isModelSpecObject(options.summarizer);
  if (isModelSpec) return isSummarizerSpec ? optionsSchemas.specSpec : optionsSchemas.specModel;
  return isSummarizerSpec ? optionsSchemas.modelSpec : optionsSchemas.modelModel;
}
