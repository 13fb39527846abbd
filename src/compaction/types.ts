import type { Message, Provider } from '../messages/types.ts';
import type { Budget } from '../policy/budget.ts';
import type { FactLedger } from '../summarize/types.ts';
import type { CountAccuracy } from '../tokens/types.ts';

/** Why a compaction runs (HK-1): a trigger fired, the caller asked, or the prompt did not fit. One name everywhere: events, stores, the web wire. */
export type { CompactionMode } from '../policy/decide.ts';

import type { CompactionMode } from '../policy/decide.ts';

/** The stored messages a summary stands for, oldest and newest included. */
export interface SummaryCoverage {
  readonly firstId: string;
  readonly lastId: string;
  /** Messages it stands for, including those of earlier summaries it merged. */
  readonly count: number;
}

/** The summary a compaction produced (SUM-*), as data: never re-parsed from message text. */
export interface CompactionSummary {
  readonly text: string;
  /** Paths, commands, URLs, errors extracted mechanically from what it covers (SUM-4). */
  readonly ledger: FactLedger;
  readonly covers: SummaryCoverage;
  /** `llm`: the summarizer wrote it; `extractive`: no summarizer or it failed; `custom`: a hook's text. */
  readonly source: 'llm' | 'extractive' | 'custom';
  /** The summarizer's model id, when it reported one. */
  readonly model?: string;
  /** Id of the summary message in the projection. */
  readonly messageId: string;
}

/** What one pipeline stage did, as counts (the notes are for people). */
export interface StageEffect {
  readonly stage: string;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** Messages removed from the projection (they stay in the store). */
  readonly dropped: number;
  /** Tool outputs replaced by a stub because a later call superseded them (STR-1). */
  readonly stubbed: number;
  /** Old tool outputs replaced by a placeholder (STR-2). */
  readonly masked: number;
  /** Messages folded into a summary (STR-5). */
  readonly summarized: number;
  /** Messages whose content was clipped head+tail (STR-6). */
  readonly clipped: number;
  readonly notes: readonly string[];
}

/** A runtime fault that took a fallback path (never silent: also emitted as an event). */
export interface CompactionFallback {
  /** What failed: the LLM summarizer, a stage of the pipeline, the counter's exact endpoint. */
  readonly source: 'summarizer' | 'stage' | 'counter';
  /** What was used instead, e.g. `extractive`, `skipped`, `clipped`, `estimate`. */
  readonly fallback: string;
  readonly reason: string;
  readonly stage?: string;
}

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

/** A message of the input replaced by a shorter one with the same id (stub, mask, clip). */
export interface PlanReplacement {
  readonly id: string;
  readonly message: Message;
}

/**
 * A message chatfold inserts (summary, omission marker), placed right before the input
 * message `beforeId` (whether or not that one is kept); `null` places it at the end.
 */
export interface PlanInsertion {
  readonly beforeId: string | null;
  readonly message: Message;
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
