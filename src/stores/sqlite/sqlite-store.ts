import { checkSqliteOptions } from '../shared/store-options.ts';
import { SqlStore } from '../sql/sql-store.ts';
import type { FullStore, Store } from '../types.ts';
import { SqliteDriver } from './sqlite-driver.ts';

/** Options of {@link sqliteStore}. */
export interface SqliteStoreOptions {
  /** The database file, created when missing (its folder must exist); `':memory:'` for a private in-memory database. */
  readonly path: string;
  /** How long a write waits for another process's transaction before `E_STORE` (SQLite `busy_timeout`). */
  readonly busyTimeoutMs?: number;
  /**
   * `full` (default): a committed append survives a power loss. `normal`: survives a crash of
   * the process, may lose the last commits on power loss; faster appends.
   */
  readonly synchronous?: 'full' | 'normal';
  /** The clock for stored timestamps (tests). */
  readonly now?: () => Date;
}

/** Defaults of {@link SqliteStoreOptions}. */
export const SQLITE_STORE_DEFAULTS = { busyTimeoutMs: 5000, synchronous: 'full' } as const;

/** The SQLite store (ST-1): one database file through Node's built-in `node:sqlite`. */
export class SqliteStore extends SqlStore {
  constructor(options: SqliteStoreOptions) {
    super(
      'sqlite',
      new SqliteDriver({
        path: options.path,
        busyTimeoutMs: options.busyTimeoutMs ?? SQLITE_STORE_DEFAULTS.busyTimeoutMs,
        synchronous: options.synchronous ?? SQLITE_STORE_DEFAULTS.synchronous,
      }),
      options.now === undefined ? {} : { now: options.now },
    );
  }
}

/**
 * The embedded store (ST-1): sessions in one SQLite file via Node's built-in `node:sqlite`
 * (Node.js >= 22.13, no package to install). WAL journal, so readers never block the writer;
 * appends take the write lock at `BEGIN IMMEDIATE`, so processes sharing the file never
 * duplicate a `seq` (ST-5). The schema is created and migrated on first use.
 *
 * @param options the database file, or {@link SqliteStoreOptions}.
 * @returns a {@link Store}; call `close()` to release the file.
 * @example
 * import { sqliteStore } from 'chatfold/sqlite';
 * const chatfold = createChatfold({ model: 'gpt-4o', store: sqliteStore('chat.db') });
 */
export function sqliteStore(options: string | SqliteStoreOptions): FullStore {
  return new SqliteStore(checkSqliteOptions(typeof options === 'string' ? { path: options } : options));
}
