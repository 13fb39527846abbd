import type { SqlDialect } from './sql-dialect.ts';

/** One schema change. Versions only grow; a released migration is never edited (ST-2). */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly statements: (dialect: SqlDialect) => readonly string[];
}

/**
 * The schema of ST-2 (seed 001 §4). `chat_messages` is append-only: the only statement that
 * changes a row sets its usage columns (`recordUsage`). `content` and `content_json` hold the
 * exact JSON text written, so a message reads back byte-identical.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions, chat_messages, session_snapshots, settings',
    statements: (d) => [
      `CREATE TABLE ${d.table('sessions')} (
        id TEXT PRIMARY KEY,
        created_at ${d.types.timestamp} NOT NULL,
        updated_at ${d.types.timestamp} NOT NULL,
        metadata ${d.types.json}
      )`,
      `CREATE INDEX ${d.index('sessions_updated_at')} ON ${d.table('sessions')} (updated_at)`,
      `CREATE TABLE ${d.table('chat_messages')} (
        session_id TEXT NOT NULL REFERENCES ${d.table('sessions')} (id),
        seq INTEGER NOT NULL CHECK (seq > 0),
        message_id TEXT NOT NULL,
        role TEXT NOT NULL,
        content ${d.types.json} NOT NULL,
        search_text TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        input_tokens INTEGER,
        output_tokens INTEGER,
        token_estimate INTEGER,
        tokenizer TEXT,
        stored_at ${d.types.timestamp} NOT NULL,
        PRIMARY KEY (session_id, seq),
        UNIQUE (session_id, message_id)
      )`,
      `CREATE TABLE ${d.table('session_snapshots')} (
        id ${d.types.autoId},
        session_id TEXT NOT NULL REFERENCES ${d.table('sessions')} (id),
        kind TEXT NOT NULL CHECK (kind IN ('summary', 'title', 'memory')),
        content_json ${d.types.json} NOT NULL,
        message_cutoff_id TEXT NOT NULL,
        cutoff_seq INTEGER NOT NULL,
        token_count INTEGER NOT NULL,
        created_at ${d.types.timestamp} NOT NULL
      )`,
      // "Latest summary of a session" is one index probe (ST-2).
      `CREATE INDEX ${d.index('session_snapshots_latest')} ON ${d.table('session_snapshots')} (session_id, kind, id)`,
      `CREATE TABLE ${d.table('settings')} ("key" TEXT PRIMARY KEY, "value" ${d.types.json} NOT NULL)`,
    ],
  },
  {
    version: 2,
    name: 'session_leases',
    // One turn at a time per session across processes (issue 24 §5): who holds a session's
    // turn and until when (milliseconds since 1970), renewed while the turn runs.
    statements: (d) => [
      `CREATE TABLE ${d.table('session_leases')} (
        session_id TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        expires_at BIGINT NOT NULL
      )`,
    ],
  },
];

/** The schema version this code writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0;
