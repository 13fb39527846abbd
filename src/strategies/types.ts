import type { Message, Provider } from '../messages/types.ts';
import type { TokenCounter } from '../tokens/types.ts';

/**
 * What every strategy gets besides the messages. Strategies are pure and deterministic:
 * same messages + same context → same result, no I/O, input never mutated (STR-*).
 */
export interface StrategyContext {
  readonly counter: TokenCounter;
  /** Token count the stage should bring the projection down to (hysteresis target, TRG-4). */
  readonly target: number;
  /** Hard limit the final projection must fit (TRG-1). */
  readonly budget: number;
  /** Tokens outside the messages that also count (tool definitions), already subtracted from nothing. */
  readonly reservedTokens: number;
  /** Ids of messages that must reach the projection unchanged (STR-8). */
  readonly protectedIds: ReadonlySet<string>;
  /** Provider whose structural rules the result must satisfy; undefined = provider-neutral. */
  readonly provider?: Provider;
}

/** What one strategy did, for the compaction report. */
export interface StageEffect {
  readonly stage: string;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** Messages removed from the projection (they stay in the store). */
  readonly dropped: number;
  /** Messages whose content was replaced by a stub or placeholder. */
  readonly stubbed: number;
  /** Messages folded into a summary. */
  readonly summarized: number;
  /** Messages whose content was clipped. */
  readonly clipped: number;
  readonly notes: readonly string[];
}

/** A strategy's output. Messages it changed keep their id and carry `metadata.chatfold`. */
export interface StrategyResult {
  readonly messages: readonly Message[];
  readonly effect: Omit<StageEffect, 'stage' | 'tokensBefore' | 'tokensAfter'>;
}

/** A named compaction step (STR-1..7). `apply` may be async only for LLM-backed steps. */
export interface Strategy {
  readonly name: string;
  apply(messages: readonly Message[], context: StrategyContext): StrategyResult | Promise<StrategyResult>;
}
