import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { Message, Provider, ToolDefinition } from '../messages/types.ts';
import { assertValid } from '../messages/validate.ts';
import { type Budget, computeBudget } from '../policy/budget.ts';
import {
  checkTriggers,
  DEFAULT_FLOOR,
  DEFAULT_TARGET,
  evaluateTriggers,
  type Triggers,
} from '../policy/triggers.ts';
import { chatfoldMetadata } from '../strategies/chatfold-metadata.ts';
import { DEFAULT_CLIP_SHARE } from '../strategies/clip.ts';
import { runPipeline } from '../strategies/pipeline.ts';
import { type ProtectOptions, protectedIds } from '../strategies/protect.ts';
import {
  createStrategyRegistry,
  type StrategyOptions,
  type StrategyRegistry,
  type StrategySpec,
} from '../strategies/registry.ts';
import { groupUnits } from '../strategies/tool-groups.ts';
import { parseSummaryMessage } from '../summarize/summary-message.ts';
import type { Summarizer } from '../summarize/types.ts';
import type { TokenCounter } from '../tokens/types.ts';
import { resolveCompactionModel } from './resolve-model.ts';
import type {
  BeforeCompactResult,
  CompactionEvent,
  CompactionHooks,
  CompactionReport,
  CompactionSummary,
  CompactionTrigger,
} from './types.ts';

/** The verbatim recent tail may use at most this share of the target (the newest unit always stays). */
export const TAIL_SHARE_OF_TARGET = 0.5;

/** After this many consecutive cancels by `beforeCompact`, the next compaction runs anyway (HK-1). */
export const MAX_CONSECUTIVE_CANCELS = 3;

/** Options of {@link compact}. Only a model (or a window) is required. */
export interface CompactOptions {
  /** Model id resolved through the registry (window, max output, tokenizer, MOD-2). */
  readonly model?: string;
  /** Context window; overrides the model's. */
  readonly window?: number;
  readonly maxOutputTokens?: number;
  readonly responseReserve?: number;
  readonly safetyMargin?: number;
  /** Token counter; default: the model's tokenizer (TOK-1). */
  readonly counter?: TokenCounter;
  /** Tool definitions sent with the request; counted against the budget (TRG-1). */
  readonly tools?: readonly ToolDefinition[];
  /** Provider whose structural rules the projection must satisfy (MSG-3, SUM-7). */
  readonly provider?: Provider;
  /** Strategy name, object, or list (STR-7). Default `'hybrid'`. */
  readonly strategy?: StrategySpec;
  /** Per-strategy options (e.g. `{ mask: { keepRecent: 5 } }`). */
  readonly strategyOptions?: StrategyOptions;
  readonly registry?: StrategyRegistry;
  /**
   * `'auto'` (default) compacts only when a trigger fires or the prompt is over budget;
   * `'manual'` always compacts to the target; `'overflow'` is for a provider overflow error.
   */
  readonly mode?: CompactionTrigger;
  readonly triggers?: Triggers;
  /** No auto-compaction below this many tokens (TRG-3). Default 2,000. */
  readonly floor?: number;
  /** Compact down to this share of the budget (TRG-4). Default 0.5. */
  readonly target?: number;
  /** Messages appended since the last compaction, for `messages` triggers. Default: all. */
  readonly messagesSinceCompaction?: number;
  readonly protect?: ProtectOptions;
  /** LLM summarizer; without one the `extractive` summarizer is used (SUM-4). */
  readonly summarizer?: Summarizer;
  /** Extra instructions for the summarizer (SUM-3). */
  readonly instructions?: string;
  readonly hooks?: CompactionHooks;
  readonly onEvent?: (event: CompactionEvent) => void;
}

/** The result of {@link compact}. */
export interface CompactResult {
  /** The projection to send: fits the budget and passes `validate` for the provider. */
  readonly messages: readonly Message[];
  readonly report: CompactionReport;
}

const cancelsByHooks = new WeakMap<CompactionHooks, number>();

/**
 * Compacts a conversation so it fits the model's context window (RT-1, stateless).
 * The input is never mutated; with no LLM summarizer the result is deterministic.
 *
 * @param messages Neutral messages, oldest first (see `fromOpenAI`, `fromAnthropic`, …).
 * @param options Model or window, strategy, triggers, summarizer, hooks.
 * @returns The projection and a report of what each stage did.
 *
 * @example
 * const { messages: fitted, report } = await compact(messages, { model: 'gpt-4o' });
 */
export async function compact(
  messages: readonly Message[],
  options: CompactOptions = {},
): Promise<CompactResult> {
  // Structural problems would make every projection invalid; empty messages are the caller's business.
  assertValid(messages, { allowPendingToolCalls: true, ignore: ['empty-message'] });
  const { counter, window, maxOutputTokens, warnings: modelWarnings } = resolveCompactionModel(options);
  const triggers = checkTriggers(options.triggers ?? [{ fraction: 0.8 }]);
  const targetShare = options.target ?? DEFAULT_TARGET;
  if (!(targetShare > 0 && targetShare <= 1)) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `target: expected a share of the budget in (0, 1], received ${targetShare}`,
      {
        target: targetShare,
      },
    );
  }
  const toolTokens = options.tools?.length ? counter.count([], { tools: options.tools }).tools : 0;
  const budget = computeBudget({
    window,
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    ...(options.responseReserve === undefined ? {} : { responseReserve: options.responseReserve }),
    ...(options.safetyMargin === undefined ? {} : { safetyMargin: options.safetyMargin }),
    accuracy: counter.accuracy,
    toolTokens,
  });
  const tokensBefore = counter.count(messages).total;
  const target = Math.floor(budget.messages * targetShare);
  const base = {
    ...(options.provider === undefined ? {} : { provider: options.provider }),
    budget,
    target,
    tokensBefore,
    messagesBefore: messages.length,
    tokenizer: counter.tokenizer,
    accuracy: counter.accuracy,
  };
  const unchanged = (reason: string, extra: Partial<CompactionReport> = {}): CompactResult => ({
    messages,
    report: {
      ...base,
      compacted: false,
      cancelled: false,
      reason,
      tokensAfter: tokensBefore,
      messagesAfter: messages.length,
      stages: [],
      warnings: [...modelWarnings],
      ...extra,
    },
  });

  const mode = options.mode ?? 'auto';
  let trigger: CompactionTrigger = mode;
  let reason = mode === 'manual' ? 'manual compaction' : 'provider reported a context overflow';
  const warnings: string[] = [...modelWarnings];
  if (mode === 'auto' || tokensBefore > budget.messages) {
    const decision = evaluateTriggers(
      {
        tokens: tokensBefore,
        budget: budget.messages,
        messagesSinceCompaction: options.messagesSinceCompaction ?? messages.length,
      },
      { triggers, floor: options.floor ?? DEFAULT_FLOOR },
    );
    if (decision.trigger === 'overflow') trigger = 'overflow';
    if (mode === 'auto') {
      if (!decision.shouldCompact) return unchanged(decision.reason);
      reason = decision.reason;
    }
  }
  if (mode === 'manual' && tokensBefore <= target) {
    warnings.push(`little to gain: ${tokensBefore} tokens is already below the target of ${target}`);
  }

  const previousSummary = findPreviousSummary(messages);
  const hookResult = await runBeforeCompact(options.hooks, {
    trigger,
    tokens: tokensBefore,
    target,
    budget: budget.messages,
    messageCount: messages.length,
    ...(previousSummary === undefined ? {} : { previousSummary }),
  });
  if (hookResult?.cancel === true) {
    if (trigger === 'overflow')
      warnings.push('beforeCompact asked to cancel, ignored: the prompt does not fit');
    else if (options.hooks !== undefined && countCancel(options.hooks) <= MAX_CONSECUTIVE_CANCELS) {
      return unchanged('cancelled by beforeCompact', { cancelled: true, trigger });
    } else
      warnings.push(
        `beforeCompact cancelled more than ${MAX_CONSECUTIVE_CANCELS} times in a row; compacting anyway`,
      );
  }
  if (options.hooks !== undefined) cancelsByHooks.set(options.hooks, 0);

  const started = performance.now();
  options.onEvent?.({
    type: 'compaction-start',
    trigger,
    tokens: tokensBefore,
    target,
    messages: messages.length,
  });
  try {
    const report = await runCompaction(messages, options, {
      base,
      budget,
      target,
      trigger,
      reason,
      warnings,
      counter,
      hookResult,
    });
    await options.hooks?.afterCompact?.(report.report);
    options.onEvent?.({
      type: 'compaction-end',
      report: report.report,
      durationMs: performance.now() - started,
    });
    return report;
  } catch (error) {
    options.onEvent?.({ type: 'compaction-error', error, durationMs: performance.now() - started });
    throw error;
  }
}

async function runCompaction(
  messages: readonly Message[],
  options: CompactOptions,
  run: {
    base: Omit<
      CompactionReport,
      'compacted' | 'cancelled' | 'reason' | 'tokensAfter' | 'messagesAfter' | 'stages' | 'warnings'
    >;
    budget: Budget;
    target: number;
    trigger: CompactionTrigger;
    reason: string;
    warnings: string[];
    counter: TokenCounter;
    hookResult: BeforeCompactResult | undefined;
  },
): Promise<CompactResult> {
  const registry = options.registry ?? createStrategyRegistry();
  const instructions = [options.instructions, run.hookResult?.customInstructions]
    .filter(Boolean)
    .join('\n\n');
  const strategyOptions: StrategyOptions = {
    ...options.strategyOptions,
    summarize: {
      ...options.strategyOptions?.summarize,
      ...(options.summarizer === undefined ? {} : { summarizer: options.summarizer }),
      ...(instructions === '' ? {} : { instructions }),
      ...(run.hookResult?.customSummary === undefined ? {} : { customSummary: run.hookResult.customSummary }),
    },
  };
  const stages = registry.resolve(options.strategy ?? 'hybrid', strategyOptions);
  const units = groupUnits(messages);
  const context = {
    counter: run.counter,
    target: run.target,
    budget: run.budget.messages,
    reservedTokens: run.budget.toolTokens,
    protectedIds: protectedIds(messages, units, options.protect, {
      maxTokens: Math.floor(run.target * TAIL_SHARE_OF_TARGET),
      tokensOf: (message) => run.counter.countMessage(message),
      maxToolTokens: Math.floor(
        run.budget.messages * (options.strategyOptions?.clip?.maxShare ?? DEFAULT_CLIP_SHARE),
      ),
    }),
    ...(options.provider === undefined ? {} : { provider: options.provider }),
  };
  const result = await runPipeline(messages, stages, context);
  const summary = summaryOf(result.messages);
  return {
    messages: result.messages,
    report: {
      ...run.base,
      compacted: result.messages !== messages,
      cancelled: false,
      trigger: run.trigger,
      reason: run.reason,
      tokensAfter: run.counter.count(result.messages).total,
      messagesAfter: result.messages.length,
      stages: result.stages,
      ...(summary === undefined ? {} : { summary }),
      warnings: [...run.warnings, ...result.warnings],
    },
  };
}

async function runBeforeCompact(
  hooks: CompactionHooks | undefined,
  context: Parameters<NonNullable<CompactionHooks['beforeCompact']>>[0],
): Promise<BeforeCompactResult | undefined> {
  if (hooks?.beforeCompact === undefined) return undefined;
  return (await hooks.beforeCompact(context)) ?? undefined;
}

function countCancel(hooks: CompactionHooks): number {
  const count = (cancelsByHooks.get(hooks) ?? 0) + 1;
  cancelsByHooks.set(hooks, count);
  return count;
}

function findPreviousSummary(messages: readonly Message[]): string | undefined {
  for (const message of messages) {
    if (chatfoldMetadata(message)?.transform !== 'summary') continue;
    const part = message.parts[0];
    if (part?.type === 'text') return parseSummaryMessage(part.text)?.text ?? part.text;
  }
  return undefined;
}

function summaryOf(messages: readonly Message[]): CompactionSummary | undefined {
  for (const message of messages) {
    const record = chatfoldMetadata(message);
    if (record?.transform !== 'summary') continue;
    const part = message.parts[0];
    const parsed = part?.type === 'text' ? parseSummaryMessage(part.text) : undefined;
    if (parsed === undefined) return undefined;
    return {
      text: parsed.text,
      ledger: parsed.ledger,
      messagesSummarized: typeof record.summarized === 'number' ? record.summarized : 0,
    };
  }
  return undefined;
}
