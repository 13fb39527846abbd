// The projection's vocabulary (what compaction changes relative to the stored messages), shared
// by strategies, summarize and compaction so that none of them imports another.
import type { Message } from '../messages/types.ts';

/**
 * Identifiers mechanically extracted from summarized messages (SUM-4). They ride along with
 * every summary so what LLM summaries tend to drop — paths, commands, errors — survives.
 * Each list is deduplicated and ordered by last occurrence (newest last).
 */
export interface FactLedger {
  readonly filesRead: readonly string[];
  readonly filesModified: readonly string[];
  readonly commands: readonly string[];
  readonly urls: readonly string[];
  /** Commit hashes, issue numbers, code identifiers in backticks. */
  readonly identifiers: readonly string[];
  /** Numbers with their unit or context, e.g. `5432 port`, `12 tests`. */
  readonly numbers: readonly string[];
  readonly errors: readonly string[];
  /** Paths named in tool output (a search's matches, a status listing); absent in older records. */
  readonly pathsMentioned?: readonly string[];
  /** Kinds whose list reached its bound: older facts of that kind were left out (the newest are listed). */
  readonly leftOut?: readonly FactKind[];
}

/** The kinds of facts a ledger lists. */
export type FactKind = Exclude<keyof FactLedger, 'leftOut'>;

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
 * What a strategy changes, relative to the list it was given. Ids refer to messages of that
 * list; nothing is removed from the store, only from what is sent.
 */
export interface StrategyEdits {
  /** Ids to leave out of the projection. */
  readonly drop?: readonly string[];
  /** Messages replaced by a version with the same id (stub, mask, clip). */
  readonly replace?: readonly PlanReplacement[];
  /** Messages to add (summary, omission marker), before the message `beforeId`. */
  readonly insert?: readonly PlanInsertion[];
  /** The summary a `summarize` stage wrote (its message is one of the insertions). */
  readonly summary?: CompactionSummary;
}
