import type { Message, ToolDefinition } from '../messages/types.ts';
import type { CompactionDecision } from '../policy/decide.ts';
import type { TokenCounter } from '../tokens/types.ts';
import type { CompactionFallback } from './types.ts';

/** An estimate this close to a trigger (or to the budget) is re-counted exactly. */
const EXACT_COUNT_BAND = 0.85;

/** What {@link measureContext} needs. */
export interface MeasureContextOptions {
  readonly counter: TokenCounter;
  readonly messages: readonly Message[];
  /** The one decision (`decide` bound to the caller's policy and counts), for a message-token count. */
  readonly decideFor: (tokens: number) => CompactionDecision;
  readonly tools?: readonly ToolDefinition[];
  readonly signal?: AbortSignal;
  /** Ask the counter's exact endpoint when near a threshold (automatic decisions only). */
  readonly exactWhenNear: boolean;
  readonly onFallback: (fallback: CompactionFallback) => void;
}

/**
 * Counts the messages and decides (TRG-1..4). A counter that can count exactly through the
 * provider (TOK-4) is asked when the local estimate is near a token trigger or the budget,
 * and its count decides; if the endpoint fails, the estimate is used and a `counter`
 * fallback says so.
 */
export async function measureContext(
  options: MeasureContextOptions,
): Promise<{ tokens: number; decision: CompactionDecision }> {
  const { counter, messages, decideFor } = options;
  const tokens = counter.count(messages).total;
  const decision = decideFor(tokens);
  if (counter.countExact === undefined || !options.exactWhenNear || !isNear(tokens, decision)) {
    return { tokens, decision };
  }
  try {
    const count = await counter.countExact(messages, {
      ...(options.tools === undefined ? {} : { tools: options.tools }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const exact = count.total - count.tools;
    return { tokens: exact, decision: decideFor(exact) };
  } catch (error) {
    options.signal?.throwIfAborted();
    options.onFallback({
      source: 'counter',
      fallback: 'estimate',
      reason: `exact count failed, using the ${counter.accuracy} estimate: ${error instanceof Error ? error.message : String(error)}`,
    });
    return { tokens, decision };
  }
}

function isNear(tokens: number, decision: CompactionDecision): boolean {
  if (tokens > decision.budget.messages * EXACT_COUNT_BAND) return true;
  return decision.conditions.some(
    (condition) => condition.kind !== 'messages' && condition.value >= condition.threshold * EXACT_COUNT_BAND,
  );
}
