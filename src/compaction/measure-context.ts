import type { Message, ToolDefinition } from '../messages/types.ts';
import type { Budget } from '../policy/budget.ts';
import type { CompactionDecision } from '../policy/decide.ts';
import { countUpTo } from '../tokens/count-up-to.ts';
import type { TokenCounter } from '../tokens/types.ts';
import type { CompactionFallback } from './types.ts';

/** An estimate this close to a trigger (or to the budget) is re-counted exactly. */
const EXACT_COUNT_BAND = 0.85;
/**
 * Messages are counted exactly (newest first) up to this many times the window; older ones are
 * then estimated.
 */
const HORIZON_OVER_WINDOW = 2;

/** What {@link measureContext} needs. */
export interface MeasureContextOptions {
  readonly counter: TokenCounter;
  readonly messages: readonly Message[];
  /**
   * The one decision (`decide` bound to the caller's policy and counts), for a message-token
   * count; `estimated` goes to its measure's `tokensEstimated`.
   */
  readonly decideFor: (tokens: number, estimated?: boolean) => CompactionDecision;
  readonly tools?: readonly ToolDefinition[];
  readonly signal?: AbortSignal;
  /** Ask the counter's exact endpoint when near a threshold (automatic decisions only). */
  readonly exactWhenNear: boolean;
  readonly onFallback: (fallback: CompactionFallback) => void;
}

/**
 * The most tokens worth counting exactly for a decision with this budget: twice the window.
 * Every threshold a decision compares with is at most the window (a token trigger above the
 * budget can only hold when the prompt is over the budget, which compacts first), so above
 * this every comparison comes out the same whatever the older messages hold — and a local
 * count twice the window is over it whatever the provider's own count says.
 */
export function countHorizon(budget: Budget): number {
  return HORIZON_OVER_WINDOW * budget.window;
}

/**
 * Counts the messages and decides (TRG-1..4). A counter that can count exactly through the
 * provider (TOK-4) is asked when the local estimate is near a token trigger or the budget,
 * and its count decides; if the endpoint fails, the estimate is used and a `counter`
 * fallback says so.
 *
 * A history far above every threshold is counted newest first only until that is certain
 * (`countUpTo`, issue 19 §3): the decision is the one the whole count would make, and the
 * older messages' tokens — which the compaction summarizes or drops — are estimated
 * (`estimated: true`).
 */
export async function measureContext(
  options: MeasureContextOptions,
): Promise<{ tokens: number; decision: CompactionDecision; estimated: boolean }> {
  const { counter, messages, decideFor } = options;
  const bounded = countUpTo(counter, messages, countHorizon(decideFor(0).budget));
  const tokens = bounded.total;
  const estimated = !bounded.exact;
  const decision = decideFor(tokens, estimated);
  if (counter.countExact === undefined || !options.exactWhenNear || estimated || !isNear(tokens, decision)) {
    return { tokens, decision, estimated };
  }
  try {
    const count = await counter.countExact(messages, {
      ...(options.tools === undefined ? {} : { tools: options.tools }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const exact = count.total - count.tools;
    return { tokens: exact, decision: decideFor(exact), estimated: false };
  } catch (error) {
    options.signal?.throwIfAborted();
    options.onFallback({
      source: 'counter',
      fallback: 'estimate',
      reason: `exact count failed, using the ${counter.accuracy} estimate: ${error instanceof Error ? error.message : String(error)}`,
    });
    return { tokens, decision, estimated };
  }
}

function isNear(tokens: number, decision: CompactionDecision): boolean {
  if (tokens > decision.budget.messages * EXACT_COUNT_BAND) return true;
  return decision.conditions.some(
    (condition) => condition.kind !== 'messages' && condition.value >= condition.threshold * EXACT_COUNT_BAND,
  );
}
