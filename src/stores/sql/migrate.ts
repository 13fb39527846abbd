import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { MIGRATIONS, type Migration } from './schema.ts';
import type { SqlDriver, SqlExecutor } from './sql-driver.ts';

async function currentVersion(sql: SqlExecutor, driver: SqlDriver): Promise<number> {
  const d = driver.dialect;
  const exists = d.tableExists('schema_migrations');
  const [found] = await sql.query<{ found: unknown }>(exists.sql, exists.params);
  if (found?.found === null || found?.found === undefined) return 0;
  const [row] = await sql.query<{ version: number | string | null }>(
    `SELECT max(version) AS version FROM ${d.table('schema_migrations')}`,
    [],
  );
  return Number(row?.version ?? 0);
}

function tooNew(version: number, latest: number): ChatfoldError {
  return new ChatfoldError(
    'E_STORE_SCHEMA',
    `the database has chatfold schema version ${version}, newer than the ${latest} this chatfold knows; upgrade chatfold (or open another database)`,
    { version, supported: latest },
  );
}

/**
 * Brings the database to the latest schema version at open: the missing migrations run in
 * one transaction and are recorded in `schema_migrations`. A database already migrated by a
 * newer chatfold is `E_STORE_SCHEMA`. Concurrent openers are serialised by the dialect's
 * prelude (a Postgres advisory lock; SQLite's write lock).
 *
 * @returns the schema version of the database.
 */
export async function migrate(
  driver: SqlDriver,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number> {
  const d = driver.dialect;
  const latest = migrations.at(-1)?.version ?? 0;
  // The common case, an up-to-date database, takes no write lock and needs no CREATE privilege.
  const seen = await driver.transaction('read', (sql) => currentVersion(sql, driver));
  if (seen > latest) throw tooNew(seen, latest);
  if (seen === latest) return seen;
  return driver.transaction('write', async (sql) => {
    for (const statement of d.migrationPrelude()) await sql.query(statement.sql, statement.params);
    await sql.query(
      `CREATE TABLE IF NOT EXISTS ${d.table('schema_migrations')} (
        version INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        applied_at ${d.types.timestamp} NOT NULL
      )`,
      [],
    );
    const current = await currentVersion(sql, driver);
    if (current > latest) throw tooNew(current, latest);
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      for (const statement of migration.statements(d)) await sql.query(statement, []);
      await sql.query(
        d.placeholders(
          `INSERT INTO ${d.table('schema_migrations')} (version, name, applied_at) VALUES (?, ?, ?)`,
        ),
        [migration.version, migration.name, new Date().toISOString()],
      );
    }
    return latest;
  });
}
