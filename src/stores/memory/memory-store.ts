import type { JsonValue, Message } from '../../messages/types.ts';
import { deepFreeze } from '../shared/deep-freeze.ts';
import { checkSessionId, conflictError } from '../shared/errors.ts';
import { messageFingerprint, searchableText } from '../shared/message-text.ts';
import { searchRows, selectMessages } from '../shared/query-rows.ts';
import { readBackParsed, storableRecords } from '../shared/storable-records.ts';
import { checkMemoryOptions } from '../shared/store-options.ts';
import type {
  AppendRecord,
  FullStore,
  MessageQuery,
  SearchQuery,
  SessionContext,
  SessionInfo,
  Snapshot,
  SnapshotInput,
  SnapshotKind,
  Store,
  StoredLease,
  StoredMessage,
  WriteSnapshotOptions,
  WriteSnapshotResult,
} from '../types.ts';
import { ByteArena } from './byte-arena.ts';

interface MemorySession {
  info: { id: string; createdAt: string; updatedAt: string; metadata?: Record<string, JsonValue> };
  /** Each row's JSON (a handle in `bytes`), in seq order (`rows[i]` holds seq `i + 1`); parsed on every read. */
  rows: number[];
  bytes: ByteArena;
  /** Message id → index in `rows`. */
  byId: Map<string, number>;
  /** Deep-frozen, handed out as they are. */
  snapshots: Snapshot[];
  /** The index in `snapshots` of the latest of each kind (one lookup, however many were written). */
  latest: Map<SnapshotKind, number>;
}

/** Settings and metadata handed out are copies: callers cannot change what the store holds. */
const copy = <T>(value: T): T => structuredClone(value);

/** The store's own deep-frozen copy of a snapshot's content (JSON, as the persistent stores keep it). */
const keep = <T>(value: T): T => deepFreeze(JSON.parse(JSON.stringify(value)) as T);

/**
 * Keeps sessions in memory (ST-1): for tests, demos and short-lived processes. Nothing
 * survives the process; use `jsonlStore`, `sqliteStore` or `postgresStore` to persist.
 * Operations complete in one synchronous step, so concurrent calls never interleave.
 */
export class MemoryStore implements Store {
  readonly kind = 'memory';
  readonly #sessions = new Map<string, MemorySession>();
  readonly #settings = new Map<string, JsonValue>();
  readonly #leases = new Map<string, { readonly holder: string; readonly expiresAt: number }>();
  readonly #now: () => Date;
  #snapshotCount = 0;

  constructor(options: { readonly now?: () => Date } = {}) {
    this.#now = options.now ?? (() => new Date());
  }

  async ensureSession(
    sessionId: string,
    metadata?: Readonly<Record<string, JsonValue>>,
  ): Promise<SessionInfo> {
    const session = this.#session(sessionId, true) as MemorySession;
    if (metadata !== undefined) {
      session.info.metadata = { ...session.info.metadata, ...copy(metadata) };
      session.info.updatedAt = this.#now().toISOString();
    }
    return this.#info(session);
  }

  async acquireLease(sessionId: string, holder: string, ttlMs: number, replacing?: string): Promise<boolean> {
    checkSessionId(sessionId);
    const now = this.#now().getTime();
    const current = this.#leases.get(sessionId);
    const taken =
      current !== undefined &&
      current.holder !== holder &&
      current.holder !== replacing &&
      current.expiresAt > now;
    if (taken) return false;
    this.#leases.set(sessionId, { holder, expiresAt: now + Math.max(0, Math.floor(ttlMs)) });
    return true;
  }

  async releaseLease(sessionId: string, holder: string): Promise<void> {
    if (this.#leases.get(sessionId)?.holder === holder) this.#leases.delete(sessionId);
  }

  async currentLease(sessionId: string): Promise<StoredLease | undefined> {
    checkSessionId(sessionId);
    const lease = this.#leases.get(sessionId);
    return lease === undefined ? undefined : { ...lease };
  }

  async getSession(sessionId: string): Promise<SessionInfo | undefined> {
    const session = this.#session(sessionId, false);
    return session === undefined ? undefined : this.#info(session);
  }

  async listSessions(options: { readonly limit?: number } = {}): Promise<readonly SessionInfo[]> {
    const all = [...this.#sessions.values()]
      .sort((a, b) =>
        a.info.updatedAt < b.info.updatedAt ? 1 : a.info.updatedAt > b.info.updatedAt ? -1 : 0,
      )
      .map((session) => this.#info(session));
    return options.limit === undefined ? all : all.slice(0, options.limit);
  }

  async append(sessionId: string, input: readonly AppendRecord[]): Promise<readonly StoredMessage[]> {
    // Each message read once and checked: what is kept is the checked copy (issue 24 §2).
    const records = storableRecords('memory store', input);
    const session = this.#session(sessionId, true) as MemorySession;
    // Check the whole batch first: all or nothing. Fingerprints only for ids seen before (a
    // retry), so a new message costs its JSON and no canonical JSON.
    const inBatch = new Map<string, Message>();
    for (const { message } of records) {
      const index = session.byId.get(message.id);
      const earlier = index === undefined ? inBatch.get(message.id) : this.#row(session, index).message;
      if (earlier !== undefined && messageFingerprint(earlier) !== messageFingerprint(message)) {
        throw conflictError(sessionId, message.id);
      }
      if (earlier === undefined) inBatch.set(message.id, message);
    }
    const storedAt = this.#now().toISOString();
    const out: StoredMessage[] = [];
    for (const record of records) {
      const existing = session.byId.get(record.message.id);
      if (existing !== undefined) {
        out.push(this.#row(session, existing));
        continue;
      }
      const packed = this.#pack(session, {
        sessionId,
        seq: session.rows.length + 1,
        message: record.message,
        ...(record.inputTokens === undefined ? {} : { inputTokens: record.inputTokens }),
        ...(record.outputTokens === undefined ? {} : { outputTokens: record.outputTokens }),
        ...(record.tokenEstimate === undefined ? {} : { tokenEstimate: record.tokenEstimate }),
        ...(record.tokenizer === undefined ? {} : { tokenizer: record.tokenizer }),
        storedAt,
      });
      // Read back before it is kept: a row that would not read back is never kept (issue 24 §2).
      const row = this.#unpack(session, packed);
      readBackParsed('memory store', row.message);
      session.byId.set(record.message.id, session.rows.length);
      session.rows.push(packed);
      out.push(row);
    }
    if (records.length > 0) session.info.updatedAt = storedAt;
    return out;
  }

  async messages(sessionId: string, query: MessageQuery = {}): Promise<readonly StoredMessage[]> {
    const session = this.#session(sessionId, false);
    if (session === undefined) return [];
    return selectMessages(session.rows, query).map((handle) => this.#unpack(session, handle));
  }

  async recordUsage(
    sessionId: string,
    messageId: string,
    usage: { readonly inputTokens?: number; readonly outputTokens?: number },
  ): Promise<void> {
    const session = this.#session(sessionId, false);
    const index = session?.byId.get(messageId);
    if (session === undefined || index === undefined) return;
    session.rows[index] = this.#pack(session, {
      ...this.#row(session, index),
      ...(usage.inputTokens === undefined ? {} : { inputTokens: usage.inputTokens }),
      ...(usage.outputTokens === undefined ? {} : { outputTokens: usage.outputTokens }),
    });
  }

  async latestSnapshot(sessionId: string, kind: SnapshotKind = 'summary'): Promise<Snapshot | undefined> {
    return this.#latest(sessionId, kind);
  }

  async snapshots(sessionId: string, kind?: SnapshotKind): Promise<readonly Snapshot[]> {
    const snapshots = this.#session(sessionId, false)?.snapshots ?? [];
    return snapshots.filter((snapshot) => kind === undefined || snapshot.kind === kind);
  }

  async writeSnapshot(
    sessionId: string,
    input: SnapshotInput,
    options: WriteSnapshotOptions,
  ): Promise<WriteSnapshotResult> {
    // Check and write in one synchronous step: no other call can run in between.
    const latest = this.#latest(sessionId, input.kind);
    if ((latest?.id ?? null) !== options.expectedLatestId) {
      return { written: false, latest };
    }
    const session = this.#session(sessionId, true) as MemorySession;
    const snapshot: Snapshot = deepFreeze({
      id: `snap_${++this.#snapshotCount}`,
      sessionId,
      kind: input.kind,
      content: keep(input.content),
      messageCutoffId: input.messageCutoffId,
      cutoffSeq: input.cutoffSeq,
      tokenCount: input.tokenCount,
      createdAt: this.#now().toISOString(),
    });
    session.latest.set(snapshot.kind, session.snapshots.length);
    session.snapshots.push(snapshot);
    return { written: true, snapshot };
  }

  async context(sessionId: string, options: { readonly headCount?: number } = {}): Promise<SessionContext> {
    const session = this.#session(sessionId, false);
    if (session === undefined) return { head: [], tail: [], messageCount: 0 };
    const snapshot = this.#latest(sessionId, 'summary');
    const cutoff = Math.min(snapshot?.cutoffSeq ?? 0, session.rows.length);
    const head =
      snapshot === undefined
        ? []
        : session.rows.slice(0, Math.max(0, Math.min(options.headCount ?? 0, cutoff)));
    return {
      ...(snapshot === undefined ? {} : { snapshot }),
      head: head.map((handle) => this.#unpack(session, handle)),
      tail: session.rows.slice(cutoff).map((handle) => this.#unpack(session, handle)),
      messageCount: session.rows.length,
    };
  }

  async search(sessionId: string, query: SearchQuery): Promise<readonly StoredMessage[]> {
    const session = this.#session(sessionId, false);
    if (session === undefined) return [];
    // The searchable text is made per search, not kept: it would double the store's memory.
    return searchRows(session.rows, (index) => searchableText(this.#row(session, index).message), query).map(
      (handle) => this.#unpack(session, handle),
    );
  }

  async getSetting(key: string): Promise<JsonValue | undefined> {
    const value = this.#settings.get(key);
    return value === undefined ? undefined : copy(value);
  }

  async setSetting(key: string, value: JsonValue): Promise<void> {
    this.#settings.set(key, copy(value));
  }

  async close(): Promise<void> {}

  #session(sessionId: string, create: boolean): MemorySession | undefined {
    checkSessionId(sessionId);
    let session = this.#sessions.get(sessionId);
    if (session === undefined && create) {
      const now = this.#now().toISOString();
      session = {
        info: { id: sessionId, createdAt: now, updatedAt: now },
        rows: [],
        bytes: new ByteArena(),
        byId: new Map(),
        snapshots: [],
        latest: new Map(),
      };
      this.#sessions.set(sessionId, session);
    }
    return session;
  }

  /**
   * Rows are kept as their JSON in UTF-8 (see {@link ByteArena}): parsed objects cost 1.7× the
   * JSON's bytes, and text with one non-Latin-1 character (an arrow in a tool output) is held
   * at two bytes per character. A session reads only the rows after its snapshot, so parsing
   * on each read costs what those rows are, not the history.
   */
  #pack(session: MemorySession, row: StoredMessage): number {
    return session.bytes.add(JSON.stringify(row));
  }

  /** A fresh, mutable copy of a kept row. */
  #unpack(session: MemorySession, handle: number): StoredMessage {
    return JSON.parse(session.bytes.get(handle)) as StoredMessage;
  }

  #row(session: MemorySession, index: number): StoredMessage {
    return this.#unpack(session, session.rows[index] as number);
  }

  #latest(sessionId: string, kind: SnapshotKind): Snapshot | undefined {
    const session = this.#session(sessionId, false);
    const index = session?.latest.get(kind);
    return index === undefined ? undefined : session?.snapshots[index];
  }

  #info(session: MemorySession): SessionInfo {
    return {
      id: session.info.id,
      createdAt: session.info.createdAt,
      updatedAt: session.info.updatedAt,
      messageCount: session.rows.length,
      ...(session.info.metadata === undefined ? {} : { metadata: copy(session.info.metadata) }),
    };
  }
}

/**
 * An in-memory store (ST-1), the default of `createChatfold`.
 *
 * @example
 * const chatfold = createChatfold({ model: 'gpt-4o', store: memoryStore() });
 */
export function memoryStore(options: { readonly now?: () => Date } = {}): FullStore {
  return new MemoryStore(checkMemoryOptions(options));
}
