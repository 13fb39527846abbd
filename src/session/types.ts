import type { CompactOptions } from '../compaction/compact.ts';
import type { CompactionEvent, CompactionReport } from '../compaction/types.ts';
import type { Message, MessageInput, Provider, ToolDefinition } from '../messages/types.ts';
import type { ContextStatus } from '../policy/status.ts';
import type { Store, StoredMessage } from '../stores/types.ts';

/**
 * Options of {@link createChatfold}: the compaction options of `compact()` that stay the same
 * for every session, plus where sessions live.
 */
export interface ChatfoldOptions
  extends Pick<
    CompactOptions,
    | 'model'
    | 'window'
    | 'maxOutputTokens'
    | 'responseReserve'
    | 'safetyMargin'
    | 'counter'
    | 'tools'
    | 'provider'
    | 'strategy'
    | 'strategyOptions'
    | 'registry'
    | 'triggers'
    | 'floor'
    | 'target'
    | 'protect'
    | 'summarizer'
    | 'instructions'
    | 'hooks'
  > {
  /** Where sessions live. Default: a new in-memory store (nothing survives the process). */
  readonly store?: Store;
  /** Clock for timestamps (tests). Default `() => new Date()`. */
  readonly now?: () => Date;
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
  /** Compact even when no trigger fires (`/summarize`, a UI button). Default true. */
  readonly manual?: boolean;
  readonly instructions?: string;
  readonly provider?: Provider;
  readonly tools?: readonly ToolDefinition[];
}

/** What {@link Session.history} takes: full-history browsing and search (ST-3). */
export interface HistoryQuery {
  /** Case-insensitive text to look for; without it, messages in order. */
  readonly query?: string;
  readonly limit?: number;
  /** Only messages with a smaller `seq` (paging backwards). */
  readonly before?: number;
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
}

/** Events a session emits (HK-3): the compaction events plus persistence. */
export type SessionEvent =
  | CompactionEvent
  | { readonly type: 'snapshot-written'; readonly snapshotId: string; readonly cutoffSeq: number }
  | { readonly type: 'snapshot-conflict'; readonly reason: string }
  | { readonly type: 'summarizer-fallback'; readonly reason: string; readonly retryAfterMs: number };

/** A stateful conversation over a store (RT-1). */
export interface Session {
  readonly id: string;
  /** Appends (and persists) messages in order; returns them normalised, with ids. */
  append(messages: MessageInput | readonly MessageInput[]): Promise<readonly Message[]>;
  /** Builds the next prompt; compacts (and persists the snapshot) when a trigger fires. */
  prepare(options?: PrepareOptions): Promise<PreparedPrompt>;
  /** Records provider-reported usage of the last prepared prompt (calibrates the counter). */
  recordUsage(usage: SessionUsage): Promise<void>;
  /** Compacts now (manual by default) and persists the snapshot. */
  compact(options?: SessionCompactOptions): Promise<CompactionReport>;
  status(): Promise<SessionStatus>;
  history(query?: HistoryQuery): Promise<readonly StoredMessage[]>;
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
export interface Chatfold {
  readonly store: Store;
  /** Opens (or creates) a session; resuming loads its latest summary (ST-6). */
  session(id: string): Promise<Session>;
  close(): Promise<void>;
}
