import type { JsonValue } from '../../messages/types.ts';
import { checkSessionId, conflictError } from '../shared/errors.ts';
import { messageFingerprint, searchableText } from '../shared/message-text.ts';
import { searchRows, selectMessages } from '../shared/query-rows.ts';
import type {
  AppendRecord,
  MessageQuery,
  SearchQuery,
  SessionContext,
  SessionInfo,
  Snapshot,
  SnapshotInput,
  SnapshotKind,
  Store,
  StoredMessage,
  WriteSnapshotOptions,
  WriteSnapshotResult,
} from '../types.ts';

interface MemorySession {
  info: { id: string; createdAt: string; updatedAt: string; metadata?: Record<string, JsonValue> };
  rows: StoredMessage[];
  byId: Map<string, { row: StoredMessage; fingerprint: string }>;
  text: string[];
  snapshots: Snapshot[];
}

/** Rows handed out are deep copies: callers cannot change what the store holds. */
const copy = <T>(value: T): T => structuredClone(value);

/**
 * Keeps sessions in memory (ST-1): for tests, demos and short-lived processes. Nothing
 * survives the process; use `jsonlStore`, `sqliteStore` or `postgresStore` to persist.
 * Operations complete in one synchronous step, so concurrent calls never interleave.
 */
export class MemoryStore implements Store {
  readonly kind = 'memory';
  readonly #sessions = new Map<string, MemorySession>();
  readonly #settings = new Map<string, JsonValue>();
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

  async append(sessionId: string, records: readonly AppendRecord[]): Promise<readonly StoredMessage[]> {
    const session = this.#session(sessionId, true) as MemorySession;
    // Check the whole batch first: all or nothing.
    const fingerprints = records.map((record) => messageFingerprint(record.message));
    const inBatch = new Map<string, string>();
    records.forEach((record, i) => {
      const id = record.message.id;
      const known = session.byId.get(id)?.fingerprint ?? inBatch.get(id);
      if (known !== undefined && known !== fingerprints[i]) throw conflictError(sessionId, id);
      inBatch.set(id, fingerprints[i] as string);
    });
    const storedAt = this.#now().toISOString();
    const out: StoredMessage[] = [];
    records.forEach((record, i) => {
      const existing = session.byId.get(record.message.id);
      if (existing !== undefined) {
        out.push(copy(existing.row));
        return;
      }
      const row: StoredMessage = {
        sessionId,
        seq: session.rows.length + 1,
        message: copy(record.message),
        ...(record.inputTokens === undefined ? {} : { inputTokens: record.inputTokens }),
        ...(record.outputTokens === undefined ? {} : { outputTokens: record.outputTokens }),
        ...(record.tokenEstimate === undefined ? {} : { tokenEstimate: record.tokenEstimate }),
        ...(record.tokenizer === undefined ? {} : { tokenizer: record.tokenizer }),
        storedAt,
      };
      session.rows.push(row);
      session.text.push(searchableText(row.message));
      session.byId.set(row.message.id, { row, fingerprint: fingerprints[i] as string });
      out.push(copy(row));
    });
    if (records.length > 0) session.info.updatedAt = storedAt;
    return out;
  }

  async messages(sessionId: string, query: MessageQuery = {}): Promise<readonly StoredMessage[]> {
    return selectMessages(this.#session(sessionId, false)?.rows ?? [], query).map(copy);
  }

  async recordUsage(
    sessionId: string,
    messageId: string,
    usage: { readonly inputTokens?: number; readonly outputTokens?: number },
  ): Promise<void> {
    const entry = this.#session(sessionId, false)?.byId.get(messageId);
    if (entry === undefined) return;
    const row = {
      ...entry.row,
      ...(usage.inputTokens === undefined ? {} : { inputTokens: usage.inputTokens }),
      ...(usage.outputTokens === undefined ? {} : { outputTokens: usage.outputTokens }),
    };
    const session = this.#session(sessionId, false) as MemorySession;
    session.rows[row.seq - 1] = row;
    entry.row = row;
  }

  async latestSnapshot(sessionId: string, kind: SnapshotKind = 'summary'): Promise<Snapshot | undefined> {
    const latest = this.#latest(sessionId, kind);
    return latest === undefined ? undefined : copy(latest);
  }

  async snapshots(sessionId: string, kind?: SnapshotKind): Promise<readonly Snapshot[]> {
    const snapshots = this.#session(sessionId, false)?.snapshots ?? [];
    return snapshots.filter((snapshot) => kind === undefined || snapshot.kind === kind).map(copy);
  }

  async writeSnapshot(
    sessionId: string,
    input: SnapshotInput,
    options: WriteSnapshotOptions,
  ): Promise<WriteSnapshotResult> {
    // Check and write in one synchronous step: no other call can run in between.
    const latest = this.#latest(sessionId, input.kind);
    if ((latest?.id ?? null) !== options.expectedLatestId) {
      return { written: false, latest: latest === undefined ? undefined : copy(latest) };
    }
    const session = this.#session(sessionId, true) as MemorySession;
    const snapshot: Snapshot = {
      id: `snap_${++this.#snapshotCount}`,
      sessionId,
      kind: input.kind,
      content: copy(input.content),
      messageCutoffId: input.messageCutoffId,
      cutoffSeq: input.cutoffSeq,
      tokenCount: input.tokenCount,
      createdAt: this.#now().toISOString(),
    };
    session.snapshots.push(snapshot);
    return { written: true, snapshot: copy(snapshot) };
  }

  async context(sessionId: string, options: { readonly headCount?: number } = {}): Promise<SessionContext> {
    const session = this.#session(sessionId, false);
    if (session === undefined) return { head: [], tail: [], messageCount: 0 };
    const latest = this.#latest(sessionId, 'summary');
    const snapshot = latest === undefined ? undefined : copy(latest);
    const cutoff = snapshot?.cutoffSeq ?? 0;
    const head =
      snapshot === undefined ? [] : session.rows.slice(0, Math.min(options.headCount ?? 0, cutoff));
    return {
      ...(snapshot === undefined ? {} : { snapshot }),
      head: head.map(copy),
      tail: session.rows.slice(cutoff).map(copy),
      messageCount: session.rows.length,
    };
  }

  async search(sessionId: string, query: SearchQuery): Promise<readonly StoredMessage[]> {
    const session = this.#session(sessionId, false);
    if (session === undefined) return [];
    return searchRows(session.rows, (index) => session.text[index] as string, query).map(copy);
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
        byId: new Map(),
        text: [],
        snapshots: [],
      };
      this.#sessions.set(sessionId, session);
    }
    return session;
  }

  #latest(sessionId: string, kind: SnapshotKind): Snapshot | undefined {
    const snapshots = this.#session(sessionId, false)?.snapshots ?? [];
    for (let i = snapshots.length - 1; i >= 0; i--) {
      if ((snapshots[i] as Snapshot).kind === kind) return snapshots[i];
    }
    return undefined;
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
export function memoryStore(options: { readonly now?: () => Date } = {}): Store {
  return new MemoryStore(options);
}
