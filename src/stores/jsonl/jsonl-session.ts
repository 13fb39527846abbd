import { join } from 'node:path';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { deepFreeze } from '../shared/deep-freeze.ts';
import { searchableText } from '../shared/message-text.ts';
import type { Snapshot, SnapshotKind, StoredMessage } from '../types.ts';
import { JsonlLog } from './jsonl-log.ts';

/** A line of `messages.jsonl`: the stored message, and for all but the last row of a batch the seq it ends at. */
export interface RowLine {
  readonly row: StoredMessage;
  readonly batchEnd: number | undefined;
}

/** A line of `usage.jsonl` (`recordUsage`; message rows themselves are never rewritten). */
export interface UsageLine {
  readonly messageId: string;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly recordedAt: string;
}

type Usage = Pick<StoredMessage, 'inputTokens' | 'outputTokens'>;

/** File names inside a session folder; the layout is documented in the README. */
export const SESSION_FILES = {
  info: 'session.json',
  messages: 'messages.jsonl',
  usage: 'usage.jsonl',
  snapshots: 'snapshots.jsonl',
  summary: 'summary.json',
  lock: 'lock',
} as const;

/**
 * What one store instance knows about one session folder: its three append-only logs and the
 * indexes built from them (rows with usage applied, id → row, search text). Each read first
 * catches up with what other writers appended; appends under the lock update it directly.
 */
export class JsonlSession {
  readonly id: string;
  readonly folder: string;
  readonly messageLog: JsonlLog<RowLine>;
  readonly usageLog: JsonlLog<UsageLine>;
  readonly snapshotLog: JsonlLog<Snapshot>;
  /** Set once `session.json` is known to exist, so appends skip checking it. */
  exists = false;
  /** The snapshot id `summary.json` is known to hold (see `JsonlStore#syncSummaryMirror`). */
  mirroredSummaryId: string | undefined;
  #rows: StoredMessage[] = [];
  #byId = new Map<string, number>();
  #text: (string | undefined)[] = [];
  #usage = new Map<string, Usage>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(id: string, folder: string) {
    this.id = id;
    this.folder = folder;
    this.messageLog = new JsonlLog(join(folder, SESSION_FILES.messages), {
      parse: (value) => parseRowLine(value, id),
      isCommit: (line) => line.batchEnd === undefined || line.batchEnd === line.row.seq,
    });
    this.usageLog = new JsonlLog(join(folder, SESSION_FILES.usage), { parse: parseUsageLine });
    this.snapshotLog = new JsonlLog(join(folder, SESSION_FILES.snapshots), {
      parse: (value) => parseSnapshot(value, id),
    });
  }

  /** Rows with usage applied, seq order (`rows[i].seq === i + 1`). Frozen: hand them out as they are. */
  get rows(): readonly StoredMessage[] {
    return this.#rows;
  }

  /** The stored row with this message id. */
  rowOf(messageId: string): StoredMessage | undefined {
    const index = this.#byId.get(messageId);
    return index === undefined ? undefined : this.#rows[index];
  }

  /** Lower-cased searchable text of the row at `index`, computed on first use. */
  textAt(index: number): string {
    let text = this.#text[index];
    if (text === undefined) {
      text = searchableText((this.#rows[index] as StoredMessage).message);
      this.#text[index] = text;
    }
    return text;
  }

  /** Catches up with rows and usage other writers appended. */
  refreshMessages(): Promise<void> {
    return this.#serial(async () => {
      const rows = await this.messageLog.refresh();
      if (rows.reset) this.#rebuild();
      else this.#addRows(rows.added);
      const usage = await this.usageLog.refresh();
      if (usage.reset) this.#rebuild();
      else this.#addUsage(usage.added);
    });
  }

  refreshSnapshots(): Promise<readonly Snapshot[]> {
    return this.#serial(async () => {
      await this.snapshotLog.refresh();
      return this.snapshotLog.entries;
    });
  }

  /** The newest snapshot of a kind among those read. */
  latest(kind: SnapshotKind): Snapshot | undefined {
    return this.snapshotLog.entries.findLast((snapshot) => snapshot.kind === kind);
  }

  /** Appends rows (the caller holds the lock and has refreshed). */
  appendRows(text: string, lines: readonly RowLine[], fsync: boolean): Promise<void> {
    return this.#serial(async () => {
      await this.messageLog.append(text, lines, { fsync });
      this.#addRows(lines);
    });
  }

  /** Appends a usage line (the caller holds the lock and has refreshed). */
  appendUsage(line: UsageLine, fsync: boolean): Promise<void> {
    return this.#serial(async () => {
      await this.usageLog.append(`${JSON.stringify(line)}\n`, [line], { fsync });
      this.#addUsage([line]);
    });
  }

  /** Appends a snapshot line (the caller holds the lock and has refreshed). */
  appendSnapshot(snapshot: Snapshot, fsync: boolean): Promise<void> {
    return this.#serial(() =>
      this.snapshotLog.append(`${JSON.stringify(snapshot)}\n`, [deepFreeze(snapshot)], { fsync }),
    );
  }

  /**
   * Runs reads and appends of this session's logs one at a time: two overlapping catch-ups
   * would both read the same new bytes and index the rows twice.
   */
  #serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work);
    this.#queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  #rebuild(): void {
    this.#rows = [];
    this.#byId.clear();
    this.#text = [];
    this.#usage.clear();
    this.#addUsage(this.usageLog.entries);
    this.#addRows(this.messageLog.entries);
  }

  #addRows(lines: readonly RowLine[]): void {
    for (const { row } of lines) {
      if (row.seq !== this.#rows.length + 1) {
        throw new ChatfoldError(
          'E_STORE',
          `jsonl store: ${this.messageLog.path} has seq ${row.seq} after seq ${this.#rows.length}; seqs must run 1, 2, 3, … — the file was edited or two writers bypassed the lock`,
          { path: this.messageLog.path, seq: row.seq, expected: this.#rows.length + 1 },
        );
      }
      this.#byId.set(row.message.id, this.#rows.length);
      const usage = this.#usage.get(row.message.id);
      this.#rows.push(usage === undefined ? row : Object.freeze({ ...row, ...usage }));
    }
  }

  #addUsage(lines: readonly UsageLine[]): void {
    for (const line of lines) {
      const usage: Usage = {
        ...this.#usage.get(line.messageId),
        ...(line.inputTokens === undefined ? {} : { inputTokens: line.inputTokens }),
        ...(line.outputTokens === undefined ? {} : { outputTokens: line.outputTokens }),
      };
      this.#usage.set(line.messageId, usage);
      const index = this.#byId.get(line.messageId);
      if (index !== undefined)
        this.#rows[index] = Object.freeze({ ...this.#rows[index], ...usage } as StoredMessage);
    }
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isOptionalCount = (value: unknown): boolean =>
  value === undefined || (typeof value === 'number' && Number.isFinite(value));

function parseRowLine(value: unknown, sessionId: string): RowLine | string {
  if (!isRecord(value)) return 'expected an object';
  const { batchEnd, ...row } = value;
  if (row.sessionId !== sessionId)
    return `sessionId is not this folder's session ${JSON.stringify(sessionId)}`;
  if (!Number.isSafeInteger(row.seq) || (row.seq as number) < 1) return 'seq: expected a positive integer';
  const message = row.message;
  if (!isRecord(message) || typeof message.id !== 'string' || !Array.isArray(message.parts)) {
    return 'message: expected an object with a string id and parts';
  }
  if (typeof row.storedAt !== 'string') return 'storedAt: expected a string';
  if (
    !isOptionalCount(row.inputTokens) ||
    !isOptionalCount(row.outputTokens) ||
    !isOptionalCount(row.tokenEstimate)
  ) {
    return 'token columns: expected numbers';
  }
  if (
    batchEnd !== undefined &&
    (!Number.isSafeInteger(batchEnd) || (batchEnd as number) < (row.seq as number))
  ) {
    return 'batchEnd: expected a seq at or after this row';
  }
  return { row: deepFreeze(row) as unknown as StoredMessage, batchEnd: batchEnd as number | undefined };
}

function parseUsageLine(value: unknown): UsageLine | string {
  if (!isRecord(value) || typeof value.messageId !== 'string') return 'expected an object with a messageId';
  if (!isOptionalCount(value.inputTokens) || !isOptionalCount(value.outputTokens)) return 'expected numbers';
  return value as unknown as UsageLine;
}

function parseSnapshot(value: unknown, sessionId: string): Snapshot | string {
  if (!isRecord(value)) return 'expected an object';
  if (value.sessionId !== sessionId)
    return `sessionId is not this folder's session ${JSON.stringify(sessionId)}`;
  if (typeof value.id !== 'string' || typeof value.messageCutoffId !== 'string') return 'expected string ids';
  if (value.kind !== 'summary' && value.kind !== 'title' && value.kind !== 'memory') return 'kind: unknown';
  if (!Number.isSafeInteger(value.cutoffSeq) || typeof value.tokenCount !== 'number')
    return 'expected numbers';
  if (typeof value.createdAt !== 'string' || !('content' in value)) return 'expected createdAt and content';
  return deepFreeze(value) as unknown as Snapshot;
}
