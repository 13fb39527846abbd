import type { JsonValue, Message } from '../../messages/types.ts';
import type { SessionInfo, Snapshot, SnapshotKind, StoredMessage } from '../types.ts';
import type { SqlDialect } from './sql-dialect.ts';

/** A `chat_messages` row as the shared queries select it. */
export interface MessageRow {
  readonly [column: string]: unknown;
  readonly seq: number;
  readonly content: string;
  readonly input_tokens: number | null;
  readonly output_tokens: number | null;
  readonly token_estimate: number | null;
  readonly tokenizer: string | null;
  readonly stored_at: unknown;
}

export interface SnapshotRow {
  readonly [column: string]: unknown;
  readonly id: number | string;
  readonly session_id: string;
  readonly kind: SnapshotKind;
  readonly content_json: string;
  readonly message_cutoff_id: string;
  readonly cutoff_seq: number;
  readonly token_count: number;
  readonly created_at: unknown;
}

export interface SessionRow {
  readonly [column: string]: unknown;
  readonly id: string;
  readonly created_at: unknown;
  readonly updated_at: unknown;
  readonly metadata: string | null;
  readonly message_count: number | string | null;
}

/** Optional token columns: absent when NULL (a count that may be unknown is never 0). */
export function tokenColumns(values: {
  readonly inputTokens?: number | null | undefined;
  readonly outputTokens?: number | null | undefined;
  readonly tokenEstimate?: number | null | undefined;
  readonly tokenizer?: string | null | undefined;
}): Partial<Pick<StoredMessage, 'inputTokens' | 'outputTokens' | 'tokenEstimate' | 'tokenizer'>> {
  return {
    ...(values.inputTokens == null ? {} : { inputTokens: Number(values.inputTokens) }),
    ...(values.outputTokens == null ? {} : { outputTokens: Number(values.outputTokens) }),
    ...(values.tokenEstimate == null ? {} : { tokenEstimate: Number(values.tokenEstimate) }),
    ...(values.tokenizer == null ? {} : { tokenizer: values.tokenizer }),
  };
}

export function toStoredMessage(sessionId: string, row: MessageRow, dialect: SqlDialect): StoredMessage {
  return {
    sessionId,
    seq: Number(row.seq),
    message: JSON.parse(row.content) as Message,
    ...tokenColumns({
      inputTokens: row.input_tokens,
      outputTokens: row.output_tokens,
      tokenEstimate: row.token_estimate,
      tokenizer: row.tokenizer,
    }),
    storedAt: dialect.readTimestamp(row.stored_at),
  };
}

export function toSnapshot(row: SnapshotRow, dialect: SqlDialect): Snapshot {
  return {
    id: String(row.id),
    sessionId: row.session_id,
    kind: row.kind,
    content: JSON.parse(row.content_json) as JsonValue,
    messageCutoffId: row.message_cutoff_id,
    cutoffSeq: Number(row.cutoff_seq),
    tokenCount: Number(row.token_count),
    createdAt: dialect.readTimestamp(row.created_at),
  };
}

export function toSessionInfo(row: SessionRow, dialect: SqlDialect): SessionInfo {
  return {
    id: row.id,
    createdAt: dialect.readTimestamp(row.created_at),
    updatedAt: dialect.readTimestamp(row.updated_at),
    messageCount: Number(row.message_count ?? 0),
    ...(row.metadata === null ? {} : { metadata: JSON.parse(row.metadata) as Record<string, JsonValue> }),
  };
}
