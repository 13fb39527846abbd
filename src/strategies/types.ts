import type { CompactionFallback, StageEffect, StrategyEdits } from '../projection/types.ts';

export type { StrategyEdits } from '../projection/types.ts';

import type { EngineCache } from '../messages/engine-cache.ts';
import type { Message, Provider } from '../messages/types.ts';
import type { TokenCounter } from '../tokens/types.ts';

/**
 * What every strategy gets besides the messages. Strategies are pure and deterministic:
 * same messages + same context → same edits, no I/O (an LLM summarizer is the one
 * exception, behind `summarize`), input never mutated (STR-*).
 */
export interface StrategyContext {
  readonly counter: TokenCounter;
  /** Token count the stage should bring the projection down to (hysteresis target, TRG-4). */
  readonly target: number;
  /** Hard limit the final projection must fit (TRG-1). */
  readonly budget: number;
  /** Tokens outside the messages that also count (tool definitions). */
  readonly reservedTokens: number;
  /** Ids of messages that must reach the projection unchanged (STR-8). */
  readonly protectedIds: ReadonlySet<string>;
  /** Provider whose structural rules the result must satisfy; undefined = provider-neutral. */
  readonly provider?: Provider;
  /** Aborts an in-flight summary; strategies check it between steps. */
  readonly signal?: AbortSignal;
  /** Streams progress (summary text as it arrives) to `compaction-progress` events. */
  readonly onProgress?: (delta: string) => void;
  /** Records a runtime fault that took a fallback (summarizer failed → extractive). */
  readonly onFallback?: (fallback: CompactionFallback) => void;
  /**
   * The run must make its summary (or apply its retention) even below the target: a manual
   * request or a trigger that counts messages (the decision's `summarizeBelowTarget`).
   */
  readonly force?: boolean;
  /** What this run covers: `all` messages (a manual "summarize everything") or all but the retained tail. */
  readonly scope?: 'all' | 'retention';
  /**
   * The memo tables of whoever owns this compaction (a session, a caller's `cache`); without
   * one, each stage works from a fresh cache.
   */
  readonly cache?: EngineCache;
  /**
   * A long history is counted exactly only from the newest message back to well past the
   * budget; this estimates an older message's tokens from its length (undefined for every
   * message that is counted). For a stage that needs only a size of what the compaction will
   * summarize or drop (how much to clip); decisions near the budget use `counter`.
   */
  readonly estimateOf?: (message: Message) => number | undefined;
}

/** A strategy's output: its edits and what they amount to. */
export interface StrategyResult {
  readonly edits: StrategyEdits;
  readonly effect: Omit<StageEffect, 'stage' | 'tokensBefore' | 'tokensAfter'>;
}

/** A named compaction step (STR-1..7). `apply` may be async only for LLM-backed steps. */
export interface Strategy {
  readonly name: string;
  apply(messages: readonly Message[], context: StrategyContext): StrategyResult | Promise<StrategyResult>;
}
