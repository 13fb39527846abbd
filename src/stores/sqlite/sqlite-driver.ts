import { resolve } from 'node:path';
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { SerialQueue } from '../sql/serial-queue.ts';
import type { SqlDriver, SqlExecutor, SqlRow, SqlValue } from '../sql/sql-driver.ts';
import { sqliteDialect } from './sqlite-dialect.ts';

export interface SqliteDriverOptions {
  readonly path: string;
  readonly busyTimeoutMs: number;
  readonly synchronous: 'full' | 'normal';
}

/**
 * One queue per database file in this process: two stores on one file take turns here, so
 * one never waits in SQLite's busy handler (which blocks the thread) on a transaction that
 * the other can only finish on this same thread. Other processes wait in the busy handler.
 */
const queues = new Map<string, SerialQueue>();

function loadSqlite(): typeof import('node:sqlite') {
  let sqlite: typeof import('node:sqlite') | undefined;
  try {
    sqlite = process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite') | undefined;
  } catch {
    sqlite = undefined;
  }
  if (sqlite === undefined) {
    throw new ChatfoldError(
      'E_MISSING_DEPENDENCY',
      `sqliteStore needs Node's built-in node:sqlite: Node.js >= 22.13 (22.5-22.12 with --experimental-sqlite); this is ${process.version}. Use jsonlStore or postgresStore on older Node.js`,
      { dependency: 'node:sqlite', node: process.version },
    );
  }
  return sqlite;
}

/** The node:sqlite (`DatabaseSync`) driver: WAL, a busy timeout, `BEGIN IMMEDIATE` for writes. */
export class SqliteDriver implements SqlDriver {
  readonly dialect = sqliteDialect;
  readonly #options: SqliteDriverOptions;
  readonly #queue: SerialQueue;
  readonly #statements = new Map<string, StatementSync>();
  readonly #executor: SqlExecutor;
  #db: DatabaseSync | undefined;
  #closed = false;

  constructor(options: SqliteDriverOptions) {
    this.#options = options;
    const key = options.path === ':memory:' || options.path === '' ? Symbol() : resolve(options.path);
    if (typeof key === 'symbol') {
      this.#queue = new SerialQueue();
    } else {
      this.#queue = queues.get(key) ?? new SerialQueue();
      queues.set(key, this.#queue);
    }
    this.#executor = {
      query: async <R extends SqlRow>(sql: string, params: readonly SqlValue[]): Promise<R[]> =>
        this.#statement(sql).all(...(params as SQLInputValue[])) as R[],
    };
  }

  transaction<T>(mode: 'read' | 'write', work: (sql: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#queue.run(async () => {
      const db = this.#open();
      // IMMEDIATE: the write lock is taken at BEGIN, so two processes never read the same max(seq).
      db.exec(mode === 'write' ? 'BEGIN IMMEDIATE' : 'BEGIN');
      try {
        const result = await work(this.#executor);
        db.exec('COMMIT');
        return result;
      } catch (error) {
        // db.isTransaction needs Node 22.16; a failed ROLLBACK here only means none was open.
        try {
          db.exec('ROLLBACK');
        } catch {}
        throw error;
      }
    });
  }

  close(): Promise<void> {
    this.#closed = true;
    return this.#queue.run(async () => {
      this.#statements.clear();
      this.#db?.close();
      this.#db = undefined;
    });
  }

  #open(): DatabaseSync {
    if (this.#db !== undefined) return this.#db;
    if (this.#closed) throw new Error('the database is closed');
    const { DatabaseSync } = loadSqlite();
    const db = new DatabaseSync(this.#options.path);
    try {
      db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(this.#options.busyTimeoutMs))}`);
      db.exec('PRAGMA journal_mode = WAL');
      db.exec(`PRAGMA synchronous = ${this.#options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
      db.exec('PRAGMA foreign_keys = ON');
    } catch (error) {
      db.close();
      throw error;
    }
    this.#db = db;
    return db;
  }

  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = (this.#db as DatabaseSync).prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}
