export { SQLITE_STORE_DEFAULTS, SqliteStore, type SqliteStoreOptions, sqliteStore } from './sqlite-store.ts';
