import { DEFAULTS } from '../defaults.ts';
import type { CountAccuracy } from '../tokens/types.ts';
import { type Budget, computeBudget } from './budget.ts';
import { evaluateTriggers, type TriggerDecision, type Triggers } from './triggers.ts';

/** The policy knobs every caller shares (`compact()`, sessions, the integrations). */
export interface ContextPolicy {
  readonly triggers?: Triggers;
  /** No auto-compaction below this many tokens (TRG-3). */
  readonly floor?: number;
  /** Compact down to this share of the budget (TRG-4). */
  readonly target?: number;
  readonly responseReserve?: number;
  readonly safetyMargin?: number;
}

/** What {@link evaluateContext} measures. */
export interface ContextMeasure {
  readonly window: number;
  readonly maxOutputTokens?: number;
  readonly accuracy: CountAccuracy;
  /** Tokens of the tool definitions (outside the message budget). */
  readonly toolTokens: number;
  /** Tokens of the messages. */
  readonly tokens: number;
  readonly messagesSinceCompaction: number;
}

/** The budget, the target in tokens and whether a trigger fires, from one evaluation. */
export interface ContextEvaluation {
  readonly budget: Budget;
  /** Tokens a compaction should bring the messages down to. */
  readonly target: number;
  readonly decision: TriggerDecision;
}

/**
 * The one evaluation of budget and triggers (TRG-1..4), used by `compact()`,
 * `planCompaction()` and `session.prepare()` alike, with {@link DEFAULTS} for what is unset.
 */
export function evaluateContext(measure: ContextMeasure, policy: ContextPolicy = {}): ContextEvaluation {
  const budget = computeBudget({
    window: measure.window,
    ...(measure.maxOutputTokens === undefined ? {} : { maxOutputTokens: measure.maxOutputTokens }),
    ...(policy.responseReserve === undefined ? {} : { responseReserve: policy.responseReserve }),
    ...(policy.safetyMargin === undefined ? {} : { safetyMargin: policy.safetyMargin }),
    accuracy: measure.accuracy,
    toolTokens: measure.toolTokens,
  });
  const decision = evaluateTriggers(
    {
      tokens: measure.tokens,
      budget: budget.messages,
      messagesSinceCompaction: measure.messagesSinceCompaction,
    },
    { triggers: policy.triggers ?? DEFAULTS.triggers, floor: policy.floor ?? DEFAULTS.floor },
  );
  return { budget, target: Math.floor(budget.messages * (policy.target ?? DEFAULTS.target)), decision };
}
