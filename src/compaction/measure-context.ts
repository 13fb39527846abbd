import { DEFAULTS } from '../defaults.ts';
import type { Message, ToolDefinition } from '../messages/types.ts';
import type { ContextEvaluation } from '../policy/evaluate-context.ts';
import type { Triggers } from '../policy/triggers.ts';
import type { TokenCounter } from '../tokens/types.ts';
import type { CompactionFallback } from './types.ts';

/** An estimate this close to a trigger (or to the budget) is re-counted exactly. */
const EXACT_COUNT_BAND = 0.85;

/** What {@link measureContext} needs. */
export interface MeasureContextOptions {
  readonly counter: TokenCounter;
  readonly messages: readonly Message[];
  /** The one policy evaluation (`evaluateContext` bound to the caller's settings). */
  readonly evaluate: (tokens: number) => ContextEvaluation;
  readonly tools?: readonly ToolDefinition[];
  readonly triggers?: Triggers;
  readonly signal?: AbortSignal;
  /** Ask the counter's exact endpoint when near a threshold (automatic decisions only). */
  readonly exactWhenNear: boolean;
  readonly onFallback: (fallback: CompactionFallback) => void;
}

/**
 * Counts the messages and evaluates budget and triggers (TRG-1..4). A counter that can count
 * exactly through the provider (TOK-4) is asked when the local estimate is near a trigger or
 * the budget, and its count decides; if the endpoint fails, the estimate is used and a
 * `counter` fallback says so.
 */
export async function measureContext(
  options: MeasureContextOptions,
): Promise<{ tokens: number; evaluation: ContextEvaluation }> {
  const { counter, messages, evaluate } = options;
  const tokens = counter.count(messages).total;
  const evaluation = evaluate(tokens);
  if (
    counter.countExact === undefined ||
    !options.exactWhenNear ||
    !isNear(tokens, evaluation, options.triggers)
  ) {
    return { tokens, evaluation };
  }
  try {
    const count = await counter.countExact(messages, {
      ...(options.tools === undefined ? {} : { tools: options.tools }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const exact = count.total - count.tools;
    return { tokens: exact, evaluation: evaluate(exact) };
  } catch (error) {
    options.signal?.throwIfAborted();
    options.onFallback({
      source: 'counter',
      fallback: 'estimate',
      reason: `exact count failed, using the ${counter.accuracy} estimate: ${error instanceof Error ? error.message : String(error)}`,
    });
    return { tokens, evaluation };
  }
}

function isNear(
  tokens: number,
  evaluation: ContextEvaluation,
  triggers: Triggers = DEFAULTS.triggers,
): boolean {
  const budget = evaluation.budget.messages;
  if (tokens > budget * EXACT_COUNT_BAND) return true;
  return triggers.some(
    (group) =>
      (group.fraction !== undefined && tokens >= group.fraction * budget * EXACT_COUNT_BAND) ||
      (group.tokens !== undefined && tokens >= group.tokens * EXACT_COUNT_BAND),
  );
}
