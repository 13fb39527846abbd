import { createHash } from 'node:crypto';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import type { JsonValue } from '../../messages/types.ts';
import { checkSessionId, conflictError } from '../shared/errors.ts';
import { messageFingerprint, searchableText } from '../shared/message-text.ts';
import { DEFAULT_SEARCH_LIMIT } from '../shared/query-rows.ts';
import { readBackMessage, storableRecords } from '../shared/storable-records.ts';
import { yieldToEventLoop } from '../shared/yield-to-event-loop.ts';
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
  StoredLease,
  StoredMessage,
  WriteSnapshotOptions,
  WriteSnapshotResult,
} from '../types.ts';
import { LatestSnapshots } from './latest-snapshots.ts';
import { migrate } from './migrate.ts';
import { buildQueries, MESSAGE_INSERT_COLUMNS, type SqlQueries } from './queries.ts';
import {
  type MessageRow,
  type SessionRow,
  type SnapshotRow,
  tokenColumns,
  toSessionInfo,
  toSnapshot,
  toStoredMessage,
} from './rows.ts';
import type { SqlDriver, SqlExecutor, SqlRow, SqlValue } from './sql-driver.ts';

/** The largest `seq` a query bound may carry (a 32-bit INTEGER column). */
const MAX_SEQ = 2_147_483_647;
const clampSeq = (value: number): number => Math.max(0, Math.min(MAX_SEQ, value));

/** Rows one statement of a long range read fetches; the event loop runs between two (NFR-7.5). */
export const READ_PAGE_ROWS = 100;

export interface SqlStoreOptions {
  /** The clock for `created_at`, `updated_at`, `stored_at` (tests). */
  readonly now?: () => Date;
}

interface PreparedRecord {
  readonly record: AppendRecord;
  readonly content: string;
  readonly fingerprint: string;
}

/**
 * The Store of ST-1 over any {@link SqlDriver}: schema and migrations, every query, row
 * mapping and the concurrency rules (ST-4, ST-5) live here once; `SqliteStore` and
 * `PostgresStore` only choose a driver. The schema is migrated before the first operation;
 * a failed migration (`E_STORE_SCHEMA`, `E_STORE`) is what every call then rejects with.
 */
/** PostgreSQL codes of losing a race to create the same schema or table (`IF NOT EXISTS` is not atomic). */
const CREATE_RACE_CODES = new Set(['23505', '42P06', '42P07']);

/**
 * Migrates, once more when another process (another `chatfold serve`, pg-boss creating the
 * same schema) created the schema or a table at the same moment: the second attempt finds
 * them there.
 */
async function migrateRacing(driver: SqlDriver): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await migrate(driver);
      return;
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (attempt >= 3 || typeof code !== 'string' || !CREATE_RACE_CODES.has(code)) throw error;
    }
  }
}

export class SqlStore implements Store {
  readonly kind: string;
  readonly #driver: SqlDriver;
  readonly #sql: SqlQueries;
  readonly #now: () => Date;
  readonly #opened: Promise<void>;
  #closed: Promise<void> | undefined;
  readonly #latest: LatestSnapshots;

  constructor(kind: string, driver: SqlDriver, options: SqlStoreOptions = {}) {
    this.kind = kind;
    this.#driver = driver;
    this.#sql = buildQueries(driver.dialect);
    this.#latest = new LatestSnapshots(this.#sql, driver.dialect);
    this.#now = options.now ?? (() => new Date());
    this.#opened = migrateRacing(driver).then(
      () => undefined,
      (error: unknown) => {
        throw this.#wrap(error, 'open');
      },
    );
    // Reported by the first call; not an unhandled rejection when no call comes.
    this.#opened.catch(() => undefined);
  }

  async ensureSession(
    sessionId: string,
    metadata?: Readonly<Record<string, JsonValue>>,
  ): Promise<SessionInfo> {
    checkSessionId(sessionId);
    return this.#transaction('write', 'ensureSession', async (sql) => {
      const current = await this.#lockSession(sql, sessionId, this.#now().toISOString(), true);
      if (metadata !== undefined) {
        const merged = { ...(current === null ? {} : (JSON.parse(current) as object)), ...metadata };
        await sql.query(this.#sql.updateMetadata, [
          JSON.stringify(merged),
          this.#now().toISOString(),
          sessionId,
        ]);
      }
      const [row] = await sql.query<SessionRow>(this.#sql.getSession, [sessionId]);
      return toSessionInfo(row as SessionRow, this.#driver.dialect);
    });
  }

  async getSession(sessionId: string): Promise<SessionInfo | undefined> {
    checkSessionId(sessionId);
    const rows = await this.#read<SessionRow>('getSession', this.#sql.getSession, [sessionId]);
    return rows[0] === undefined ? undefined : toSessionInfo(rows[0], this.#driver.dialect);
  }

  async listSessions(options: { readonly limit?: number } = {}): Promise<readonly SessionInfo[]> {
    const rows =
      options.limit === undefined
        ? await this.#read<SessionRow>('listSessions', this.#sql.listSessions, [])
        : await this.#read<SessionRow>('listSessions', this.#sql.listSessionsLimited, [
            Math.max(0, Math.floor(options.limit)),
          ]);
    return rows.map((row) => toSessionInfo(row, this.#driver.dialect));
  }

  async append(sessionId: string, input: readonly AppendRecord[]): Promise<readonly StoredMessage[]> {
    checkSessionId(sessionId);
    // Each message read once and checked: the text stored is made from the checked copy (issue 24 §2).
    const records = storableRecords(`${this.kind} store`, input);
    // Serialise and check the batch before taking any lock: all or nothing.
    const prepared: PreparedRecord[] = records.map((record) => {
      const content = JSON.stringify(record.message);
      return {
        record,
        content,
        fingerprint: createHash('sha256').update(messageFingerprint(record.message)).digest('base64url'),
      };
    });
    const inBatch = new Map<string, string>();
    for (const { record, fingerprint } of prepared) {
      const known = inBatch.get(record.message.id);
      if (known !== undefined && known !== fingerprint) throw conflictError(sessionId, record.message.id);
      inBatch.set(record.message.id, fingerprint);
    }
    return this.#transaction('write', 'append', async (sql) => {
      const storedAt = this.#now().toISOString();
      await this.#lockSession(sql, sessionId, storedAt, false);
      const existing = new Map<string, StoredMessage>();
      const ids = [...inBatch.keys()];
      const chunk = 500;
      for (let i = 0; i < ids.length; i += chunk) {
        const rows = await sql.query<MessageRow & { message_id: string; fingerprint: string }>(
          this.#sql.existingMessages,
          [sessionId, this.#driver.dialect.listParam(ids.slice(i, i + chunk))],
        );
        for (const row of rows) {
          if (row.fingerprint !== inBatch.get(row.message_id)) throw conflictError(sessionId, row.message_id);
          existing.set(row.message_id, toStoredMessage(sessionId, row, this.#driver.dialect));
        }
      }
      const [last] = await sql.query<{ seq: number | null }>(this.#sql.maxSeq, [sessionId]);
      let seq = Number(last?.seq ?? 0);
      const out: StoredMessage[] = [];
      const fresh: SqlValue[][] = [];
      for (const { record, content, fingerprint } of prepared) {
        const id = record.message.id;
        const known = existing.get(id);
        if (known !== undefined) {
          out.push(known);
          continue;
        }
        seq++;
        const row: StoredMessage = {
          sessionId,
          seq,
          message: JSON.parse(content),
          ...tokenColumns(record),
          storedAt,
        };
        existing.set(id, row);
        out.push(row);
        fresh.push([
          sessionId,
          seq,
          id,
          record.message.role,
          content,
          this.#driver.dialect.storableText(searchableText(record.message)),
          fingerprint,
          record.inputTokens ?? null,
          record.outputTokens ?? null,
          record.tokenEstimate ?? null,
          record.tokenizer ?? null,
          storedAt,
        ]);
      }
      const perStatement = Math.max(
        1,
        Math.min(200, Math.floor(this.#driver.dialect.maxParameters / MESSAGE_INSERT_COLUMNS.length)),
      );
      for (let i = 0; i < fresh.length; i += perStatement) {
        const rows = fresh.slice(i, i + perStatement);
        await sql.query(this.#sql.insertMessages(rows.length), rows.flat());
      }
      if (fresh.length > 0) await this.#readBack(sql, sessionId, fresh);
      if (fresh.length > 0) await sql.query(this.#sql.touchSession, [storedAt, sessionId]);
      // Rows handed out are the caller's: a retry returning the same row object twice would share it.
      const handedOut = new Set<StoredMessage>();
      return out.map((row) => {
        if (!handedOut.has(row)) {
          handedOut.add(row);
          return row;
        }
        return structuredClone(row);
      });
    });
  }

  async messages(sessionId: string, query: MessageQuery = {}): Promise<readonly StoredMessage[]> {
    checkSessionId(sessionId);
    return this.#range(this.#reader('messages'), sessionId, query);
  }

  async recordUsage(
    sessionId: string,
    messageId: string,
    usage: { readonly inputTokens?: number; readonly outputTokens?: number },
  ): Promise<void> {
    checkSessionId(sessionId);
    if (usage.inputTokens === undefined && usage.outputTokens === undefined) return;
    await this.#transaction('write', 'recordUsage', (sql) =>
      sql.query(this.#sql.recordUsage, [
        usage.inputTokens ?? null,
        usage.outputTokens ?? null,
        sessionId,
        messageId,
      ]),
    );
  }

  async latestSnapshot(sessionId: string, kind: SnapshotKind = 'summary'): Promise<Snapshot | undefined> {
    checkSessionId(sessionId);
    // Two single statements (id, then the row if not already parsed): a snapshot never changes.
    return this.#latest.latest(this.#reader('latestSnapshot'), sessionId, kind);
  }

  async snapshots(sessionId: string, kind?: SnapshotKind): Promise<readonly Snapshot[]> {
    checkSessionId(sessionId);
    const rows =
      kind === undefined
        ? await this.#read<SnapshotRow>('snapshots', this.#sql.snapshots, [sessionId])
        : await this.#read<SnapshotRow>('snapshots', this.#sql.snapshotsOfKind, [sessionId, kind]);
    return rows.map((row) => toSnapshot(row, this.#driver.dialect));
  }

  async writeSnapshot(
    sessionId: string,
    input: SnapshotInput,
    options: WriteSnapshotOptions,
  ): Promise<WriteSnapshotResult> {
    checkSessionId(sessionId);
    const content = JSON.stringify(input.content);
    // Check and insert under the session's write lock, in one transaction (ST-4, ST-5).
    return this.#transaction('write', 'writeSnapshot', async (sql) => {
      const createdAt = this.#now().toISOString();
      await this.#lockSession(sql, sessionId, createdAt, false);
      const latest = await this.#latest.latest(sql, sessionId, input.kind);
      if ((latest?.id ?? null) !== options.expectedLatestId) return { written: false, latest };
      const [inserted] = await sql.query<{ id: number | string }>(this.#sql.insertSnapshot, [
        sessionId,
        input.kind,
        content,
        input.messageCutoffId,
        input.cutoffSeq,
        input.tokenCount,
        createdAt,
      ]);
      const snapshot = this.#latest.keep({
        id: String(inserted?.id),
        sessionId,
        kind: input.kind,
        content: JSON.parse(content) as JsonValue,
        messageCutoffId: input.messageCutoffId,
        cutoffSeq: input.cutoffSeq,
        tokenCount: input.tokenCount,
        createdAt,
      });
      return { written: true, snapshot };
    });
  }

  async context(sessionId: string, options: { readonly headCount?: number } = {}): Promise<SessionContext> {
    checkSessionId(sessionId);
    // One read transaction: the snapshot and the rows after its cutoff are one consistent state (ST-6).
    return this.#transaction('read', 'context', async (sql) => {
      const snapshot = await this.#latest.latest(sql, sessionId, 'summary');
      const cutoff = clampSeq(snapshot?.cutoffSeq ?? 0);
      const headCount = snapshot === undefined ? 0 : Math.min(Math.floor(options.headCount ?? 0), cutoff);
      const head = headCount > 0 ? await this.#range(sql, sessionId, { beforeSeq: headCount + 1 }) : [];
      const tail = await this.#range(sql, sessionId, { afterSeq: cutoff });
      const last = tail.at(-1);
      const messageCount =
        last === undefined
          ? Number((await sql.query<{ seq: number | null }>(this.#sql.maxSeq, [sessionId]))[0]?.seq ?? 0)
          : last.seq;
      return { ...(snapshot === undefined ? {} : { snapshot }), head, tail, messageCount };
    });
  }

  async search(sessionId: string, query: SearchQuery): Promise<readonly StoredMessage[]> {
    checkSessionId(sessionId);
    const limit = Math.max(0, Math.floor(query.limit ?? DEFAULT_SEARCH_LIMIT));
    if (limit === 0) return [];
    const d = this.#driver.dialect;
    const rows = await this.#read<MessageRow>('search', this.#sql.search, [
      sessionId,
      clampSeq(Math.ceil(query.beforeSeq ?? MAX_SEQ)),
      d.storableText(query.text.toLowerCase()),
      limit,
    ]);
    return rows.map((row) => toStoredMessage(sessionId, row, d));
  }

  async getSetting(key: string): Promise<JsonValue | undefined> {
    const rows = await this.#read<{ value: string }>('getSetting', this.#sql.getSetting, [key]);
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].value) as JsonValue);
  }

  async setSetting(key: string, value: JsonValue): Promise<void> {
    await this.#transaction('write', 'setSetting', (sql) =>
      sql.query(this.#sql.setSetting, [key, JSON.stringify(value)]),
    );
  }

  async acquireLease(sessionId: string, holder: string, ttlMs: number, replacing?: string): Promise<boolean> {
    checkSessionId(sessionId);
    const now = this.#now().getTime();
    const expiresAt = now + Math.max(0, Math.floor(ttlMs));
    const rows = await this.#transaction('write', 'acquireLease', (sql) =>
      sql.query(this.#sql.acquireLease, [sessionId, holder, expiresAt, now, replacing ?? null]),
    );
    return rows.length > 0;
  }

  async currentLease(sessionId: string): Promise<StoredLease | undefined> {
    checkSessionId(sessionId);
    const rows = await this.#read<{ holder: string; expires_at: number | string }>(
      'currentLease',
      this.#sql.currentLease,
      [sessionId],
    );
    const row = rows[0];
    return row === undefined ? undefined : { holder: row.holder, expiresAt: Number(row.expires_at) };
  }

  async releaseLease(sessionId: string, holder: string): Promise<void> {
    checkSessionId(sessionId);
    await this.#transaction('write', 'releaseLease', (sql) =>
      sql.query(this.#sql.releaseLease, [sessionId, holder]),
    );
  }

  close(): Promise<void> {
    this.#closed ??= this.#opened.then(
      () => this.#driver.close(),
      () => this.#driver.close(),
    );
    return this.#closed;
  }

  /**
   * Reads the rows just inserted back in the same transaction and checks each is the message
   * written (issue 24 §2): a row that would not read back rolls the append back.
   */
  async #readBack(sql: SqlExecutor, sessionId: string, fresh: readonly SqlValue[][]): Promise<void> {
    const first = Number(fresh[0]?.[1]);
    const rows = await sql.query<MessageRow>(this.#sql.messagesAsc, [
      sessionId,
      first - 1,
      clampSeq(MAX_SEQ),
    ]);
    if (rows.length !== fresh.length) {
      throw new ChatfoldError(
        'E_STORE',
        `${this.kind} store: append refused: ${rows.length} rows read back of the ${fresh.length} written; nothing was stored`,
        { operation: 'append' },
      );
    }
    rows.forEach((row, index) => {
      readBackMessage(`${this.kind} store`, row.content, fresh[index]?.[4] as string);
    });
  }

  /** Creates the session row if missing and, where the dialect needs it, locks it; returns its metadata JSON. */
  async #lockSession(
    sql: SqlExecutor,
    sessionId: string,
    now: string,
    needsMetadata: boolean,
  ): Promise<string | null> {
    await sql.query(this.#sql.insertSession, [sessionId, now, now]);
    if (!needsMetadata && this.#driver.dialect.lockRows === '') return null;
    const [row] = await sql.query<{ metadata: string | null }>(this.#sql.lockSession, [sessionId]);
    return row?.metadata ?? null;
  }

  /**
   * The rows of a `seq` range, in pages of {@link READ_PAGE_ROWS} (keyset on `seq`), the event
   * loop running between pages (NFR-7.5): a 1,000-message history is ten short statements
   * instead of one that holds the thread while it reads and parses every row. Rows are
   * append-only and `seq` has no gaps, so the pages of a read outside a transaction still add
   * up to one gapless range; inside `context()`'s read transaction they are one snapshot.
   */
  async #range(sql: SqlExecutor, sessionId: string, query: MessageQuery): Promise<StoredMessage[]> {
    let after = clampSeq(Math.floor(query.afterSeq ?? 0));
    let before = clampSeq(Math.ceil(query.beforeSeq ?? MAX_SEQ));
    const desc = query.order === 'desc';
    let remaining =
      query.limit === undefined ? Number.POSITIVE_INFINITY : Math.max(0, Math.floor(query.limit));
    const out: StoredMessage[] = [];
    while (remaining > 0) {
      const pageRows = Math.min(READ_PAGE_ROWS, remaining);
      const rows = await sql.query<MessageRow>(
        desc ? this.#sql.messagesDescLimited : this.#sql.messagesAscLimited,
        [sessionId, after, before, pageRows],
      );
      for (const row of rows) out.push(toStoredMessage(sessionId, row, this.#driver.dialect));
      remaining -= rows.length;
      const last = rows.at(-1);
      if (rows.length < pageRows || last === undefined || remaining <= 0) break;
      if (desc) before = Number(last.seq);
      else after = Number(last.seq);
      await yieldToEventLoop();
    }
    return out;
  }

  /** Runs each statement as `#read` does, for code written against an executor. */
  #reader(operation: string): SqlExecutor {
    return { query: (sql, params) => this.#read(operation, sql, params) };
  }

  /** One read-only statement: on its own where the driver can, else in a read transaction. */
  async #read<R extends SqlRow>(operation: string, sql: string, params: readonly SqlValue[]): Promise<R[]> {
    const read = this.#driver.read;
    if (read === undefined) return this.#transaction('read', operation, (tx) => tx.query<R>(sql, params));
    this.#checkOpen(operation);
    await this.#opened;
    try {
      return await read.call<SqlDriver, [string, readonly SqlValue[]], Promise<R[]>>(
        this.#driver,
        sql,
        params,
      );
    } catch (error) {
      throw this.#wrap(error, operation);
    }
  }

  #checkOpen(operation: string): void {
    if (this.#closed !== undefined) {
      throw new ChatfoldError('E_STORE', `${this.kind} store: ${operation} after close()`, { operation });
    }
  }

  async #transaction<T>(
    mode: 'read' | 'write',
    operation: string,
    work: (sql: SqlExecutor) => Promise<T>,
  ): Promise<T> {
    this.#checkOpen(operation);
    await this.#opened;
    try {
      return await this.#driver.transaction(mode, work);
    } catch (error) {
      throw this.#wrap(error, operation);
    }
  }

  #wrap(error: unknown, operation: string): ChatfoldError {
    if (ChatfoldError.isInstance(error)) return error;
    const reason = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: unknown } | null)?.code;
    return new ChatfoldError(
      'E_STORE',
      `${this.kind} store: ${operation} failed: ${reason}`,
      { operation, ...(typeof code === 'string' ? { databaseCode: code } : {}) },
      { cause: error },
    );
  }
}
