import type { CompactionQueue } from '../background/types.ts';
import type { CompactionSettings } from '../compaction/options.ts';
import type {
  CompactionEvent,
  CompactionMode,
  CompactionPlan,
  CompactionReport,
} from '../compaction/types.ts';
import type { Message, MessageInput, Provider, ToolDefinition } from '../messages/types.ts';
import type { ContextStatus } from '../policy/status.ts';
import type { FullStore, Store, StoredMessage } from '../stores/types.ts';
import type { UnderReport } from '../tokens/calibrated-counter.ts';

/**
 * Options of {@link createChatfold}: the compaction settings every session shares (the same
 * names as `compact()`), plus where sessions live. Checked when given (`E_INVALID_OPTIONS`).
 */
export interface ChatfoldOptions<S extends Store = FullStore> extends Omit<CompactionSettings, 'onEvent'> {
  /**
   * Where sessions live. Default: a new in-memory store (nothing survives the process). A store
   * without settings does not remember learned windows or back-offs across restarts; one without
   * search filters history in memory.
   */
  readonly store?: S;
  /** Clock for timestamps and back-offs (tests). Default `() => new Date()`. */
  readonly now?: () => Date;
  /** Every session's events, with the session id (the same events as `session.on`). */
  readonly onEvent?: (event: SessionEvent, sessionId: string) => void;
  /**
   * Compaction off the request path (issue 13): past `threshold` of the budget (default
   * `DEFAULTS.backgroundThreshold`) a session queues a job; a worker (`runCompactionWorker`,
   * `chatfold worker`) calls `session.precompact()`, which stores a plan with the LLM summary;
   * when the trigger fires, `prepare()` applies it with no model call. A request never waits
   * for a summarizer: while the job runs and the prompt fits, it is sent as is; over the
   * budget, the deterministic path fits it now.
   */
  readonly background?: { readonly queue: CompactionQueue; readonly threshold?: number };
}

/** What {@link Session.prepare} takes. */
export interface PrepareOptions {
  /** Target provider: the projection passes its rules and places the summary for it. */
  readonly provider?: Provider;
  /** Tool definitions sent with this call (counted against the budget). */
  readonly tools?: readonly ToolDefinition[];
  /**
   * The provider rejected the last prompt as too long (RT-3): compact in `overflow` mode
   * against the limit it reported (learned for later calls). Pass `parseContextOverflow(error)`;
   * `undefined` means no overflow.
   */
  readonly overflow?:
    | { readonly limit?: number | undefined; readonly actual?: number | undefined }
    | undefined;
  readonly signal?: AbortSignal;
}

/** A provider-ready prompt (RT-1). */
export interface PreparedPrompt {
  /** The projection: summary + retained messages, valid for the provider, within budget. */
  readonly messages: readonly Message[];
  readonly report: CompactionReport;
  /** Tokens of `messages` (with tools), as the session's counter sees them. */
  readonly tokens: number;
  /** Tokens of the projection that are an unchanged prefix of the previous one (RT-5). */
  readonly cachedPrefixTokens: number;
}

/** Provider-reported usage of one call (TOK-5). */
export interface SessionUsage {
  readonly inputTokens?: number | undefined;
  readonly outputTokens?: number | undefined;
  /** The assistant message the call produced, when it is already appended. */
  readonly messageId?: string | undefined;
}

/** What {@link Session.compact} takes. */
export interface SessionCompactOptions {
  /** `'manual'` (default) compacts even when no trigger fires (`/summarize`, a UI button). */
  readonly mode?: Exclude<CompactionMode, 'overflow'>;
  /** Extra instructions for the summarizer (SUM-3). */
  readonly instructions?: string;
  readonly provider?: Provider;
  readonly tools?: readonly ToolDefinition[];
  /**
   * Plan without applying, persisting or calling a model: what a compaction would do now
   * (messages to summarize, estimated tokens after) for a confirmation dialog. The summary in
   * a preview is the extractive one.
   */
  readonly dryRun?: boolean;
  /**
   * `'originals'`: summarize again from the stored original messages, not from the current
   * summary (WEB-4 "Regenerate summary"); the new summary replaces the old one. Default
   * `'projection'`: compact what is sent now.
   */
  readonly from?: 'projection' | 'originals';
  /**
   * Keep this many of the newest tokens and/or messages verbatim for this compaction only,
   * instead of the policy's manual scope (FR-2.2.2: a custom retention chosen before summarizing).
   */
  readonly retention?: { readonly tokens?: number; readonly messages?: number };
  readonly signal?: AbortSignal;
}

/** What {@link Session.history} takes: full-history browsing and search (ST-3). */
export interface HistoryQuery {
  /** Case-insensitive text to look for; without it, messages in order. */
  readonly text?: string;
  /** At most this many messages (the newest ones). */
  readonly limit?: number;
  /** Only messages with a smaller `seq` (paging backwards). */
  readonly beforeSeq?: number;
}

/** Where a stored message stands in the current projection (WEB-6, CLI `/history`). */
export type HistoryStatus = 'in-context' | 'summarized' | 'omitted' | 'superseded' | 'masked' | 'clipped';

/** A stored message with its place in the active context. */
export interface HistoryEntry extends StoredMessage {
  readonly status: HistoryStatus;
}

/** One compaction a session persisted (`/compactions`, WEB-6). */
export interface CompactionRecord {
  readonly snapshotId: string;
  readonly createdAt: string;
  readonly mode: CompactionMode;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** Messages the summary stands for after this compaction. */
  readonly messagesSummarized: number;
  readonly durationMs?: number;
  readonly summarySource?: 'llm' | 'extractive' | 'custom';
  readonly summarizerModel?: string;
}

/** `status()` (TRG-6, ST-6): the gauge plus what the store holds. */
export interface SessionStatus extends ContextStatus {
  readonly sessionId: string;
  /** Messages in the store, all of them (nothing is ever deleted). */
  readonly messagesInHistory: number;
  /** Messages the latest summary stands for. */
  readonly messagesSummarized: number;
  /** `N messages in history (M summarized)`. */
  readonly text: string;
  /** Compactions this session has run and persisted. */
  readonly compactions: number;
  /** Where the window goes (WEB-2 gauge breakdown, `/context`), in tokens. */
  readonly breakdown: ContextBreakdown;
  /** Set when the provider under-reports input tokens and the counts are chatfold's own. */
  readonly underReport?: UnderReport;
  /** A background summary ready to apply when the trigger fires ("summary ready, will apply at 80 %"). */
  readonly pendingSummary?: {
    readonly createdAt: string;
    readonly messagesSummarized: number;
    readonly tokensAfter: number;
  };
}

/** The context window split by what uses it; the parts add up to the window. */
export interface ContextBreakdown {
  readonly systemPrompt: number;
  readonly tools: number;
  readonly summary: number;
  readonly messages: number;
  readonly reservedOutput: number;
  readonly safetyMargin: number;
  readonly free: number;
}

/** Events a session emits (HK-3): the compaction events plus persistence. */
export type SessionEvent =
  | CompactionEvent
  | { readonly type: 'snapshot-written'; readonly snapshotId: string; readonly cutoffSeq: number }
  | { readonly type: 'snapshot-conflict'; readonly reason: string }
  /** The LLM summarizer failed: extractive summaries until `retryAfterMs` has passed (RT-4). */
  | { readonly type: 'summarizer-backoff'; readonly failures: number; readonly retryAfterMs: number }
  /** A context limit learned from an overflow error (RT-3). */
  | { readonly type: 'window-learned'; readonly window: number }
  /**
   * The provider reported fewer input tokens than chatfold counts by more than the tolerance
   * (prefix-cache servers reporting fresh tokens only, tools left out): the session counts
   * locally. Emitted once per session, for the first such report.
   */
  | ({ readonly type: 'usage-under-reported' } & UnderReport)
  /**
   * The stored history had a broken tool round (turns interleaved by two writers): the prompt
   * was repaired for sending — results moved to their call, another turn's unfinished round
   * held back, stray results left out. The store is unchanged.
   */
  | {
      readonly type: 'history-repaired';
      readonly moved: number;
      readonly heldBack: number;
      readonly dropped: number;
    }
  /** A background write failed (learned window, session state); the call itself went on. */
  | { readonly type: 'store-error'; readonly operation: string; readonly error: unknown }
  /** This session passed the early threshold and queued a background compaction. */
  | { readonly type: 'background-queued'; readonly tokens: number; readonly threshold: number }
  /** A background plan was stored for this session (by a worker, maybe in another process). */
  | { readonly type: 'background-ready'; readonly report: CompactionReport }
  /** The trigger fired and the background plan was applied, with no model call. */
  | { readonly type: 'background-applied'; readonly report: CompactionReport }
  /** A stored background plan could not be read (a newer format, or damaged): dropped; the session compacts without it. */
  | { readonly type: 'background-discarded'; readonly reason: string }
  /** The trigger fired while the background summary is still being written; the prompt fits, so it waits. */
  | { readonly type: 'background-waiting'; readonly tokens: number; readonly budget: number }
  /** A listener threw; other listeners still got the event. */
  | { readonly type: 'listener-error'; readonly eventType: string; readonly error: unknown };

/** A stateful conversation over a store (RT-1). */
export interface Session {
  readonly id: string;
  /** Appends (and persists) messages in order; returns them normalised, with ids. */
  append(messages: MessageInput | readonly MessageInput[]): Promise<readonly Message[]>;
  /** Builds the next prompt; compacts (and persists the snapshot) when a trigger fires. */
  prepare(options?: PrepareOptions): Promise<PreparedPrompt>;
  /** Records provider-reported usage of the last prepared prompt (calibrates the counter). */
  recordUsage(usage: SessionUsage): Promise<void>;
  /**
   * Compacts now (manual by default) and persists the snapshot; with `dryRun` returns the
   * plan without applying it.
   */
  compact(options?: SessionCompactOptions): Promise<CompactionPlan>;
  status(): Promise<SessionStatus>;
  /** The full history (or a search), each message marked with its place in the context. */
  history(query?: HistoryQuery): Promise<readonly HistoryEntry[]>;
  /** Compactions persisted for this session, oldest first. */
  compactions(): Promise<readonly CompactionRecord[]>;
  /**
   * Computes a compaction plan with the LLM summary and stores it as this session's pending
   * plan, without applying it (what a background worker runs, issue 13).
   */
  precompact(options?: { readonly signal?: AbortSignal }): Promise<CompactionPlan>;
  /**
   * Subscribes to every event, or to one type (`on('compaction-end', fn)`); returns the
   * unsubscribe function. A listener that throws never fails the session's call.
   */
  on(listener: (event: SessionEvent) => void): () => void;
  on<T extends SessionEvent['type']>(
    type: T,
    listener: (event: Extract<SessionEvent, { type: T }>) => void,
  ): () => void;
}

/** The entry point: shared configuration and a store. */
export interface Chatfold<S extends Store = FullStore> {
  readonly store: S;
  /** Opens (or creates) a session; resuming loads its latest summary (ST-6). */
  session(id: string): Promise<Session>;
  close(): Promise<void>;
}
