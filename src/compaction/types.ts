import type { Provider } from '../messages/types.ts';
import type { Budget } from '../policy/budget.ts';
import type { StageEffect } from '../strategies/types.ts';
import type { FactLedger } from '../summarize/types.ts';
import type { CountAccuracy } from '../tokens/types.ts';

/** Why a compaction ran (HK-1): a trigger fired, the caller asked, or the prompt did not fit. */
export type CompactionTrigger = 'auto' | 'manual' | 'overflow';

/** The summary a compaction produced, when a `summarize` stage ran. */
export interface CompactionSummary {
  readonly text: string;
  readonly ledger: FactLedger;
  /** Messages the summary stands for (including those of earlier summaries it merged). */
  readonly messagesSummarized: number;
}

/** Everything a compaction did, for logs, UIs and tests (RT-1). Deterministic without an LLM. */
export interface CompactionReport {
  /** True when the projection differs from the input. */
  readonly compacted: boolean;
  readonly trigger?: CompactionTrigger;
  /** Why it ran or did not, e.g. `tokens 41,200 ≥ 80 % of budget 50,000`. */
  readonly reason: string;
  readonly cancelled: boolean;
  readonly provider?: Provider;
  readonly budget: Budget;
  /** Tokens the projection should get down to (hysteresis, TRG-4). */
  readonly target: number;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly messagesBefore: number;
  readonly messagesAfter: number;
  readonly tokenizer: string;
  readonly accuracy: CountAccuracy;
  /** One entry per stage that ran, in order. */
  readonly stages: readonly StageEffect[];
  readonly summary?: CompactionSummary;
  readonly warnings: readonly string[];
}

/** What `beforeCompact` sees (HK-1). */
export interface BeforeCompactContext {
  readonly trigger: CompactionTrigger;
  readonly tokens: number;
  readonly target: number;
  readonly budget: number;
  readonly messageCount: number;
  /** The previous summary in the projection, if any. */
  readonly previousSummary?: string;
}

/** What `beforeCompact` may return (HK-1). */
export interface BeforeCompactResult {
  /** Skip this compaction. Ignored on overflow and after too many consecutive cancels. */
  readonly cancel?: boolean;
  /** Extra instructions for the summarizer. */
  readonly customInstructions?: string;
  /** Use this text as the summary instead of calling the summarizer. */
  readonly customSummary?: string;
}

/** Compaction hooks (HK-1, HK-2). */
export interface CompactionHooks {
  beforeCompact?(
    context: BeforeCompactContext,
  ): BeforeCompactResult | undefined | Promise<BeforeCompactResult | undefined>;
  afterCompact?(report: CompactionReport): void | Promise<void>;
}

/** Events for UIs (HK-3); noun-verb names, one vocabulary. */
export type CompactionEvent =
  | {
      readonly type: 'compaction-start';
      readonly trigger: CompactionTrigger;
      readonly tokens: number;
      readonly target: number;
      readonly messages: number;
    }
  | { readonly type: 'compaction-end'; readonly report: CompactionReport; readonly durationMs: number }
  | { readonly type: 'compaction-error'; readonly error: unknown; readonly durationMs: number };
