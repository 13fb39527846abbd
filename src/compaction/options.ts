import { z } from 'zod';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { EngineCache } from '../messages/engine-cache.ts';
import type { Provider, ToolDefinition } from '../messages/types.ts';
import { fn, parseOptions, withMethods } from '../options/parse-options.ts';
import { type TriggerGroup, triggerGroupSchema } from '../policy/context-policy.ts';
import type { PolicySpec } from '../policy/presets.ts';
import type { ProtectOptions } from '../strategies/protect.ts';
import {
  createStrategyRegistry,
  type StrategyOptions,
  type StrategyRegistry,
  type StrategySpec,
} from '../strategies/registry.ts';
import type { Summarizer } from '../summarize/types.ts';
import type { TokenCounter } from '../tokens/types.ts';
import { compactionPolicy } from './compaction-policy.ts';
import type { CompactionEvent, CompactionHooks, CompactionMode } from './types.ts';

/** The model and counting options shared by `compact()`, sessions and the integrations. */
export interface ModelOptions {
  /** Model id resolved through the registry (window, max output, tokenizer, MOD-2). */
  readonly model?: string;
  /** Context window; overrides the model's. */
  readonly window?: number;
  readonly maxOutputTokens?: number;
  /**
   * Token counter; default: the model's tokenizer (TOK-1). A counter with `countExact`
   * (provider count endpoints) is asked for the exact count when the estimate is near a
   * trigger or over the budget.
   */
  readonly counter?: TokenCounter;
}

/**
 * Shorthands for the most used policy fields; each overrides the policy's field (they exist so
 * `compact(messages, { model, target: 0.4 })` reads naturally). Prefer `policy` for anything more.
 */
export interface PolicyShorthands {
  /** Replaces `policy.triggers` (OR of AND-groups; `fraction` is a share of the window). */
  readonly triggers?: readonly TriggerGroup[];
  /** Replaces `policy.floor.tokens`: no automatic compaction below this many prompt tokens. */
  readonly floor?: number;
  /** Replaces `policy.target`: compact down to this share of the window. */
  readonly target?: number;
  /** Replaces `policy.responseReserve` (tokens). */
  readonly responseReserve?: number;
  /** Replaces `policy.safetyMargin` (share of the window). */
  readonly safetyMargin?: number;
}

/** The protect options a caller may give: exactly the keys the options schema accepts. */
export type ProtectSettings = Pick<ProtectOptions, (typeof protectSettingsKeys)[number]>;

/** The keys of {@link ProtectSettings}; the schema below is built from them, so the two cannot drift. */
export const protectSettingsKeys = ['keepRecent', 'pinnedIds', 'exemptTools'] as const;

/** How a conversation is compacted: everything but the per-call inputs. */
export interface CompactionSettings extends ModelOptions, PolicyShorthands {
  /**
   * When to compact and what to keep: a preset name (`'default'`, `'chat-app'`,
   * `'agent-summarize'`, `'agent-truncate'`, `'rolling-summary'`, `'local-truncation'`,
   * `'local-importance'`, `'local-summarization'`), a policy object (completed from the
   * default), or `{ preset, overrides }`. Default: the `default` preset. See docs/policies.md.
   */
  readonly policy?: PolicySpec;
  /** Tool definitions sent with the request; counted against the budget (TRG-1). */
  readonly tools?: readonly ToolDefinition[];
  /** Provider whose structural rules the projection must satisfy (MSG-3, SUM-7). */
  readonly provider?: Provider;
  /** Strategy name, object, or list (STR-7). Default `DEFAULTS.strategy` (`'hybrid'`). */
  readonly strategy?: StrategySpec;
  /** Per-strategy options (e.g. `{ mask: { keepRecent: 5 } }`). */
  readonly strategyOptions?: StrategyOptions;
  readonly registry?: StrategyRegistry;
  /**
   * What compaction never touches beyond the policy's `protect` (`keepRecent` replaces
   * `policy.protect.recentMessages`; the goal is `policy.protect.firstUserMessage`).
   */
  readonly protect?: ProtectSettings;
  /** LLM summarizer; without one the `extractive` summarizer is used (SUM-4). */
  readonly summarizer?: Summarizer;
  /** Extra instructions for the summarizer (SUM-3). */
  readonly instructions?: string;
  readonly hooks?: CompactionHooks;
  /** Compaction events (start, progress, end, error, fallback) as they happen. */
  readonly onEvent?: (event: CompactionEvent) => void;
}

/** Options of `compact()` and `planCompaction()`. Only a model (or a window) is required. */
export interface CompactOptions extends CompactionSettings {
  /**
   * `'auto'` (default) compacts only when the policy's triggers fire or the prompt is over
   * budget; `'manual'` always compacts (the policy's `manual.scope`); `'overflow'` is for a
   * provider overflow error.
   */
  readonly mode?: CompactionMode;
  /** Aborts the compaction and any in-flight summary; the call rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Memo tables to reuse between calls (`createEngineCache()`); default: the counter's, else fresh per call. */
  readonly cache?: EngineCache;
}

const positiveInt = z.number().int().positive();
const nonNegativeInt = z.number().int().nonnegative();
const share = z.number().gt(0).lte(1);

const strategyObject = withMethods<object>('a strategy', ['apply']);
const strategySpec = z.union([
  z.string().min(1),
  strategyObject,
  z.array(z.union([z.string().min(1), strategyObject])),
]);

/**
 * The keys of {@link CompactionSettings}, checked once where they are given. `satisfies` ties
 * the schema to the interface: a key in one and not the other does not compile.
 */
export const compactionSettingsShape = {
  model: z.string().min(1).optional(),
  window: positiveInt.optional(),
  maxOutputTokens: nonNegativeInt.optional(),
  counter: withMethods<TokenCounter>('a token counter', ['count', 'countMessage', 'countText']).optional(),
  policy: z.unknown().optional(),
  triggers: z.array(triggerGroupSchema).optional(),
  floor: nonNegativeInt.optional(),
  target: share.optional(),
  responseReserve: nonNegativeInt.optional(),
  safetyMargin: z.number().gte(0).lt(1).optional(),
  tools: z.array(z.object({ name: z.string().min(1) }).loose()).optional(),
  provider: z.enum(['openai', 'anthropic', 'gemini']).optional(),
  strategy: strategySpec.optional(),
  strategyOptions: z.record(z.string(), z.unknown()).optional(),
  registry: withMethods<StrategyRegistry>('a strategy registry', ['resolve', 'register', 'names']).optional(),
  protect: z
    .object({
      keepRecent: nonNegativeInt.optional(),
      pinnedIds: z.array(z.string()).optional(),
      exemptTools: z.array(z.string()).optional(),
    } satisfies Record<(typeof protectSettingsKeys)[number], z.ZodType>)
    .strict()
    .optional(),
  summarizer: fn<Summarizer>('a summarizer').optional(),
  instructions: z.string().optional(),
  hooks: z
    .object({
      beforeCompact: fn('beforeCompact').optional(),
      afterCompact: fn('afterCompact').optional(),
    })
    .strict()
    .optional(),
  onEvent: fn('an event listener').optional(),
} as const satisfies Record<keyof CompactionSettings, z.ZodType>;

const compactOptionsSchema = z
  .object({
    ...compactionSettingsShape,
    mode: z.enum(['auto', 'manual', 'overflow']).optional(),
    cache: withMethods<EngineCache>('an engine cache (createEngineCache())', ['table']).optional(),
    signal: z
      .custom<AbortSignal>((value) => value instanceof AbortSignal, 'expected an AbortSignal')
      .optional(),
  } satisfies Record<keyof CompactOptions, z.ZodType>)
  .strict();

/**
 * Checks the semantic rules a schema cannot: triggers' shape and that every strategy name
 * is known to the registry (a typo must fail now, not silently send the prompt unchanged).
 */
export function checkCompactionSettings(options: CompactionSettings, where: string): void {
  try {
    const policy = compactionPolicy(options);
    // Every stage name must be known now (a typo must fail here, not silently send the prompt unchanged).
    (options.registry ?? createStrategyRegistry()).resolve(
      options.strategy ?? policy.pipeline,
      options.strategyOptions ?? {},
    );
  } catch (error) {
    if (!ChatfoldError.isInstance(error)) throw error;
    throw new ChatfoldError(error.code, `${where}: ${error.message}`, error.details, { cause: error });
  }
}

/** Validates `compact()` / `planCompaction()` options (`E_INVALID_OPTIONS`, `E_UNKNOWN_STRATEGY`). */
export function parseCompactOptions(options: unknown, where: string): CompactOptions {
  const parsed = parseOptions<CompactOptions>(compactOptionsSchema, options, where);
  checkCompactionSettings(parsed, where);
  return parsed;
}
