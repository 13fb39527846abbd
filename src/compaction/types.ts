import type { Provider } from '../messages/types.ts';
import type { Budget } from '../policy/budget.ts';
import type {
  CompactionFallback,
  CompactionSummary,
  PlanInsertion,
  PlanReplacement,
  StageEffect,
} from '../projection/types.ts';
import type { CountAccuracy } from '../tokens/types.ts';

/** Why a compaction runs (HK-1): a trigger fired, the caller asked, or the prompt did not fit. One name everywhere: events, stores, the web wire. */
export type { CompactionMode } from '../policy/decide.ts';
export type {
  CompactionFallback,
  CompactionSummary,
  PlanInsertion,
  PlanReplacement,
  StageEffect,
  SummaryCoverage,
} from '../projection/types.ts';

import type { CompactionMode } from '../policy/decide.ts';

/**
 * Everything a compaction decided, without the edits (RT-1): for logs, UIs, events and
 * `afterCompact`. Deterministic without an LLM.
 */
export interface CompactionReport {
  /** True when the projection differs from the input. */
  readonly compacted: boolean;
  readonly cancelled: boolean;
  readonly mode: CompactionMode;
  /** Why it ran or did not, e.g. `prompt 3,900 ≥ 95 % of the window 4,096`. */
  readonly reason: string;
  /** The name of the policy that decided (`default`, `chat-app`, `custom`, …). */
  readonly policy?: string;
  readonly provider?: Provider;
  readonly budget: Budget;
  /** Tokens the projection should get down to (hysteresis, TRG-4). */
  readonly target: number;
  readonly tokensBefore: number;
  /**
   * True when `tokensBefore` estimates the oldest messages: a history many times the window is
   * counted exactly, newest first, only until the decision is certain (the part a compaction
   * summarizes or drops is measured by its length). The stages' counts above the budget are
   * estimates too; `tokensAfter` is always exact.
   */
  readonly tokensBeforeEstimated?: true;
  readonly tokensAfter: number;
  readonly messagesBefore: number;
  readonly messagesAfter: number;
  readonly tokenizer: string;
  readonly accuracy: CountAccuracy;
  /** One entry per stage that ran, in order. */
  readonly stages: readonly StageEffect[];
  readonly summary?: CompactionSummary;
  readonly fallbacks: readonly CompactionFallback[];
  readonly warnings: readonly string[];
}

/**
 * A compaction as plain, JSON-serialisable data (RT-1): what changes relative to the input,
 * never the whole new list. `applyCompactionPlan(input, plan)` turns it into the projection;
 * a session persists it; a UI previews it (`dryRun`).
 */
export interface CompactionPlan extends CompactionReport {
  readonly version: 1;
  /** The input the plan was computed for: apply it to this list or one that extends it. */
  readonly input: { readonly count: number; readonly firstId?: string; readonly lastId?: string };
  /** Ids of input messages left out of the projection. */
  readonly dropped: readonly string[];
  /** Input messages replaced by a shorter version with the same id. */
  readonly replaced: readonly PlanReplacement[];
  /** Messages chatfold adds (summary, markers), in projection order. */
  readonly inserted: readonly PlanInsertion[];
  /** The first input message kept after everything the plan removed (pi-mono's firstKeptEntryId). */
  readonly firstKeptId?: string;
}

/** What `beforeCompact` sees (HK-1). */
export interface BeforeCompactContext {
  readonly mode: CompactionMode;
  readonly tokens: number;
  readonly target: number;
  readonly budget: number;
  readonly messageCount: number;
  /** The summary already in the projection, if any. */
  readonly previousSummary?: Pick<CompactionSummary, 'text' | 'ledger' | 'covers'>;
}

/** What `beforeCompact` may return (HK-1). */
export interface BeforeCompactResult {
  /** Skip this compaction. Ignored on overflow and after too many consecutive cancels. */
  readonly cancel?: boolean;
  /** Extra instructions for the summarizer. */
  readonly instructions?: string;
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

/** A compaction began (HK-3): a trigger fired, someone asked, or the prompt did not fit. */
export interface CompactionStartEvent {
  readonly type: 'compaction-start';
  readonly mode: CompactionMode;
  /** Tokens of the messages before compacting. */
  readonly tokens: number;
  /** Tokens it compacts down to. */
  readonly target: number;
  /** Messages before compacting. */
  readonly messages: number;
}

/** A stage started (`delta` undefined), or the summarizer streamed more text (`delta`). */
export interface CompactionProgressEvent {
  readonly type: 'compaction-progress';
  /** The stage running, e.g. `supersede`, `summarize`. */
  readonly stage: string;
  readonly delta?: string | undefined;
}

/** A compaction finished (HK-3). `report.compacted` is false when it was cancelled or had nothing to do. */
export interface CompactionEndEvent {
  readonly type: 'compaction-end';
  readonly mode: CompactionMode;
  readonly report: CompactionReport;
  readonly durationMs: number;
}

/** A compaction failed; nothing changed. */
export interface CompactionErrorEvent {
  readonly type: 'compaction-error';
  readonly error: unknown;
  /** The error's message, for display. */
  readonly message: string;
  readonly durationMs: number;
}

/** A runtime fault took a fallback and the call went on (RT-4); never silent. */
export type CompactionFallbackEvent = { readonly type: 'compaction-fallback' } & CompactionFallback;

/**
 * Events for UIs and logs (HK-3, EV-1): one vocabulary from the core to sessions, the agent
 * runtime and the web wire; noun-verb names; the mode is `auto | manual | overflow` everywhere.
 */
export type CompactionEvent =
  | CompactionStartEvent
  | CompactionProgressEvent
  | CompactionEndEvent
  | CompactionErrorEvent
  | CompactionFallbackEvent;
