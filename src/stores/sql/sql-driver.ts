import type { SqlDialect } from './sql-dialect.ts';

/** A value bound to a `?` placeholder. Lists are for {@link SqlDialect.inList}. */
export type SqlValue = string | number | null | readonly string[];

/** A result row: column name → value, as the driver returns it. */
export type SqlRow = Record<string, unknown>;

/** Runs statements inside one transaction. `sql` is already in the dialect's placeholder form. */
export interface SqlExecutor {
  query<R extends SqlRow = SqlRow>(sql: string, params: readonly SqlValue[]): Promise<R[]>;
}

/**
 * The tiny part of a SQL store that talks to one client library (node:sqlite, pg, PGlite).
 * Everything else — schema, migrations, queries, row mapping — is shared in `src/stores/sql/`.
 */
export interface SqlDriver {
  readonly dialect: SqlDialect;
  /**
   * Runs `work` in one transaction and commits, or rolls back when it throws. A `write`
   * transaction holds the write lock from its first statement on (SQLite `BEGIN IMMEDIATE`;
   * Postgres takes row locks with `FOR UPDATE`); a `read` transaction sees one consistent
   * snapshot.
   */
  transaction<T>(mode: 'read' | 'write', work: (sql: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * Runs one read-only statement on its own, without BEGIN and COMMIT: a single statement is
   * atomic and sees one snapshot. Optional; a server driver offers it because it saves two
   * round trips on every read a session makes per turn.
   */
  read?<R extends SqlRow = SqlRow>(sql: string, params: readonly SqlValue[]): Promise<R[]>;
  /** Releases what the driver opened itself. Idempotent. */
  close(): Promise<void>;
}
