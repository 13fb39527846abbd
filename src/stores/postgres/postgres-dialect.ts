import type { SqlDialect } from '../sql/sql-dialect.ts';

const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * Postgres (a server through `pg`, or PGlite): objects in one schema, `$n` placeholders, `json`
 * (not `jsonb`, which reorders keys and refuses `\u0000`), `timestamptz`, row locks.
 */
export function postgresDialect(schema: string): SqlDialect {
  return {
    name: 'postgres',
    table: (name) => `${quote(schema)}.${quote(name)}`,
    index: (name) => quote(name),
    placeholders: (sql) => {
      let n = 0;
      return sql.replaceAll('?', () => `$${++n}`);
    },
    types: {
      json: 'json',
      timestamp: 'timestamptz',
      autoId: 'bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY',
    },
    jsonText: (column) => `${column}::text`,
    contains: (column) => `strpos(${column}, ?) > 0`,
    inList: (column) => `${column} = ANY(?::text[])`,
    listParam: (values) => values,
    // The session row's lock serialises appends and snapshot writes of one session across connections.
    lockRows: ' FOR UPDATE',
    migrationPrelude: () => [
      { sql: 'SELECT pg_advisory_xact_lock(hashtext($1))', params: [`chatfold.migrate:${schema}`] },
      { sql: `CREATE SCHEMA IF NOT EXISTS ${quote(schema)}`, params: [] },
    ],
    tableExists: (name) => ({
      sql: 'SELECT to_regclass($1)::text AS found',
      params: [`${quote(schema)}.${quote(name)}`],
    }),
    maxParameters: 65_535,
    readTimestamp: (value) => (value instanceof Date ? value : new Date(String(value))).toISOString(),
    storableText: (text) => text.replaceAll('\u0000', '\ufffd'),
  };
}
