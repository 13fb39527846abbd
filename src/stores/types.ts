import type { JsonValue, Message } from '../messages/types.ts';
import type { FactLedger } from '../summarize/types.ts';

/**
 * A message as a store keeps it (ST-2 `chat_messages`). Rows are append-only (ST-3): nothing
 * in chatfold ever deletes or rewrites `message`; only the usage columns are filled in later.
 */
export interface StoredMessage {
  readonly sessionId: string;
  /** Per-session sequence number, 1, 2, 3, … without gaps or duplicates (ST-5). */
  readonly seq: number;
  /** The neutral message, exactly as appended (normalised, with its id). */
  readonly message: Message;
  /** Provider-reported prompt tokens of the call that produced this (assistant) message. */
  readonly inputTokens?: number;
  /** Provider-reported completion tokens of the call that produced this message. */
  readonly outputTokens?: number;
  /** chatfold's own token estimate of this message, and the tokenizer that made it. */
  readonly tokenEstimate?: number;
  readonly tokenizer?: string;
  /** When the store wrote the row (ISO 8601). */
  readonly storedAt: string;
}

/** What `append` takes: a normalised message plus optional token columns. */
export interface AppendRecord {
  readonly message: Message;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly tokenEstimate?: number;
  readonly tokenizer?: string;
}

/** `session_snapshots.kind` (ST-2). */
export type SnapshotKind = 'summary' | 'title' | 'memory';

/** `content_json` of a summary snapshot, with the field names of ST-2 / seed 001 §4. */
export interface SummarySnapshotContent {
  readonly summaryText: string;
  readonly messageRange: { readonly firstMessageId: string; readonly lastMessageId: string };
  readonly compressionTimestamp: string;
  readonly compressionType: 'auto' | 'manual' | 'overflow';
  readonly originalTokenCount: number;
  readonly summaryTokenCount: number;
  readonly messagesIncluded: number;
  readonly ledger: FactLedger;
}

/** A stored snapshot row (ST-2 `session_snapshots`). */
export interface Snapshot {
  /** Assigned by the store on write, unique within the store. */
  readonly id: string;
  readonly sessionId: string;
  readonly kind: SnapshotKind;
  /** For `summary` snapshots a {@link SummarySnapshotContent}; any JSON for the other kinds. */
  readonly content: JsonValue;
  /** The id of the last message this snapshot covers (`message_cutoff_id`). */
  readonly messageCutoffId: string;
  /** The `seq` of that message, so "messages after the cutoff" is one indexed range query. */
  readonly cutoffSeq: number;
  /** Tokens of the snapshot's text (`token_count`). */
  readonly tokenCount: number;
  readonly createdAt: string;
}

/** What `writeSnapshot` takes; the store fills in `id`, `sessionId` and `createdAt`. */
export interface SnapshotInput {
  readonly kind: SnapshotKind;
  readonly content: JsonValue;
  readonly messageCutoffId: string;
  readonly cutoffSeq: number;
  readonly tokenCount: number;
}

/**
 * Compare-and-set for snapshots (ST-5): the write happens only when the latest snapshot of
 * that kind is still `expectedLatestId` (`null`: there must be none). Two concurrent
 * compactions read the same latest snapshot; the first write wins, the second gets
 * `{ written: false, latest }` and does nothing.
 */
export interface WriteSnapshotOptions {
  readonly expectedLatestId: string | null;
}

export type WriteSnapshotResult =
  | { readonly written: true; readonly snapshot: Snapshot }
  | { readonly written: false; readonly latest: Snapshot | undefined };

/** A session row (ST-2 `sessions`). */
export interface SessionInfo {
  readonly id: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Number of stored messages (= the highest `seq`). */
  readonly messageCount: number;
  readonly metadata?: Readonly<Record<string, JsonValue>>;
}

/** Filters of {@link Store.messages}. `seq` bounds are exclusive. */
export interface MessageQuery {
  readonly afterSeq?: number;
  readonly beforeSeq?: number;
  /** At most this many rows; with `order: 'desc'` the newest ones. */
  readonly limit?: number;
  readonly order?: 'asc' | 'desc';
}

/** Filters of {@link Store.search} (full-history search, ST-3 / seed 001 FR-6.3). */
export interface SearchQuery {
  /** Case-insensitive substring of the message's text, tool-call arguments or tool-result text. */
  readonly text: string;
  /** At most this many rows, newest first. Default 50. */
  readonly limit?: number;
  /** Only rows with a smaller `seq`, for paging backwards. */
  readonly beforeSeq?: number;
}

/**
 * The context a session needs to build its next prompt, read consistently (ST-6): the latest
 * summary snapshot, the first `headCount` messages (system prompt and goal, which compaction
 * keeps) and every message after the snapshot's cutoff. Without a snapshot, `tail` is the
 * whole history and `head` is empty.
 */
export interface SessionContext {
  readonly snapshot?: Snapshot;
  readonly head: readonly StoredMessage[];
  readonly tail: readonly StoredMessage[];
  readonly messageCount: number;
}

/**
 * Where sessions live (ST-1): the core a session needs. Every implementation passes the
 * conformance suite in `test/stores/conformance.ts`. All methods are safe to call
 * concurrently, also from other processes sharing the same file or database (ST-5).
 * Optional capabilities ({@link SessionCatalog}, {@link MessageSearch}, {@link SettingsStore},
 * {@link SnapshotHistory}) are separate interfaces: callers feature-test them with
 * {@link hasSessionCatalog} and friends. Every built-in store has all of them ({@link FullStore}).
 */
export interface Store {
  /** A short name for messages and reports: `memory`, `jsonl`, `sqlite`, `postgres`. */
  readonly kind: string;
  /**
   * Appends in order and atomically (all or none), assigning consecutive `seq`s; creates the
   * session when missing. A record whose `message.id` is already stored in this session is
   * not stored again: its existing row is returned (an idempotent retry after a crash). The
   * same id with different content is `E_STORE_CONFLICT`.
   */
  append(sessionId: string, records: readonly AppendRecord[]): Promise<readonly StoredMessage[]>;
  /** Stored messages by `seq` range (ST-3: the full history, nothing is ever deleted). */
  messages(sessionId: string, query?: MessageQuery): Promise<readonly StoredMessage[]>;
  /** Fills in provider-reported usage of a stored message (the only column ever updated). */
  recordUsage(
    sessionId: string,
    messageId: string,
    usage: { readonly inputTokens?: number; readonly outputTokens?: number },
  ): Promise<void>;
  latestSnapshot(sessionId: string, kind?: SnapshotKind): Promise<Snapshot | undefined>;
  /** Writes one snapshot in one transaction (ST-4), compare-and-set (ST-5). */
  writeSnapshot(
    sessionId: string,
    snapshot: SnapshotInput,
    options: WriteSnapshotOptions,
  ): Promise<WriteSnapshotResult>;
  /** Latest summary + head + messages after its cutoff, in one consistent read. */
  context(sessionId: string, options?: { readonly headCount?: number }): Promise<SessionContext>;
  /** Releases files and connections. Idempotent. */
  close(): Promise<void>;
}

/** Capability: sessions as rows with metadata, listed most recent first (ST-2 `sessions`). */
export interface SessionCatalog {
  /** Creates the session if it does not exist; merges `metadata` into an existing one. */
  ensureSession(sessionId: string, metadata?: Readonly<Record<string, JsonValue>>): Promise<SessionInfo>;
  getSession(sessionId: string): Promise<SessionInfo | undefined>;
  /** Sessions, most recently updated (appended to, or metadata changed) first. */
  listSessions(options?: { readonly limit?: number }): Promise<readonly SessionInfo[]>;
}

/** Capability: full-history search (ST-3, seed 001 FR-6.3). */
export interface MessageSearch {
  search(sessionId: string, query: SearchQuery): Promise<readonly StoredMessage[]>;
}

/** Capability: store-wide settings (seed 001 FR-3.1.2; learned windows, session state). */
export interface SettingsStore {
  getSetting(key: string): Promise<JsonValue | undefined>;
  setSetting(key: string, value: JsonValue): Promise<void>;
}

/** Capability: every snapshot of a session, oldest first (`/compactions`, WEB-6). */
export interface SnapshotHistory {
  snapshots(sessionId: string, kind?: SnapshotKind): Promise<readonly Snapshot[]>;
}

/**
 * Capability: one turn at a time per session, across every process that shares the store
 * (issue 24 §5). A lease names its holder and lasts until a time; the holder renews it while
 * its turn runs, and a lease whose holder died expires on its own.
 */
export interface SessionLeases {
  /**
   * Takes (or renews) the session's lease for `holder` for `ttlMs` from now.
   *
   * @param replacing A holder judged dead (its process is gone): its lease is taken even before
   *   it expires — only if it is still that holder's, so two processes replacing the same dead
   *   holder cannot both win.
   * @returns true when `holder` holds it now; false while another holder's lease is live.
   */
  acquireLease(sessionId: string, holder: string, ttlMs: number, replacing?: string): Promise<boolean>;
  /** Gives the lease back, if `holder` still holds it. */
  releaseLease(sessionId: string, holder: string): Promise<void>;
  /**
   * The session's lease as stored, expired or not (undefined when there is none): who holds a
   * busy session, and whether its holder is still alive. Optional for custom stores.
   */
  currentLease?(sessionId: string): Promise<StoredLease | undefined>;
}

/** A session's turn lease as a store keeps it. */
export interface StoredLease {
  readonly holder: string;
  /** Milliseconds since 1970. */
  readonly expiresAt: number;
}

/** A store with every capability: what `memoryStore`, `jsonlStore`, `sqliteStore` and `postgresStore` return. */
export type FullStore = Store &
  SessionCatalog &
  MessageSearch &
  SettingsStore &
  SnapshotHistory &
  SessionLeases &
  Required<Pick<SessionLeases, 'currentLease'>>;

const hasMethods = (store: Store, names: readonly string[]): boolean =>
  names.every((name) => typeof (store as unknown as Record<string, unknown>)[name] === 'function');

/** Whether the store keeps session rows (`ensureSession`, `getSession`, `listSessions`). */
export function hasSessionCatalog(store: Store): store is Store & SessionCatalog {
  return hasMethods(store, ['ensureSession', 'getSession', 'listSessions']);
}

/** Whether the store can search a session's history. */
export function hasSearch(store: Store): store is Store & MessageSearch {
  return hasMethods(store, ['search']);
}

/** Whether the store keeps settings. */
export function hasSettings(store: Store): store is Store & SettingsStore {
  return hasMethods(store, ['getSetting', 'setSetting']);
}

/** Whether the store serialises a session's turns across processes. */
export function hasSessionLeases(store: Store): store is Store & SessionLeases {
  return hasMethods(store, ['acquireLease', 'releaseLease']);
}

/** Whether the store lists every snapshot of a session. */
export function hasSnapshotHistory(store: Store): store is Store & SnapshotHistory {
  return hasMethods(store, ['snapshots']);
}
