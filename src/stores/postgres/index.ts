export type { PgClientLike, PgPoolLike } from './pg-driver.ts';
export type { PGliteLike } from './pglite-driver.ts';
export {
  POSTGRES_STORE_DEFAULTS,
  type PostgresConnection,
  PostgresStore,
  type PostgresStoreOptions,
  postgresStore,
} from './postgres-store.ts';
