import { isDeletedSession, sessionTitle } from '../../agent/session-metadata.ts';
import type { JsonValue } from '../../messages/types.ts';
import type { CompactionRecord, HistoryEntry, HistoryStatus } from '../../session/types.ts';
import type { SessionInfo, Snapshot } from '../../stores/types.ts';
import type {
  MessageState,
  StubKind,
  WireCompaction,
  WireMessage,
  WireSession,
  WireSummary,
} from '../api-types.ts';
import { sessionAutoCompaction } from './agent-pool.ts';
import { HttpError } from './http-error.ts';
import type { WebStore } from './web-store.ts';
import { toWireMessage } from './wire-message.ts';

/** Title of a session that has none yet. */
export const UNTITLED = 'New chat';

const isRecord = (value: unknown): value is Record<string, JsonValue> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A session row as the list shows it. */
export function toWireSession(info: SessionInfo): WireSession {
  return {
    id: info.id,
    title: sessionTitle(info) ?? UNTITLED,
    createdAt: info.createdAt,
    updatedAt: info.updatedAt,
    messageCount: info.messageCount,
    autoCompaction: sessionAutoCompaction(info.metadata),
  };
}

/** The session, or 404 `E_SESSION_NOT_FOUND` (also for a deleted one). */
export async function requireSession(store: WebStore, sessionId: string): Promise<SessionInfo> {
  const info = await store.getSession(sessionId);
  if (info === undefined || isDeletedSession(info)) {
    throw new HttpError(
      404,
      'E_SESSION_NOT_FOUND',
      `no session ${JSON.stringify(sessionId)}; create one with POST /api/sessions`,
    );
  }
  return info;
}

/** The summary a snapshot holds (ST-2 fields `summaryText`, `messagesIncluded`, `compressionType`). */
export function toWireSummary(snapshot: Snapshot): WireSummary | undefined {
  const content = snapshot.content;
  if (!isRecord(content) || typeof content.summaryText !== 'string' || content.summaryText === '') {
    return undefined;
  }
  const covered = content.messagesIncluded;
  const type = content.compressionType;
  return {
    text: content.summaryText,
    messagesCovered: typeof covered === 'number' ? covered : 0,
    tokens: snapshot.tokenCount,
    createdAt: snapshot.createdAt,
    mode: type === 'manual' || type === 'overflow' ? type : 'auto',
  };
}

/** One compaction for the list (WEB-6): mode, time, tokens before → after, duration, summarizer model. */
export function toWireCompaction(record: CompactionRecord): WireCompaction {
  return {
    id: record.snapshotId,
    mode: record.mode,
    createdAt: record.createdAt,
    tokensBefore: record.tokensBefore,
    tokensAfter: record.tokensAfter,
    ...(record.durationMs === undefined ? {} : { durationMs: record.durationMs }),
    ...(record.summarizerModel === undefined ? {} : { summarizerModel: record.summarizerModel }),
    ...(record.summarySource === undefined ? {} : { summarySource: record.summarySource }),
    messagesCovered: record.messagesSummarized,
  };
}

const STUBS: Partial<Record<HistoryStatus, StubKind>> = {
  superseded: 'superseded',
  masked: 'masked',
  clipped: 'clipped',
};

/** The session's place of a message as the browser names it (in context / summarized / stubbed / omitted). */
export function messageState(status: HistoryStatus): { state: MessageState; stub?: StubKind } {
  const stub = STUBS[status];
  if (stub !== undefined) return { state: 'stubbed', stub };
  return { state: status === 'summarized' || status === 'omitted' ? status : 'in-context' };
}

/** History entries as the browser shows them. */
export function toWireMessages(entries: readonly HistoryEntry[]): WireMessage[] {
  return entries.map((entry) => {
    const { state, stub } = messageState(entry.status);
    return toWireMessage(entry.message, entry.seq, state, stub);
  });
}
