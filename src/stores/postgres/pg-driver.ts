import { importPeer } from '../../errors/import-peer.ts';
import type { SqlDialect } from '../sql/sql-dialect.ts';
import type { SqlDriver, SqlExecutor, SqlRow, SqlValue } from '../sql/sql-driver.ts';

/** The part of a `pg` client chatfold uses. */
export interface PgClientLike {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  release(error?: Error | boolean): void;
}

/** The part of a `pg` `Pool` chatfold uses; a `pg.Pool` is one. */
export interface PgPoolLike {
  connect(): Promise<PgClientLike>;
}

type PgModule = { Pool: new (config: { connectionString: string; max?: number }) => PgOwnedPool };
type PgOwnedPool = PgPoolLike & {
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
};

export type PgSource =
  | { readonly pool: PgPoolLike }
  | {
      readonly connectionString: string;
      readonly max?: number;
      /** How `pg` is loaded (tests). */
      readonly importPg?: () => Promise<unknown>;
    };

/** The `pg` driver: one pooled connection per transaction; the pool is closed only if it is ours. */
export class PgDriver implements SqlDriver {
  readonly dialect: SqlDialect;
  readonly #source: PgSource;
  #pool: Promise<PgPoolLike> | undefined;
  #owned: PgOwnedPool | undefined;

  constructor(dialect: SqlDialect, source: PgSource) {
    this.dialect = dialect;
    this.#source = source;
  }

  async transaction<T>(mode: 'read' | 'write', work: (sql: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await (await this.#connect()).connect();
    const executor: SqlExecutor = {
      query: async <R extends SqlRow>(sql: string, params: readonly SqlValue[]): Promise<R[]> =>
        (await client.query(sql, params as unknown[])).rows as R[],
    };
    let broken: Error | undefined;
    try {
      await client.query(mode === 'read' ? 'BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY' : 'BEGIN');
      const result = await work(executor);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollback) {
        // The connection is unusable: the pool must not hand it out again.
        broken = rollback instanceof Error ? rollback : new Error(String(rollback));
      }
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async read<R extends SqlRow>(sql: string, params: readonly SqlValue[]): Promise<R[]> {
    const client = await (await this.#connect()).connect();
    let broken: Error | undefined;
    try {
      return (await client.query(sql, params as unknown[])).rows as R[];
    } catch (error) {
      // A failed statement outside a transaction leaves the connection usable, unless it is gone.
      if ((error as { code?: unknown }).code === undefined)
        broken = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    const owned = this.#owned;
    this.#owned = undefined;
    this.#pool = Promise.reject(new Error('the store is closed'));
    this.#pool.catch(() => undefined);
    await owned?.end();
  }

  #connect(): Promise<PgPoolLike> {
    this.#pool ??= (async () => {
      const source = this.#source;
      if ('pool' in source) return source.pool;
      const pg = (await importPeer(
        'pg',
        source.importPg ?? (() => import('pg')),
        'postgresStore',
      )) as PgModule & {
        default?: PgModule;
      };
      const Pool = pg.default?.Pool ?? pg.Pool;
      const pool = new Pool({
        connectionString: source.connectionString,
        ...(source.max === undefined ? {} : { max: source.max }),
      });
      // An idle connection dropped by the server must not crash the process; the next query reports it.
      pool.on('error', () => undefined);
      this.#owned = pool;
      return pool;
    })();
    return this.#pool;
  }
}
