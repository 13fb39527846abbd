import { randomUUID } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import type { JsonValue, Message } from '../../messages/types.ts';
import { deepFreeze } from '../shared/deep-freeze.ts';
import { checkSessionId, conflictError } from '../shared/errors.ts';
import { messageFingerprint } from '../shared/message-text.ts';
import { searchRows, selectMessages } from '../shared/query-rows.ts';
import { readBackParsed, storableRecords } from '../shared/storable-records.ts';
import { checkJsonlOptions } from '../shared/store-options.ts';
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
import { fsyncDirectory, readJsonFile, writeFileAtomic } from './atomic-file.ts';
import { acquireFileLock, FILE_LOCK_DEFAULTS, storeError } from './file-lock.ts';
import { JsonlSession, type RowLine, SESSION_FILES } from './jsonl-session.ts';
import { SESSIONS_FOLDER, sessionFolderName } from './session-folder.ts';

/** Options of {@link jsonlStore}. */
export interface JsonlStoreOptions {
  /**
   * `'always'` (default): every write is on disk before it resolves (survives power loss).
   * `'never'`: leave flushing to the OS; still safe against process crashes, several times faster.
   */
  readonly fsync?: 'always' | 'never';
  /** How long a write waits for another writer's lock before `E_STORE`. Default 10 s. */
  readonly lockTimeoutMs?: number;
  /** A lock whose holder cannot be checked (another host) counts as abandoned after this age. Default 30 s. */
  readonly staleLockMs?: number;
  /** Sessions whose indexes stay in memory (least recently used are dropped). Default 100. */
  readonly cachedSessions?: number;
  /** Clock for `storedAt`, `createdAt` and `updatedAt`. Default `() => new Date()`. */
  readonly now?: () => Date;
}

/** `session.json`: the exact id (folder names are an encoding of it), timestamps, metadata. */
interface SessionFile {
  readonly id: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly metadata?: Readonly<Record<string, JsonValue>>;
}

const SETTINGS_FILE = 'settings.json';
const SETTINGS_LOCK = 'settings.lock';

/** A session's turn lease (issue 24 §5): `{ holder, expiresAt }`, absent when nobody holds it. */
const LEASE_FILE = 'lease.json';

/**
 * Keeps each session in its own folder of append-only JSONL files (ST-1, seed 004). Several
 * processes on one machine may share the directory (ST-5): writes take a lock file, every
 * read catches up with what others appended. See the README for the layout and guarantees.
 */
export class JsonlStore implements Store {
  readonly kind = 'jsonl';
  /** The directory, resolved to an absolute path. */
  readonly dir: string;
  readonly #fsync: boolean;
  readonly #lock: { readonly timeoutMs: number; readonly staleMs: number };
  readonly #cachedSessions: number;
  readonly #now: () => Date;
  readonly #sessions = new Map<string, JsonlSession>();
  /** In-process queue per lock file: the lock file serialises processes, this serialises calls. */
  readonly #queues = new Map<string, Promise<unknown>>();
  #closed = false;

  constructor(
    dir: string,
    {
      fsync = 'always',
      lockTimeoutMs = FILE_LOCK_DEFAULTS.timeoutMs,
      staleLockMs = FILE_LOCK_DEFAULTS.staleMs,
      cachedSessions = 100,
      now = () => new Date(),
    }: JsonlStoreOptions = {},
  ) {
    this.dir = resolve(dir);
    this.#fsync = fsync === 'always';
    this.#lock = { timeoutMs: lockTimeoutMs, staleMs: staleLockMs };
    this.#cachedSessions = Math.max(1, cachedSessions);
    this.#now = now;
  }

  async acquireLease(sessionId: string, holder: string, ttlMs: number, replacing?: string): Promise<boolean> {
    const session = this.#session(sessionId);
    // Read and written under the session's file lock, so two processes cannot both take it.
    return this.#exclusive(session, async () => {
      const path = join(session.folder, LEASE_FILE);
      const now = this.#now().getTime();
      const current = (await readJsonFile(path)) as { holder?: unknown; expiresAt?: unknown } | undefined;
      const live =
        current !== undefined &&
        current.holder !== holder &&
        current.holder !== replacing &&
        typeof current.expiresAt === 'number' &&
        current.expiresAt > now;
      if (live) return false;
      const lease = { holder, expiresAt: now + Math.max(0, Math.floor(ttlMs)) };
      await writeFileAtomic(path, `${JSON.stringify(lease)}\n`, { fsync: false });
      return true;
    });
  }

  async currentLease(sessionId: string): Promise<StoredLease | undefined> {
    const session = this.#session(sessionId);
    const current = (await readJsonFile(join(session.folder, LEASE_FILE))) as
      | { holder?: unknown; expiresAt?: unknown }
      | undefined;
    if (typeof current?.holder !== 'string' || typeof current.expiresAt !== 'number') return undefined;
    return { holder: current.holder, expiresAt: current.expiresAt };
  }

  async releaseLease(sessionId: string, holder: string): Promise<void> {
    const session = this.#session(sessionId);
    await this.#exclusive(session, async () => {
      const path = join(session.folder, LEASE_FILE);
      const current = (await readJsonFile(path)) as { holder?: unknown } | undefined;
      if (current?.holder === holder) await rm(path, { force: true });
    });
  }

  async ensureSession(
    sessionId: string,
    metadata?: Readonly<Record<string, JsonValue>>,
  ): Promise<SessionInfo> {
    const session = this.#session(sessionId);
    if (metadata === undefined && (session.exists || (await this.#readInfo(session)) !== undefined)) {
      return this.#infoOf(session);
    }
    return this.#exclusive(session, async () => {
      const file = await this.#create(session);
      if (metadata !== undefined) {
        const merged: SessionFile = {
          ...file,
          updatedAt: this.#now().toISOString(),
          metadata: { ...file.metadata, ...metadata },
        };
        await writeFileAtomic(join(session.folder, SESSION_FILES.info), `${JSON.stringify(merged)}\n`, {
          fsync: this.#fsync,
        });
      }
      return this.#infoOf(session);
    });
  }

  async getSession(sessionId: string): Promise<SessionInfo | undefined> {
    const session = this.#session(sessionId);
    return (await this.#readInfo(session)) === undefined ? undefined : this.#infoOf(session);
  }

  async listSessions(options: { readonly limit?: number } = {}): Promise<readonly SessionInfo[]> {
    this.#checkOpen();
    const sessionsDir = join(this.dir, SESSIONS_FOLDER);
    let entries: Dirent[];
    try {
      entries = await readdir(sessionsDir, { withFileTypes: true });
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT') return [];
      throw storeError(error, sessionsDir, 'list');
    }
    const infos: SessionInfo[] = [];
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const file = await readJsonFile(join(sessionsDir, entry.name, SESSION_FILES.info));
      if (!isSessionFile(file) || sessionFolderName(file.id) !== entry.name) continue; // not a session folder
      infos.push(await this.#infoOf(this.#session(file.id)));
    }
    infos.sort((a, b) =>
      a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.id < b.id ? -1 : 1,
    );
    return options.limit === undefined ? infos : infos.slice(0, Math.max(0, options.limit));
  }

  async append(sessionId: string, input: readonly AppendRecord[]): Promise<readonly StoredMessage[]> {
    // Each message read once and checked: the line written is made from the checked copy (issue 24 §2).
    const records = storableRecords('jsonl store', input);
    const session = this.#session(sessionId);
    // Outside the lock: the JSON of each message. Fingerprints are only needed for ids seen before.
    const prepared = records.map((record) => ({ record, json: JSON.stringify(record.message) }));
    return this.#exclusive(session, async () => {
      if (!session.exists) await this.#create(session);
      await session.refreshMessages();
      await this.#syncSummaryMirror(session);
      const batch = new Map<string, { message: Message; seq: number }>();
      const fresh: typeof prepared = [];
      const seqs: number[] = [];
      for (const item of prepared) {
        const { id } = item.record.message;
        const earlier = session.rowOf(id) ?? batch.get(id);
        if (earlier === undefined) {
          const seq = session.rows.length + fresh.length + 1;
          fresh.push(item);
          batch.set(id, { message: item.record.message, seq });
          seqs.push(seq);
        } else if (messageFingerprint(earlier.message) !== messageFingerprint(item.record.message)) {
          throw conflictError(sessionId, id);
        } else {
          seqs.push(earlier.seq);
        }
      }
      if (fresh.length > 0) {
        const storedAt = this.#now().toISOString();
        const first = session.rows.length + 1;
        const last = first + fresh.length - 1;
        let text = '';
        const lines: RowLine[] = [];
        fresh.forEach(({ record, json }, i) => {
          const seq = first + i;
          const batchEnd = seq === last ? undefined : last;
          const line = rowLineText(sessionId, seq, json, record, storedAt, batchEnd);
          text += line;
          // Parse what was written: the row kept is exactly what a later read returns.
          const { batchEnd: _, ...row } = JSON.parse(line) as StoredMessage & { batchEnd?: number };
          readBackParsed('jsonl store', row.message);
          lines.push({ row: deepFreeze(row), batchEnd });
        });
        await session.appendRows(text, lines, this.#fsync);
      }
      return seqs.map((seq) => session.rows[seq - 1] as StoredMessage);
    });
  }

  async messages(sessionId: string, query: MessageQuery = {}): Promise<readonly StoredMessage[]> {
    const session = this.#session(sessionId);
    await session.refreshMessages();
    return selectMessages(session.rows, query);
  }

  async recordUsage(
    sessionId: string,
    messageId: string,
    usage: { readonly inputTokens?: number; readonly outputTokens?: number },
  ): Promise<void> {
    const session = this.#session(sessionId);
    if (usage.inputTokens === undefined && usage.outputTokens === undefined) return;
    await this.#exclusive(session, async () => {
      await session.refreshMessages();
      if (session.rowOf(messageId) === undefined) return;
      await session.appendUsage(
        {
          messageId,
          ...(usage.inputTokens === undefined ? {} : { inputTokens: usage.inputTokens }),
          ...(usage.outputTokens === undefined ? {} : { outputTokens: usage.outputTokens }),
          recordedAt: this.#now().toISOString(),
        },
        this.#fsync,
      );
    });
  }

  async latestSnapshot(sessionId: string, kind: SnapshotKind = 'summary'): Promise<Snapshot | undefined> {
    const session = this.#session(sessionId);
    await session.refreshSnapshots();
    return session.latest(kind);
  }

  async snapshots(sessionId: string, kind?: SnapshotKind): Promise<readonly Snapshot[]> {
    const all = await this.#session(sessionId).refreshSnapshots();
    return kind === undefined ? [...all] : all.filter((snapshot) => snapshot.kind === kind);
  }

  async writeSnapshot(
    sessionId: string,
    input: SnapshotInput,
    options: WriteSnapshotOptions,
  ): Promise<WriteSnapshotResult> {
    const session = this.#session(sessionId);
    return this.#exclusive(session, async () => {
      if (!session.exists) await this.#create(session);
      await this.#syncSummaryMirror(session);
      const latest = session.latest(input.kind);
      if ((latest?.id ?? null) !== options.expectedLatestId) return { written: false, latest };
      const snapshot: Snapshot = JSON.parse(
        JSON.stringify({
          id: `snap_${randomUUID()}`,
          sessionId,
          kind: input.kind,
          content: input.content,
          messageCutoffId: input.messageCutoffId,
          cutoffSeq: input.cutoffSeq,
          tokenCount: input.tokenCount,
          createdAt: this.#now().toISOString(),
        }),
      );
      // The snapshots.jsonl line is the commit (ST-4); summary.json mirrors the latest summary
      // for tools and people (seed 004 §7.5) and is replaced atomically after it.
      await session.appendSnapshot(snapshot, this.#fsync);
      if (snapshot.kind === 'summary') await this.#writeSummaryMirror(session, snapshot);
      return { written: true, snapshot: session.latest(input.kind) as Snapshot };
    });
  }

  async context(sessionId: string, options: { readonly headCount?: number } = {}): Promise<SessionContext> {
    const session = this.#session(sessionId);
    // Snapshots first: every row up to a snapshot's cutoff was written before it.
    await session.refreshSnapshots();
    await session.refreshMessages();
    const snapshot = session.latest('summary');
    const rows = session.rows;
    const cutoff = Math.min(snapshot?.cutoffSeq ?? 0, rows.length);
    return {
      ...(snapshot === undefined ? {} : { snapshot }),
      head:
        snapshot === undefined ? [] : rows.slice(0, Math.min(Math.max(0, options.headCount ?? 0), cutoff)),
      tail: rows.slice(cutoff),
      messageCount: rows.length,
    };
  }

  async search(sessionId: string, query: SearchQuery): Promise<readonly StoredMessage[]> {
    const session = this.#session(sessionId);
    await session.refreshMessages();
    return searchRows(session.rows, (index) => session.textAt(index), query);
  }

  async getSetting(key: string): Promise<JsonValue | undefined> {
    this.#checkOpen();
    return (await this.#readSettings()).get(key);
  }

  async setSetting(key: string, value: JsonValue): Promise<void> {
    this.#checkOpen();
    const lockPath = join(this.dir, SETTINGS_LOCK);
    await this.#queued(lockPath, async () => {
      await mkdir(this.dir, { recursive: true }).catch((error: unknown) => {
        throw storeError(error, this.dir, 'create');
      });
      const lock = await acquireFileLock(lockPath, this.#lock);
      try {
        const settings = await this.#readSettings();
        settings.set(key, value);
        const text = `${JSON.stringify(Object.fromEntries(settings), null, 2)}\n`;
        await writeFileAtomic(join(this.dir, SETTINGS_FILE), text, { fsync: this.#fsync });
      } finally {
        await lock.release();
      }
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled([...this.#queues.values()]);
    this.#sessions.clear();
  }

  #checkOpen(): void {
    if (this.#closed) {
      throw new ChatfoldError(
        'E_STORE',
        `jsonl store ${this.dir} is closed; open a new one with jsonlStore(dir)`,
        {
          dir: this.dir,
        },
      );
    }
  }

  /** The cached session object (least recently used ones are dropped). */
  #session(sessionId: string): JsonlSession {
    this.#checkOpen();
    checkSessionId(sessionId);
    let session = this.#sessions.get(sessionId);
    if (session === undefined) {
      session = new JsonlSession(sessionId, join(this.dir, SESSIONS_FOLDER, sessionFolderName(sessionId)));
      if (this.#sessions.size >= this.#cachedSessions) {
        const oldest = this.#sessions.keys().next().value;
        if (oldest !== undefined) this.#sessions.delete(oldest);
      }
    } else {
      this.#sessions.delete(sessionId);
    }
    this.#sessions.set(sessionId, session);
    return session;
  }

  /** Runs `work` holding the session's lock: first in this process, then across processes. */
  async #exclusive<T>(session: JsonlSession, work: () => Promise<T>): Promise<T> {
    const lockPath = join(session.folder, SESSION_FILES.lock);
    return this.#queued(lockPath, async () => {
      if (!session.exists) {
        try {
          await mkdir(session.folder, { recursive: true });
        } catch (error) {
          throw storeError(error, session.folder, 'create');
        }
      }
      const lock = await acquireFileLock(lockPath, this.#lock);
      try {
        return await work();
      } finally {
        await lock.release();
      }
    });
  }

  /**
   * Brings `summary.json` up to the latest summary in `snapshots.jsonl` (the caller holds the
   * lock). Only a writer killed between the two writes leaves it behind; this costs one `stat`
   * unless another writer added a snapshot since this store last looked.
   */
  async #syncSummaryMirror(session: JsonlSession): Promise<void> {
    await session.refreshSnapshots();
    const latest = session.latest('summary');
    if (latest === undefined || session.mirroredSummaryId === latest.id) return;
    const path = join(session.folder, SESSION_FILES.summary);
    // A mirror that cannot be read (power loss with fsync 'never') is rewritten, not an error.
    const mirrored = await readJsonFile(path).catch(() => undefined);
    if (isRecordWithId(mirrored) && mirrored.id === latest.id) session.mirroredSummaryId = latest.id;
    else await this.#writeSummaryMirror(session, latest);
  }

  async #writeSummaryMirror(session: JsonlSession, snapshot: Snapshot): Promise<void> {
    const text = `${JSON.stringify(snapshot, null, 2)}\n`;
    await writeFileAtomic(join(session.folder, SESSION_FILES.summary), text, { fsync: this.#fsync });
    session.mirroredSummaryId = snapshot.id;
  }

  async #queued<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(key) ?? Promise.resolve();
    const current = previous.then(work, work);
    const settled = current.then(
      () => undefined,
      () => undefined,
    );
    this.#queues.set(key, settled);
    try {
      return await current;
    } finally {
      if (this.#queues.get(key) === settled) this.#queues.delete(key);
    }
  }

  /** Reads `session.json`, checking that the folder belongs to this id. */
  async #readInfo(session: JsonlSession): Promise<SessionFile | undefined> {
    const path = join(session.folder, SESSION_FILES.info);
    const file = await readJsonFile(path);
    if (file === undefined) return undefined;
    if (!isSessionFile(file)) {
      throw new ChatfoldError(
        'E_STORE',
        `jsonl store: ${path} is not a session file; restore it from a backup`,
        {
          path,
        },
      );
    }
    if (file.id !== session.id) {
      throw new ChatfoldError(
        'E_STORE',
        `jsonl store: folder ${session.folder} belongs to session ${JSON.stringify(file.id)}, not ${JSON.stringify(session.id)}`,
        { path, sessionId: session.id, folderSessionId: file.id },
      );
    }
    session.exists = true;
    return file;
  }

  /** Creates `session.json` when missing (the caller holds the lock). */
  async #create(session: JsonlSession): Promise<SessionFile> {
    const existing = await this.#readInfo(session);
    if (existing !== undefined) return existing;
    const now = this.#now().toISOString();
    const file: SessionFile = { id: session.id, createdAt: now, updatedAt: now };
    await writeFileAtomic(join(session.folder, SESSION_FILES.info), `${JSON.stringify(file)}\n`, {
      fsync: this.#fsync,
    });
    if (this.#fsync) await fsyncDirectory(join(this.dir, SESSIONS_FOLDER));
    session.exists = true;
    return file;
  }

  async #infoOf(session: JsonlSession): Promise<SessionInfo> {
    const file = await this.#readInfo(session);
    await session.refreshMessages();
    const last = session.rows.at(-1);
    const updatedAt =
      file === undefined
        ? (last?.storedAt ?? '')
        : last !== undefined && last.storedAt > file.updatedAt
          ? last.storedAt
          : file.updatedAt;
    return {
      id: session.id,
      createdAt: file?.createdAt ?? last?.storedAt ?? updatedAt,
      updatedAt,
      messageCount: session.rows.length,
      ...(file?.metadata === undefined ? {} : { metadata: file.metadata }),
    };
  }

  async #readSettings(): Promise<Map<string, JsonValue>> {
    const path = join(this.dir, SETTINGS_FILE);
    const file = await readJsonFile(path);
    if (file === undefined) return new Map();
    if (typeof file !== 'object' || file === null || Array.isArray(file)) {
      throw new ChatfoldError('E_STORE', `jsonl store: ${path} must hold a JSON object`, { path });
    }
    return new Map(Object.entries(file as Record<string, JsonValue>));
  }
}

/** One `messages.jsonl` line: the StoredMessage's JSON with the message's JSON spliced in. */
function rowLineText(
  sessionId: string,
  seq: number,
  messageJson: string,
  record: AppendRecord,
  storedAt: string,
  batchEnd: number | undefined,
): string {
  const columns = JSON.stringify({
    inputTokens: record.inputTokens,
    outputTokens: record.outputTokens,
    tokenEstimate: record.tokenEstimate,
    tokenizer: record.tokenizer,
    storedAt,
    batchEnd,
  });
  return `{"sessionId":${JSON.stringify(sessionId)},"seq":${seq},"message":${messageJson},${columns.slice(1)}\n`;
}

function isRecordWithId(value: unknown): value is { readonly id: unknown } {
  return typeof value === 'object' && value !== null && 'id' in value;
}

function isSessionFile(value: unknown): value is SessionFile {
  if (typeof value !== 'object' || value === null) return false;
  const file = value as Record<string, unknown>;
  return (
    typeof file.id === 'string' && typeof file.createdAt === 'string' && typeof file.updatedAt === 'string'
  );
}

/**
 * A store that keeps each session in a folder of JSONL files (ST-1, seed 004): readable with
 * `cat` and `jq`, append-only, safe for several processes on one machine (ST-5). For several
 * machines sharing sessions, use `postgresStore`.
 *
 * @param options - `{ dir, fsync, … }` (see {@link JsonlStoreOptions}), or the directory alone;
 *   the directory is created on the first write.
 * @returns A {@link Store}.
 * @throws ChatfoldError `E_INVALID_OPTIONS` for a bad option.
 * @example
 * import { jsonlStore } from 'chatfold/jsonl';
 * const chatfold = createChatfold({ model: 'gpt-4o', store: jsonlStore({ dir: '.chatfold/sessions' }) });
 */
export function jsonlStore(options: string | (JsonlStoreOptions & { readonly dir: string })): JsonlStore;
/** @deprecated Pass one options object: `jsonlStore({ dir, ...options })`. */
export function jsonlStore(dir: string, options: JsonlStoreOptions): JsonlStore;
export function jsonlStore(
  dirOrOptions: string | (JsonlStoreOptions & { readonly dir: string }),
  options: JsonlStoreOptions = {},
): JsonlStore {
  const { dir, ...rest } = checkJsonlOptions(
    typeof dirOrOptions === 'string' ? { dir: dirOrOptions, ...options } : dirOrOptions,
  );
  return new JsonlStore(dir, rest);
}
