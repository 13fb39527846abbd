import { z } from 'zod';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { EngineCache } from '../messages/engine-cache.ts';
import type { Provider, ToolDefinition } from '../messages/types.ts';
import {
  fn,
  type OptionsOf,
  optionsObject,
  parseOptions,
  typed,
  withMethods,
} from '../options/parse-options.ts';
import { type TriggerGroup, triggerGroupSchema } from '../policy/context-policy.ts';
import type { PolicySpec } from '../policy/presets.ts';
import {
  createStrategyRegistry,
  type StrategyName,
  type StrategyOptions,
  type StrategyRegistry,
  type StrategySpec,
} from '../strategies/registry.ts';
import type { Strategy } from '../strategies/types.ts';
import type { Summarizer } from '../summarize/types.ts';
import type { TokenCounter } from '../tokens/types.ts';
import { compactionPolicy } from './compaction-policy.ts';
import type { CompactionEvent, CompactionHooks, CompactionMode } from './types.ts';

const positiveInt = z.number().int().positive();
const nonNegativeInt = z.number().int().nonnegative();
const share = z.number().gt(0).lte(1);

/**
 * The model and counting options shared by `compact()`, sessions and the integrations. Every
 * options type in this file is inferred from its schema (`OptionsOf`): one definition for what
 * is accepted at run time and what compiles.
 */
const modelOptionsShape = {
  /** Model id resolved through the registry (window, max output, tokenizer, MOD-2). */
  model: z.string().min(1).optional(),
  /** Context window; overrides the model's. */
  window: positiveInt.optional(),
  maxOutputTokens: nonNegativeInt.optional(),
  /**
   * Token counter; default: the model's tokenizer (TOK-1). A counter with `countExact`
   * (provider count endpoints) is asked for the exact count when the estimate is near a
   * trigger or over the budget.
   */
  counter: withMethods<TokenCounter>('a token counter', ['count', 'countMessage', 'countText']).optional(),
};

/** The model and counting options shared by `compact()`, sessions and the integrations. */
export type ModelOptions = OptionsOf<typeof modelOptionsShape>;

/**
 * Shorthands for the most used policy fields; each overrides the policy's field (they exist so
 * `compact(messages, { model, target: 0.4 })` reads naturally). Prefer `policy` for anything more.
 */
const policyShorthandsShape = {
  /** Replaces `policy.triggers` (OR of AND-groups; `fraction` is a share of the window). */
  triggers: typed<readonly TriggerGroup[]>(z.array(triggerGroupSchema)).optional(),
  /** Replaces `policy.floor.tokens`: no automatic compaction below this many prompt tokens. */
  floor: nonNegativeInt.optional(),
  /** Replaces `policy.target`: compact down to this share of the window. */
  target: share.optional(),
  /** Replaces `policy.responseReserve` (tokens). */
  responseReserve: nonNegativeInt.optional(),
  /** Replaces `policy.safetyMargin` (share of the window). */
  safetyMargin: z.number().gte(0).lt(1).optional(),
};

/** Shorthands for the most used policy fields (see `CompactionSettings`). */
export type PolicyShorthands = OptionsOf<typeof policyShorthandsShape>;

/** The keys of {@link ProtectSettings}. */
export const protectSettingsKeys = ['keepRecent', 'pinnedIds', 'exemptTools'] as const;

const protectSettingsShape = {
  /** Replaces `policy.protect.recentMessages`: the newest N messages are never compacted. */
  keepRecent: nonNegativeInt.optional(),
  /** Message ids never compacted. */
  pinnedIds: typed<readonly string[]>(z.array(z.string())).optional(),
  /** Tool names whose results are never masked or stubbed. */
  exemptTools: typed<readonly string[]>(z.array(z.string())).optional(),
} satisfies Record<(typeof protectSettingsKeys)[number], z.ZodType>;

/** The protect options a caller may give: exactly the keys the options schema accepts. */
export type ProtectSettings = OptionsOf<typeof protectSettingsShape>;

const hooksShape = {
  beforeCompact: fn<NonNullable<CompactionHooks['beforeCompact']>>('beforeCompact').optional(),
  afterCompact: fn<NonNullable<CompactionHooks['afterCompact']>>('afterCompact').optional(),
};

const strategyObject = withMethods<Strategy>('a strategy', ['apply']);
const strategyName = typed<StrategyName>(z.string().min(1));
const strategySpec = typed<StrategySpec>(
  z.union([strategyName, strategyObject, z.array(z.union([strategyName, strategyObject]))]),
);

/** The keys of {@link CompactionSettings}, checked once where they are given. */
export const compactionSettingsShape = {
  ...modelOptionsShape,
  ...policyShorthandsShape,
  /**
   * When to compact and what to keep: a preset name (`'default'`, `'chat-app'`,
   * `'agent-summarize'`, `'agent-truncate'`, `'rolling-summary'`, `'local-truncation'`,
   * `'local-importance'`, `'local-summarization'`), a policy object (completed from the
   * default), or `{ preset, overrides }`. Default: the `default` preset. See docs/policies.md.
   * Checked by the policy's own schema (`checkCompactionSettings`).
   */
  policy: z.custom<PolicySpec>(() => true).optional(),
  /** Tool definitions sent with the request; counted against the budget (TRG-1). */
  tools: typed<readonly ToolDefinition[]>(z.array(z.object({ name: z.string().min(1) }).loose())).optional(),
  /** Provider whose structural rules the projection must satisfy (MSG-3, SUM-7). */
  provider: z.enum(['openai', 'anthropic', 'gemini'] satisfies Provider[]).optional(),
  /** Strategy name, object, or list (STR-7). Default `DEFAULTS.strategy` (`'hybrid'`). */
  strategy: strategySpec.optional(),
  /** Per-strategy options (e.g. `{ mask: { keepRecent: 5 } }`). */
  strategyOptions: typed<StrategyOptions>(z.record(z.string(), z.unknown())).optional(),
  registry: withMethods<StrategyRegistry>('a strategy registry', ['resolve', 'register', 'names']).optional(),
  /**
   * What compaction never touches beyond the policy's `protect` (`keepRecent` replaces
   * `policy.protect.recentMessages`; the goal is `policy.protect.firstUserMessage`).
   */
  protect: optionsObject(protectSettingsShape).optional(),
  /** LLM summarizer; without one the `extractive` summarizer is used (SUM-4). */
  summarizer: fn<Summarizer>('a summarizer').optional(),
  /** Extra instructions for the summarizer (SUM-3). */
  instructions: z.string().optional(),
  hooks: optionsObject(hooksShape).optional(),
  /** Compaction events (start, progress, end, error, fallback) as they happen. */
  onEvent: fn<(event: CompactionEvent) => void>('an event listener').optional(),
};

/** How a conversation is compacted: everything but the per-call inputs. */
export type CompactionSettings = OptionsOf<typeof compactionSettingsShape>;

const compactOptionsShape = {
  ...compactionSettingsShape,
  /**
   * `'auto'` (default) compacts only when the policy's triggers fire or the prompt is over
   * budget; `'manual'` always compacts (the policy's `manual.scope`); `'overflow'` is for a
   * provider overflow error.
   */
  mode: z.enum(['auto', 'manual', 'overflow'] satisfies CompactionMode[]).optional(),
  /** Aborts the compaction and any in-flight summary; the call rejects with the signal's reason. */
  signal: z
    .custom<AbortSignal>((value) => value instanceof AbortSignal, 'expected an AbortSignal')
    .optional(),
  /** Memo tables to reuse between calls (`createEngineCache()`); default: the counter's, else fresh per call. */
  cache: withMethods<EngineCache>('an engine cache (createEngineCache())', ['table']).optional(),
};

/** Options of `compact()` and `planCompaction()`. Only a model (or a window) is required. */
export type CompactOptions = OptionsOf<typeof compactOptionsShape>;

const compactOptionsSchema = z.strictObject(compactOptionsShape);

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
