import { assertMessages } from '../messages/check-messages.ts';
import type { Message } from '../messages/types.ts';
import { compactionCache } from './compaction-cache.ts';
import { type CompactOptions, parseCompactOptions } from './options.ts';
import { planWithOptions } from './plan-compaction.ts';
import type { CompactionPlan } from './types.ts';

export type { CompactOptions } from './options.ts';

/** The result of {@link compact}. */
export interface CompactResult {
  /** The projection to send: fits the budget and passes `validate` for the provider. */
  readonly messages: readonly Message[];
  /** What changed and why: the plan `messages` was built from (JSON-serialisable). */
  readonly plan: CompactionPlan;
}

/**
 * Compacts a conversation so it fits the model's context window (RT-1, stateless):
 * `planCompaction` + `applyCompactionPlan`. The input is never mutated; with no LLM
 * summarizer the result is deterministic.
 *
 * @param messages Neutral messages, oldest first (see `fromOpenAI`, `fromAnthropic`, …).
 * @param options Model or window, strategy, triggers, summarizer, hooks, `signal`.
 * @returns The projection and the plan (a report of what each stage did).
 * @throws ChatfoldError `E_INVALID_OPTIONS` for bad options (at once, before any work),
 *   `E_BUDGET_IMPOSSIBLE` when the protected minimum cannot fit; the signal's reason when aborted.
 *
 * @example
 * const { messages: fitted, plan } = await compact(messages, { model: 'gpt-4o' });
 */
export async function compact(
  messages: readonly Message[],
  options: CompactOptions = {},
): Promise<CompactResult> {
  const cache = compactionCache(options);
  // MSG-4: malformed input is a typed error naming `compact` and the path, before any work.
  const checked = assertMessages(messages, 'compact', { cache });
  const { plan, messages: projection } = await planWithOptions(
    checked,
    { ...parseCompactOptions(options, 'compact'), cache },
    { checked: true },
  );
  // The pipeline's own projection is the plan applied (property-tested); a plan this call made
  // needs none of the checks `applyCompactionPlan` gives plans that come from outside.
  return { messages: plan.compacted ? projection : messages, plan };
}
