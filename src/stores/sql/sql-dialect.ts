import type { SqlValue } from './sql-driver.ts';

/**
 * What differs between SQLite and Postgres in chatfold's SQL: names, column types,
 * placeholders, JSON reads, list parameters and row locks. Upserts (`ON CONFLICT … DO`) and
 * `RETURNING` are the same in both and live in the shared queries.
 */
export interface SqlDialect {
  readonly name: 'sqlite' | 'postgres';
  /** A table (or index) name as SQL, schema-qualified and quoted where the database has schemas. */
  table(name: string): string;
  /** An unqualified, quoted name for an index created on a table of {@link table}. */
  index(name: string): string;
  /** Rewrites the `?` placeholders of shared SQL into the database's own (`$1`, `$2`, … in Postgres). */
  placeholders(sql: string): string;
  readonly types: {
    /** JSON kept as its exact text (key order, `\u0000` and lone surrogates survive). */
    readonly json: string;
    readonly timestamp: string;
    /** An auto-incrementing integer primary key, as a whole column definition after the name. */
    readonly autoId: string;
  };
  /** Reads a JSON column as text, so the shared code parses it (drivers would parse it differently). */
  jsonText(column: string): string;
  /** Case-sensitive substring test of a text column against a parameter. */
  contains(column: string): string;
  /** `column` is one of the strings of one list parameter (see {@link listParam}). */
  inList(column: string): string;
  listParam(values: readonly string[]): SqlValue;
  /** Appended to the select of a session row in write transactions: its row lock, or '' where the transaction holds the database's write lock already. */
  readonly lockRows: string;
  /** Statements run first in the migration transaction: serialise concurrent openers, create the schema. */
  migrationPrelude(): readonly { readonly sql: string; readonly params: readonly SqlValue[] }[];
  /** A query with one row whose `found` is non-null when the table exists. */
  tableExists(name: string): { readonly sql: string; readonly params: readonly SqlValue[] };
  /** Most parameters one statement may bind. */
  readonly maxParameters: number;
  /** A timestamp as the driver returns it → ISO 8601. */
  readTimestamp(value: unknown): string;
  /** Text as the database can store it (Postgres text cannot hold U+0000). */
  storableText(text: string): string;
}
