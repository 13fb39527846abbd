import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { checkPostgresOptions } from '../shared/store-options.ts';
import { SqlStore } from '../sql/sql-store.ts';
import type { FullStore, Store } from '../types.ts';
import { PgDriver, type PgPoolLike } from './pg-driver.ts';
import { type PGliteLike, PgliteDriver } from './pglite-driver.ts';
import { postgresDialect } from './postgres-dialect.ts';

/**
 * Where the Postgres store connects: a connection string (chatfold opens and closes a `pg`
 * pool), your own `pg` pool, or a PGlite instance (Postgres in process, no server). Pools and
 * PGlite instances you pass stay open after `close()`: they are yours.
 */
export type PostgresConnection =
  | { readonly connectionString: string /** Pool size (`pg` default 10). */; readonly max?: number }
  | { readonly pool: PgPoolLike }
  | { readonly pglite: PGliteLike };

/** Options of {@link postgresStore}. */
export interface PostgresStoreOptions {
  /** The schema holding chatfold's tables, created when missing. */
  readonly schema?: string;
  /** The clock for stored timestamps (tests). */
  readonly now?: () => Date;
}

/** Defaults of {@link PostgresStoreOptions}. */
export const POSTGRES_STORE_DEFAULTS = { schema: 'chatfold' } as const;

function checkSchema(schema: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_$]{0,62}$/.test(schema)) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `postgresStore schema: expected a plain identifier (letters, digits, _ and $, at most 63 characters, not starting with a digit), received ${JSON.stringify(schema)}`,
      { option: 'schema' },
    );
  }
  return schema;
}

/** The Postgres store (ST-1) over `pg` or PGlite. */
export class PostgresStore extends SqlStore {
  constructor(connection: PostgresConnection, options: PostgresStoreOptions = {}) {
    const dialect = postgresDialect(checkSchema(options.schema ?? POSTGRES_STORE_DEFAULTS.schema));
    super(
      'postgres',
      'pglite' in connection
        ? new PgliteDriver(dialect, connection.pglite)
        : new PgDriver(dialect, connection),
      options.now === undefined ? {} : { now: options.now },
    );
  }
}

/**
 * The shared store (ST-1): sessions in PostgreSQL, for several app instances serving the same
 * sessions. Appends and snapshot writes lock the session row (`SELECT … FOR UPDATE`), so
 * concurrent writers on any number of connections never duplicate a `seq`, and of two
 * concurrent compactions one writes and the other sees it (ST-5). Uses the optional peer
 * dependency `pg` (`E_MISSING_DEPENDENCY` when absent), or PGlite with no server at all.
 * Tables live in their own schema (default `chatfold`), created and migrated on first use.
 *
 * @param options where to connect (a connection string, a `pg` pool, or a PGlite instance)
 *   plus the schema name, in one object.
 * @throws ChatfoldError `E_INVALID_OPTIONS` for a bad option.
 * @returns a {@link Store}; `close()` ends the pool it opened.
 * @example
 * import { postgresStore } from 'chatfold/postgres';
 * const store = postgresStore({ connectionString: process.env.DATABASE_URL!, schema: 'chatfold' });
 * // no server: const store = postgresStore({ pglite: new PGlite('./chat-data') });
 */
export function postgresStore(
  options: PostgresConnection & PostgresStoreOptions,
  /** @deprecated put `schema` and `now` in the first object */
  legacy: PostgresStoreOptions = {},
): FullStore {
  const merged = checkPostgresOptions({ ...options, ...legacy });
  return new PostgresStore(merged, merged);
}
