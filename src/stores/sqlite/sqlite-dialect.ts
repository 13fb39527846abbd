import type { SqlDialect } from '../sql/sql-dialect.ts';

/** SQLite: bare names, `?` placeholders, JSON as TEXT, ISO timestamps as TEXT. */
export const sqliteDialect: SqlDialect = {
  name: 'sqlite',
  table: (name) => name,
  index: (name) => name,
  placeholders: (sql) => sql,
  types: {
    json: 'TEXT',
    timestamp: 'TEXT',
    autoId: 'INTEGER PRIMARY KEY AUTOINCREMENT',
  },
  jsonText: (column) => column,
  contains: (column) => `instr(${column}, ?) > 0`,
  inList: (column) => `${column} IN (SELECT value FROM json_each(?))`,
  listParam: (values) => JSON.stringify(values),
  // BEGIN IMMEDIATE already holds the database's write lock.
  lockRows: '',
  migrationPrelude: () => [],
  tableExists: (name) => ({
    sql: `SELECT (SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?) AS found`,
    params: [name],
  }),
  maxParameters: 32_766,
  readTimestamp: (value) => String(value),
  // instr() stops at U+0000 in some builds: search a stand-in instead.
  storableText: (text) => text.replaceAll('\u0000', '\ufffd'),
};
