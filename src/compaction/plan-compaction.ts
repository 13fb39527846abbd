import { DEFAULTS } from '../defaults.ts';
import { assertMessages } from '../messages/check-messages.ts';
import type { EngineCache } from '../messages/engine-cache.ts';
import type { Message, Provider, ToolDefinition } from '../messages/types.ts';
import { assertValidChecked } from '../messages/validate.ts';
import type { ContextPolicy } from '../policy/context-policy.ts';
import { type CompactionDecision, decide } from '../policy/decide.ts';
import type { CompactionSummary } from '../projection/types.ts';
import { runPipeline } from '../strategies/pipeline.ts';
import type { ProtectOptions } from '../strategies/protect.ts';
import type { StrategyOptions, StrategyRegistry, StrategySpec } from '../strategies/registry.ts';
import { summaryRecordOf } from '../strategies/summarize.ts';
import type { Summarizer } from '../summarize/types.ts';
import { estimatesOf, splitAtLimit } from '../tokens/count-up-to.ts';
import type { TokenCounter } from '../tokens/types.ts';
import { compactionCache } from './compaction-cache.ts';
import { compactionPolicy } from './compaction-policy.ts';
import { countHorizon, measureContext } from './measure-context.ts';
import { type CompactOptions, parseCompactOptions } from './options.ts';
import { prepareCompaction } from './prepare-compaction.ts';
import { resolveCompactionModel } from './resolve-model.ts';
import type {
  CompactionEvent,
  CompactionFallback,
  CompactionHooks,
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
 * @param options Model or window, policy, summarizer, hooks, `signal`.
 * @returns The plan; `plan.compacted` is false when nothing is due (or a hook cancelled).
 * @throws ChatfoldError `E_INVALID_OPTIONS` for bad options, `E_INVALID_MESSAGES` for
 *   structurally invalid input, `E_BUDGET_IMPOSSIBLE` when the protected minimum cannot fit,
 *   `E_SUMMARY_FAILED` when a manual summary fails under a policy that makes that an error;
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
  const cache = compactionCache(options);
  const checked = assertMessages(messages, 'planCompaction', { cache });
  return (
    await planWithOptions(
      checked,
      { ...parseCompactOptions(options, 'planCompaction'), cache },
      { checked: true },
    )
  ).plan;
}

/**
 * Messages added since the last compaction, read from the projection itself: those after the
 * newest chatfold summary or omission marker (all of them when there is none). A stateless
 * caller needs no bookkeeping for `messages` triggers.
 */
export function messagesSinceCompaction(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const metadata = (messages[i] as Message).metadata?.chatfold as { transform?: unknown } | undefined;
    if (metadata?.transform === 'summary' || metadata?.transform === 'marker') return messages.length - 1 - i;
  }
  return messages.length;
}

/** The reason a plan gives when a loop guard holds automatic compaction back (TRG-5). */
export const AUTO_COMPACTION_WAITING = 'waiting after a stalled or failed compaction';

/**
 * The stateless path (`compact`, `planCompaction`, the integrations): measure, decide once, run.
 * `ran` says whether a compaction was decided and run (the plan is its outcome); `false` when
 * nothing was due or automatic compaction was waiting.
 */
export async function planWithOptions(
  input: readonly Message[],
  options: CompactOptions,
  {
    mayCancel = true,
    checked = false,
    autoCompactionWaits = false,
    onRunError,
  }: {
    readonly mayCancel?: boolean;
    /** `input` is what `assertMessages` returned to the caller just now (`compact`, `planCompaction`). */
    readonly checked?: boolean;
    /**
     * The caller's loop guard holds automatic compaction back (TRG-5, a stateless fitter's
     * per-conversation guard): an automatic decision to compact leaves the prompt unchanged
     * with {@link AUTO_COMPACTION_WAITING}, as a session's does. A prompt that does not fit,
     * an overflow and a manual request still compact. `compact()` never sets it.
     */
    readonly autoCompactionWaits?: boolean;
    /** Called when the compaction run throws (not measuring or deciding), before the error propagates. */
    readonly onRunError?: (error: unknown) => void;
  } = {},
): Promise<{ plan: CompactionPlan; messages: readonly Message[]; ran: boolean }> {
  options.signal?.throwIfAborted();
  const cache = compactionCache(options);
  // Read once (MSG-4; a checked copy passes in one lookup), then the structural rules: problems
  // would make every projection invalid; empty messages are the caller's business.
  const messages = checked ? input : assertMessages(input, 'compact', { cache });
  assertValidChecked(messages, {
    allowPendingToolCalls: true,
    ignore: ['empty-message'],
    cache,
  });
  const model = resolveCompactionModel(options);
  const policy = compactionPolicy(options);
  const fallbacks: CompactionFallback[] = [];
  const onFallback = (fallback: CompactionFallback): void => {
    fallbacks.push(fallback);
    options.onEvent?.({ type: 'compaction-fallback', ...fallback });
  };
  const toolTokens = options.tools?.length ? model.counter.count([], { tools: options.tools }).tools : 0;
  const requested = options.mode ?? 'auto';
  const sinceCompaction = messagesSinceCompaction(messages);
  const { decision } = await measureContext({
    counter: model.counter,
    messages,
    decideFor: (tokens, estimated) =>
      decide(
        {
          window: model.window,
          maxOutputTokens: model.maxOutputTokens,
          accuracy: model.counter.accuracy,
          toolTokens,
          tokens,
          tokensEstimated: estimated,
          messages: messages.length,
          messagesSinceCompaction: sinceCompaction,
        },
        policy,
        requested,
      ),
    ...(options.tools === undefined ? {} : { tools: options.tools }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    exactWhenNear: requested === 'auto',
    onFallback,
  });
  const run: CompactionRun = {
    ...options,
    cache,
    counter: model.counter,
    policy,
    mayCancel,
    warnings: model.warnings,
    fallbacks,
  };
  if (!decision.compact) return { ...(await runCompaction(messages, decision, run)), ran: false };
  if (autoCompactionWaits && decision.mode === 'auto' && !decision.mustFit) {
    const waiting: CompactionDecision = { ...decision, compact: false, reason: AUTO_COMPACTION_WAITING };
    return { ...(await runCompaction(messages, waiting, run)), ran: false };
  }
  try {
    return { ...(await runCompaction(messages, decision, run)), ran: true };
  } catch (error) {
    onRunError?.(error);
    throw error;
  }
}

/** What one compaction run needs besides the messages and the decision. */
export interface CompactionRun {
  readonly counter: TokenCounter;
  readonly policy: ContextPolicy;
  readonly provider?: Provider | undefined;
  readonly tools?: readonly ToolDefinition[] | undefined;
  /** The LLM summarizer, when this run may call it (a session leaves it out while backing off). */
  readonly summarizer?: Summarizer | undefined;
  readonly instructions?: string | undefined;
  readonly hooks?: CompactionHooks | undefined;
  readonly onEvent?: ((event: CompactionEvent) => void) | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Overrides the policy's pipeline with strategy objects or names. */
  readonly strategy?: StrategySpec | undefined;
  readonly strategyOptions?: StrategyOptions | undefined;
  readonly registry?: StrategyRegistry | undefined;
  readonly protect?: ProtectOptions | undefined;
  /** Whether a `beforeCompact` cancel is honoured (a session stops after several in a row). */
  readonly mayCancel: boolean;
  /** The memo tables (`compactionCache`); default: the counter's, else a fresh one. */
  readonly cache?: EngineCache | undefined;
  /** Warnings to carry into the plan (e.g. an unknown model's assumed window). */
  readonly warnings?: readonly string[] | undefined;
  /** Fallbacks already taken while measuring (the plan lists them too). */
  readonly fallbacks?: CompactionFallback[] | undefined;
  /** A fallback the caller took before the run (e.g. the summarizer is backing off), reported in the plan. */
  readonly summarizerUnavailable?: string | undefined;
}

/**
 * Runs one compaction for a decision already made (Engine 2: the session and the stateless
 * path both decide once, with `decide`, and call this): the hook, the events, the stages of
 * the policy's pipeline, the final fit, the plan. Never decides again.
 */
export async function runCompaction(
  messages: readonly Message[],
  decision: CompactionDecision,
  run: CompactionRun,
): Promise<{ plan: CompactionPlan; messages: readonly Message[] }> {
  const { counter, policy } = run;
  const fallbacks: CompactionFallback[] = run.fallbacks ?? [];
  const onFallback = (fallback: CompactionFallback): void => {
    fallbacks.push(fallback);
    run.onEvent?.({ type: 'compaction-fallback', ...fallback });
  };
  const tokensBefore = decision.promptTokens - decision.budget.toolTokens;
  const { budget, mode, target } = decision;
  const base = {
    version: 1 as const,
    ...(run.provider === undefined ? {} : { provider: run.provider }),
    policy: policy.name,
    budget,
    target,
    tokensBefore,
    ...(decision.tokensEstimated === true ? { tokensBeforeEstimated: true as const } : {}),
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
  const warnings: string[] = [...(run.warnings ?? [])];
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
  if (!decision.compact) return unchanged(decision.reason);
  if (mode === 'manual' && tokensBefore < policy.floor.tokens) {
    // FR-5.4.2: allowed by hand, with a warning.
    warnings.push(
      `little to gain: the prompt (${tokensBefore} tokens) is below the ${policy.floor.tokens}-token floor for automatic compaction`,
    );
  }
  if (run.summarizerUnavailable !== undefined) {
    onFallback({
      source: 'summarizer',
      stage: 'summarize',
      fallback: policy.onFailure.auto === 'skip' ? 'skipped' : 'extractive',
      reason: run.summarizerUnavailable,
    });
    if (policy.onFailure.auto === 'skip' && mode === 'auto')
      return unchanged(`the summarizer is backing off: ${run.summarizerUnavailable}`);
  }
  let previous: CompactionSummary | undefined;
  for (let i = 0; i < messages.length && previous === undefined; i++)
    previous = summaryRecordOf(messages[i] as Message);
  const hook = await run.hooks?.beforeCompact?.({
    mode,
    tokens: tokensBefore,
    target,
    budget: budget.messages,
    messageCount: messages.length,
    ...(previous === undefined
      ? {}
      : { previousSummary: { text: previous.text, ledger: previous.ledger, covers: previous.covers } }),
  });
  run.signal?.throwIfAborted();
  if (hook?.cancel === true) {
    if (decision.mustFit) warnings.push('beforeCompact asked to cancel, ignored: the prompt does not fit');
    else if (run.mayCancel) return unchanged('cancelled by beforeCompact', true);
    else
      warnings.push(
        `beforeCompact cancelled ${DEFAULTS.maxConsecutiveCancels} times in a row; compacting anyway`,
      );
  }
  const prepared = prepareCompaction(messages, decision, run, hook);
  // A history counted only from its newest messages back (issue 19 §3): the older ones are
  // sized by their estimate where a stage needs only a size.
  const split =
    decision.tokensEstimated === true ? splitAtLimit(counter, messages, countHorizon(budget)) : undefined;
  const started = performance.now();
  run.onEvent?.({ type: 'compaction-start', mode, tokens: tokensBefore, target, messages: messages.length });
  try {
    // The only asynchronous step: the stages (a summarizer call among them) and the final fit.
    const result = await runPipeline(
      messages,
      prepared.stages,
      {
        ...prepared.context,
        ...(split === undefined ? {} : { estimateOf: estimatesOf(messages, split, counter.cache) }),
        ...(run.signal === undefined ? {} : { signal: run.signal }),
        onProgress: (delta) => run.onEvent?.({ type: 'compaction-progress', stage: 'summarize', delta }),
        onFallback,
      },
      // The stages compare with the target and the budget: an estimated input is counted as far
      // as the decision was, and keeps its estimate; otherwise every list is counted in full.
      decision.tokensEstimated === true
        ? { limit: countHorizon(budget), inputTokens: tokensBefore }
        : undefined,
    );
    const dropped = result.edits.dropped;
    const tokensAfter = counter.count(result.messages).total;
    // A trigger that asked for a summary whatever the size (N messages since the last one) gets it.
    if (tokensAfter >= tokensBefore && mode === 'auto' && !decision.summarizeBelowTarget) {
      // E.g. an extractive summary of a few short messages: nothing to gain, and rewriting the
      // prompt would only break the provider's cache. (Asked for by hand, it runs, with a warning.)
      const outcome = unchanged(
        `compaction would not reduce the prompt (${tokensBefore} → ${tokensAfter} tokens)`,
      );
      run.onEvent?.({
        type: 'compaction-end',
        mode,
        report: reportOf(outcome.plan),
        durationMs: performance.now() - started,
      });
      return outcome;
    }
    if (tokensAfter >= tokensBefore && (mode === 'manual' || decision.summarizeBelowTarget)) {
      warnings.push(`the compacted prompt is not smaller (${tokensBefore} → ${tokensAfter} tokens)`);
    }
    const plan: CompactionPlan = {
      ...base,
      mode,
      compacted: dropped.length + result.edits.replaced.length + result.edits.inserted.length > 0,
      cancelled: false,
      reason: decision.reason,
      tokensAfter,
      messagesAfter: result.messages.length,
      stages: result.stages,
      ...(result.summary === undefined ? {} : { summary: result.summary }),
      fallbacks,
      warnings: [...warnings, ...result.warnings],
      dropped,
      replaced: result.edits.replaced,
      inserted: result.edits.inserted,
      ...firstKept(messages, dropped.length > 0, (id) => result.edits.drops(id)),
    };
    const report = reportOf(plan);
    await run.hooks?.afterCompact?.(report);
    run.onEvent?.({ type: 'compaction-end', mode, report, durationMs: performance.now() - started });
    return { plan, messages: result.messages };
  } catch (error) {
    run.onEvent?.({
      type: 'compaction-error',
      error,
      message: error instanceof Error ? error.message : String(error),
      durationMs: performance.now() - started,
    });
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

/** The first input message kept after the last one the plan dropped. */
function firstKept(
  messages: readonly Message[],
  dropsAny: boolean,
  isDropped: (id: string) => boolean,
): { firstKeptId?: string } {
  if (!dropsAny) return {};
  // The last dropped one, read from the end; the message after it is kept.
  let last = messages.length - 1;
  while (last >= 0 && !isDropped((messages[last] as Message).id)) last--;
  for (let i = last + 1; i < messages.length; i++) {
    const message = messages[i] as Message;
    if (!isDropped(message.id)) return { firstKeptId: message.id };
  }
  return {};
}
