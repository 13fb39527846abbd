import { DEFAULTS } from '../defaults.ts';
import { assertMessages } from '../messages/check-messages.ts';
import type { Message } from '../messages/types.ts';
import { assertValid } from '../messages/validate.ts';
import { type ContextEvaluation, evaluateContext } from '../policy/evaluate-context.ts';
import { runPipeline } from '../strategies/pipeline.ts';
import { protectedIds } from '../strategies/protect.ts';
import { createStrategyRegistry, type StrategyOptions } from '../strategies/registry.ts';
import { summaryRecordOf } from '../strategies/summarize.ts';
import { groupUnits } from '../strategies/tool-groups.ts';
import { measureContext } from './measure-context.ts';
import { type CompactOptions, parseCompactOptions } from './options.ts';
import { resolveCompactionModel } from './resolve-model.ts';
import type {
  BeforeCompactResult,
  CompactionFallback,
  CompactionMode,
  CompactionPlan,
  CompactionReport,
} from './types.ts';

/**
 * Plans a compaction (RT-1): decides whether one is due, runs the pipeline and returns what
 * changes as plain, JSON-serialisable data — ids dropped, ids replaced with their
 * replacements, messages inserted, the structured summary, tokens before and after, each
 * stage's counts. Apply it with `applyCompactionPlan`; a session persists it; a UI shows
 * it as a preview. Pure apart from the summarizer call (and the counter's exact endpoint).
 *
 * @param messages Neutral messages, oldest first.
 * @param options Model or window, strategy, triggers, summarizer, hooks, `signal`.
 * @returns The plan; `plan.compacted` is false when nothing is due (or a hook cancelled).
 * @throws ChatfoldError `E_INVALID_OPTIONS` for bad options, `E_INVALID_MESSAGES` for
 *   structurally invalid input, `E_BUDGET_IMPOSSIBLE` when the protected minimum cannot fit;
 *   the signal's reason when aborted.
 *
 * @example
 * const plan = await planCompaction(history, { model: 'gpt-4o', mode: 'manual' });
 * console.log(plan.summary?.covers.count, plan.tokensBefore, '→', plan.tokensAfter);
 */
export async function planCompaction(
  messages: readonly Message[],
  options: CompactOptions = {},
): Promise<CompactionPlan> {
  const checked = assertMessages(messages, 'planCompaction');
  return (await runPlanner(checked, parseCompactOptions(options, 'planCompaction'))).plan;
}

/** The planner, with the projection the pipeline built (for `compact()`, which applies it). */
export async function runPlanner(
  messages: readonly Message[],
  options: CompactOptions,
): Promise<{ plan: CompactionPlan; messages: readonly Message[] }> {
  options.signal?.throwIfAborted();
  // Structural problems would make every projection invalid; empty messages are the caller's business.
  assertValid(messages, { allowPendingToolCalls: true, ignore: ['empty-message'] });
  const { counter, window, maxOutputTokens, warnings: modelWarnings } = resolveCompactionModel(options);
  const fallbacks: CompactionFallback[] = [];
  const onFallback = (fallback: CompactionFallback): void => {
    fallbacks.push(fallback);
    options.onEvent?.({ type: 'compaction-fallback', ...fallback });
  };
  const toolTokens = options.tools?.length ? counter.count([], { tools: options.tools }).tools : 0;
  const measure = (tokens: number): ContextEvaluation =>
    evaluateContext(
      {
        window,
        ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
        accuracy: counter.accuracy,
        toolTokens,
        tokens,
        messagesSinceCompaction: options.messagesSinceCompaction ?? messages.length,
      },
      options,
    );
  const { tokens: tokensBefore, evaluation } = await measureContext({
    counter,
    messages,
    evaluate: measure,
    ...(options.tools === undefined ? {} : { tools: options.tools }),
    ...(options.triggers === undefined ? {} : { triggers: options.triggers }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    exactWhenNear: options.mode === undefined || options.mode === 'auto',
    onFallback,
  });
  const { budget, decision } = evaluation;
  // A manual compaction below the target still compacts (FR-5.4.2: allowed, with a warning),
  // and so does a `messages` or `tokens` trigger that fires below it (seed 004: "summarize
  // after N messages"): both compact to a share of what is there.
  const firedBelowTarget = (options.mode ?? 'auto') === 'auto' && decision.trigger === 'auto';
  const target =
    (options.mode === 'manual' || firedBelowTarget) && tokensBefore <= evaluation.target
      ? Math.floor(tokensBefore * DEFAULTS.target)
      : evaluation.target;
  const base = {
    version: 1 as const,
    ...(options.provider === undefined ? {} : { provider: options.provider }),
    budget,
    target,
    tokensBefore,
    messagesBefore: messages.length,
    tokenizer: counter.tokenizer,
    accuracy: counter.accuracy,
    input: {
      count: messages.length,
      ...(messages.length === 0
        ? {}
        : { firstId: (messages[0] as Message).id, lastId: (messages.at(-1) as Message).id }),
    },
  };
  const requested = options.mode ?? 'auto';
  const mode: CompactionMode = decision.trigger === 'overflow' ? 'overflow' : requested;
  const warnings: string[] = [...modelWarnings];
  const unchanged = (reason: string, cancelled = false) => ({
    plan: {
      ...base,
      mode,
      compacted: false,
      cancelled,
      reason,
      tokensAfter: tokensBefore,
      messagesAfter: messages.length,
      stages: [],
      fallbacks,
      warnings,
      dropped: [],
      replaced: [],
      inserted: [],
    } satisfies CompactionPlan,
    messages,
  });
  if (requested === 'auto' && !decision.shouldCompact) return unchanged(decision.reason);
  const reason =
    requested === 'manual'
      ? 'manual compaction'
      : mode === 'overflow' && requested === 'overflow'
        ? 'provider reported a context overflow'
        : decision.reason;
  if (requested === 'manual' && target < evaluation.target) {
    warnings.push(
      `little to gain: ${tokensBefore} tokens is already below the target of ${evaluation.target}; compacting to ${target}`,
    );
  }

  const previous = messages.map(summaryRecordOf).find((record) => record !== undefined);
  const hook = await options.hooks?.beforeCompact?.({
    mode,
    tokens: tokensBefore,
    target,
    budget: budget.messages,
    messageCount: messages.length,
    ...(previous === undefined
      ? {}
      : { previousSummary: { text: previous.text, ledger: previous.ledger, covers: previous.covers } }),
  });
  options.signal?.throwIfAborted();
  if (hook?.cancel === true) {
    if (mode === 'overflow') warnings.push('beforeCompact asked to cancel, ignored: the prompt does not fit');
    else if ((options.consecutiveCancels ?? 0) < DEFAULTS.maxConsecutiveCancels) {
      return unchanged('cancelled by beforeCompact', true);
    } else {
      warnings.push(
        `beforeCompact cancelled ${DEFAULTS.maxConsecutiveCancels} times in a row; compacting anyway`,
      );
    }
  }

  const started = performance.now();
  options.onEvent?.({
    type: 'compaction-start',
    mode,
    tokens: tokensBefore,
    target,
    messages: messages.length,
  });
  try {
    const run = await runPipeline(messages, stagesFor(options, hook), {
      counter,
      target,
      budget: budget.messages,
      reservedTokens: budget.toolTokens,
      protectedIds: protectedIds(messages, groupUnits(messages), options.protect, {
        maxTokens: Math.floor(target * DEFAULTS.tailShareOfTarget),
        tokensOf: (message) => counter.countMessage(message),
        maxToolTokens: Math.floor(
          budget.messages * (options.strategyOptions?.clip?.maxShare ?? DEFAULTS.clipShare),
        ),
      }),
      ...(options.provider === undefined ? {} : { provider: options.provider }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      onProgress: (delta) => options.onEvent?.({ type: 'compaction-progress', stage: 'summarize', delta }),
      onFallback,
    });
    const dropped = run.edits.dropped;
    const tokensAfter = counter.count(run.messages).total;
    if (tokensAfter >= tokensBefore && mode === 'auto') {
      // E.g. an extractive summary of a few short messages: nothing to gain, and rewriting the
      // prompt would only break the provider's cache. (Asked for by hand, it runs, with a warning.)
      const result = unchanged(
        `compaction would not reduce the prompt (${tokensBefore} → ${tokensAfter} tokens)`,
      );
      options.onEvent?.({
        type: 'compaction-end',
        report: reportOf(result.plan),
        durationMs: performance.now() - started,
      });
      return result;
    }
    if (tokensAfter >= tokensBefore && mode === 'manual') {
      warnings.push(`the compacted prompt is not smaller (${tokensBefore} → ${tokensAfter} tokens)`);
    }
    const plan: CompactionPlan = {
      ...base,
      mode,
      compacted: dropped.length + run.edits.replaced.length + run.edits.inserted.length > 0,
      cancelled: false,
      reason,
      tokensAfter,
      messagesAfter: run.messages.length,
      stages: run.stages,
      ...(run.summary === undefined ? {} : { summary: run.summary }),
      fallbacks,
      warnings: [...warnings, ...run.warnings],
      dropped,
      replaced: run.edits.replaced,
      inserted: run.edits.inserted,
      ...firstKept(messages, new Set(dropped)),
    };
    const report = reportOf(plan);
    await options.hooks?.afterCompact?.(report);
    options.onEvent?.({ type: 'compaction-end', report, durationMs: performance.now() - started });
    return { plan, messages: run.messages };
  } catch (error) {
    options.onEvent?.({ type: 'compaction-error', error, durationMs: performance.now() - started });
    throw error;
  }
}

/** The report part of a plan (no message payloads): for events, hooks and logs. */
export function reportOf(plan: CompactionReport): CompactionReport {
  const {
    version: _version,
    input: _input,
    dropped: _dropped,
    replaced: _replaced,
    inserted: _inserted,
    firstKeptId: _firstKeptId,
    ...report
  } = plan as CompactionPlan;
  return report;
}

function stagesFor(options: CompactOptions, hook: BeforeCompactResult | undefined) {
  const instructions = [options.instructions, hook?.instructions].filter(Boolean).join('\n\n');
  const strategyOptions: StrategyOptions = {
    ...options.strategyOptions,
    summarize: {
      ...options.strategyOptions?.summarize,
      ...(options.summarizer === undefined ? {} : { summarizer: options.summarizer }),
      ...(instructions === '' ? {} : { instructions }),
      ...(hook?.customSummary === undefined ? {} : { customSummary: hook.customSummary }),
    },
  };
  return (options.registry ?? createStrategyRegistry()).resolve(
    options.strategy ?? DEFAULTS.strategy,
    strategyOptions,
  );
}

/** The first input message kept after the last one the plan dropped. */
function firstKept(messages: readonly Message[], dropped: ReadonlySet<string>): { firstKeptId?: string } {
  if (dropped.size === 0) return {};
  let last = -1;
  messages.forEach((message, index) => {
    if (dropped.has(message.id)) last = index;
  });
  const kept = messages.slice(last + 1).find((message) => !dropped.has(message.id));
  return kept === undefined ? {} : { firstKeptId: kept.id };
}
