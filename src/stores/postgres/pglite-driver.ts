import { SerialQueue } from '../sql/serial-queue.ts';
import type { SqlDialect } from '../sql/sql-dialect.ts';
import type { SqlDriver, SqlExecutor, SqlRow, SqlValue } from '../sql/sql-driver.ts';

/** The part of a PGlite instance chatfold uses; `new PGlite()` from `@electric-sql/pglite` is one. */
export interface PGliteLike {
  transaction<T>(
    callback: (tx: { query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }> }) => Promise<T>,
  ): Promise<T>;
}

/**
 * The PGlite driver: Postgres compiled to WebAssembly, in process, no server. PGlite has one
 * connection, so transactions take turns; the instance belongs to the caller and stays open.
 */
export class PgliteDriver implements SqlDriver {
  readonly dialect: SqlDialect;
  readonly #pglite: PGliteLike;
  readonly #queue = new SerialQueue();

  constructor(dialect: SqlDialect, pglite: PGliteLike) {
    this.dialect = dialect;
    this.#pglite = pglite;
  }

  transaction<T>(_mode: 'read' | 'write', work: (sql: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#queue.run(() =>
      this.#pglite.transaction((tx) =>
        work({
          query: async <R extends SqlRow>(sql: string, params: readonly SqlValue[]): Promise<R[]> =>
            (await tx.query(sql, params as unknown[])).rows as R[],
        }),
      ),
    );
  }

  async close(): Promise<void> {
    await this.#queue.run(async () => undefined);
  }
}
