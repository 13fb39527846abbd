import type { SqlDialect } from './sql-dialect.ts';

/** Columns of `chat_messages` written by one append, in the order of {@link SqlQueries.insertMessages}. */
export const MESSAGE_INSERT_COLUMNS = [
  'session_id',
  'seq',
  'message_id',
  'role',
  'content',
  'search_text',
  'fingerprint',
  'input_tokens',
  'output_tokens',
  'token_estimate',
  'tokenizer',
  'stored_at',
] as const;

/**
 * Every statement of the SQL stores, written once with `?` placeholders and rendered for one
 * dialect when the store opens. No statement deletes a row; the only UPDATE of
 * `chat_messages` is `recordUsage` (ST-3).
 */
export function buildQueries(d: SqlDialect) {
  const sessions = d.table('sessions');
  const messages = d.table('chat_messages');
  const snapshots = d.table('session_snapshots');
  const settings = d.table('settings');
  const leases = d.table('session_leases');
  const q = (sql: string): string => d.placeholders(sql);
  const messageColumns = `seq, ${d.jsonText('content')} AS content, input_tokens, output_tokens, token_estimate, tokenizer, stored_at`;
  const snapshotColumns = `id, session_id, kind, ${d.jsonText('content_json')} AS content_json, message_cutoff_id, cutoff_seq, token_count, created_at`;
  const sessionColumns = `s.id, s.created_at, s.updated_at, ${d.jsonText('s.metadata')} AS metadata,
    (SELECT max(m.seq) FROM ${messages} AS m WHERE m.session_id = s.id) AS message_count`;
  const messageRange = (order: 'ASC' | 'DESC', limited: boolean): string =>
    q(
      `SELECT ${messageColumns} FROM ${messages} WHERE session_id = ? AND seq > ? AND seq < ? ORDER BY seq ${order}${limited ? ' LIMIT ?' : ''}`,
    );
  const insertCache = new Map<number, string>();
  return {
    insertSession: q(
      `INSERT INTO ${sessions} (id, created_at, updated_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING`,
    ),
    lockSession: q(`SELECT ${d.jsonText('metadata')} AS metadata FROM ${sessions} WHERE id = ?${d.lockRows}`),
    updateMetadata: q(`UPDATE ${sessions} SET metadata = ?, updated_at = ? WHERE id = ?`),
    touchSession: q(`UPDATE ${sessions} SET updated_at = ? WHERE id = ?`),
    getSession: q(`SELECT ${sessionColumns} FROM ${sessions} AS s WHERE s.id = ?`),
    listSessions: q(`SELECT ${sessionColumns} FROM ${sessions} AS s ORDER BY s.updated_at DESC, s.id`),
    listSessionsLimited: q(
      `SELECT ${sessionColumns} FROM ${sessions} AS s ORDER BY s.updated_at DESC, s.id LIMIT ?`,
    ),
    existingMessages: q(
      `SELECT message_id, fingerprint, ${messageColumns} FROM ${messages} WHERE session_id = ? AND ${d.inList('message_id')}`,
    ),
    maxSeq: q(`SELECT max(seq) AS seq FROM ${messages} WHERE session_id = ?`),
    /** A multi-row INSERT of `count` messages. */
    insertMessages(count: number): string {
      let sql = insertCache.get(count);
      if (sql === undefined) {
        const row = `(${MESSAGE_INSERT_COLUMNS.map(() => '?').join(', ')})`;
        sql = q(
          `INSERT INTO ${messages} (${MESSAGE_INSERT_COLUMNS.join(', ')}) VALUES ${Array.from({ length: count }, () => row).join(', ')}`,
        );
        insertCache.set(count, sql);
      }
      return sql;
    },
    messagesAsc: messageRange('ASC', false),
    messagesAscLimited: messageRange('ASC', true),
    messagesDescLimited: messageRange('DESC', true),
    /**
     * Takes a session's lease for a holder until a time: a new row, the holder's own lease
     * (renewed), an expired one or the one of a holder judged dead (taken over); returns no
     * row when another holder's is live. A null "dead holder" matches nothing.
     */
    acquireLease: q(
      `INSERT INTO ${leases} AS l (session_id, holder, expires_at) VALUES (?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at WHERE l.holder = excluded.holder OR l.expires_at <= ? OR l.holder = ? RETURNING holder`,
    ),
    releaseLease: q(`DELETE FROM ${leases} WHERE session_id = ? AND holder = ?`),
    currentLease: q(`SELECT holder, expires_at FROM ${leases} WHERE session_id = ?`),
    recordUsage: q(
      `UPDATE ${messages} SET input_tokens = coalesce(?, input_tokens), output_tokens = coalesce(?, output_tokens) WHERE session_id = ? AND message_id = ?`,
    ),
    latestSnapshot: q(
      `SELECT ${snapshotColumns} FROM ${snapshots} WHERE session_id = ? AND kind = ? ORDER BY id DESC LIMIT 1`,
    ),
    /** An index-only probe: a session checks every turn whether another writer compacted. */
    latestSnapshotId: q(
      `SELECT id FROM ${snapshots} WHERE session_id = ? AND kind = ? ORDER BY id DESC LIMIT 1`,
    ),
    snapshotById: q(`SELECT ${snapshotColumns} FROM ${snapshots} WHERE id = ?`),
    snapshots: q(`SELECT ${snapshotColumns} FROM ${snapshots} WHERE session_id = ? ORDER BY id`),
    snapshotsOfKind: q(
      `SELECT ${snapshotColumns} FROM ${snapshots} WHERE session_id = ? AND kind = ? ORDER BY id`,
    ),
    insertSnapshot: q(
      `INSERT INTO ${snapshots} (session_id, kind, content_json, message_cutoff_id, cutoff_seq, token_count, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    ),
    search: q(
      `SELECT ${messageColumns} FROM ${messages} WHERE session_id = ? AND seq < ? AND ${d.contains('search_text')} ORDER BY seq DESC LIMIT ?`,
    ),
    getSetting: q(`SELECT ${d.jsonText('"value"')} AS value FROM ${settings} WHERE "key" = ?`),
    setSetting: q(
      `INSERT INTO ${settings} ("key", "value") VALUES (?, ?) ON CONFLICT ("key") DO UPDATE SET "value" = excluded."value"`,
    ),
  };
}

export type SqlQueries = ReturnType<typeof buildQueries>;
