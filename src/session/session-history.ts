import type { Message } from '../messages/types.ts';
import { chatfoldMetadata } from '../projection/chatfold-metadata.ts';
import { searchableText } from '../stores/shared/message-text.ts';
import { searchRows } from '../stores/shared/query-rows.ts';
import {
  hasSearch,
  hasSnapshotHistory,
  type Snapshot,
  type Store,
  type StoredMessage,
} from '../stores/types.ts';
import type { SessionProjection } from './session-projection.ts';
import { readSnapshotContent } from './snapshot-content.ts';
import type { CompactionRecord, HistoryEntry, HistoryQuery, HistoryStatus } from './types.ts';

/** Where a stored message stands in the current projection. */
function statusOf(
  row: StoredMessage,
  inProjection: ReadonlyMap<string, Message>,
  summarizedUpTo: number,
): HistoryStatus {
  const current = inProjection.get(row.message.id);
  if (current !== undefined) {
    const transform = chatfoldMetadata(current)?.transform;
    return transform === 'superseded' || transform === 'masked' || transform === 'clipped'
      ? transform
      : 'in-context';
  }
  return row.seq <= summarizedUpTo ? 'summarized' : 'omitted';
}

/**
 * The full history or a search over it (ST-3, FR-6.3), each row marked `in-context`,
 * `summarized`, `omitted` (left out by truncation), `superseded`, `masked` or `clipped`.
 */
export async function historyEntries(
  store: Store,
  sessionId: string,
  projection: SessionProjection,
  query: HistoryQuery,
): Promise<readonly HistoryEntry[]> {
  const text = query.text ?? '';
  const rows =
    text !== ''
      ? hasSearch(store)
        ? await store.search(sessionId, {
            text,
            ...(query.limit === undefined ? {} : { limit: query.limit }),
            ...(query.beforeSeq === undefined ? {} : { beforeSeq: query.beforeSeq }),
          })
        : await searchWithoutIndex(store, sessionId, { ...query, text })
      : [
          ...(await store.messages(sessionId, {
            order: 'desc',
            ...(query.limit === undefined ? {} : { limit: query.limit }),
            ...(query.beforeSeq === undefined ? {} : { beforeSeq: query.beforeSeq }),
          })),
        ].reverse();
  const inProjection = new Map(projection.messages.map((message) => [message.id, message]));
  const summarizedUpTo = projection.content?.summarySeqs?.last ?? 0;
  return rows.map((row) => ({ ...row, status: statusOf(row, inProjection, summarizedUpTo) }));
}

/** The compactions recorded in a session's snapshots, oldest first. */
export function compactionRecords(snapshots: readonly Snapshot[]): readonly CompactionRecord[] {
  return snapshots.map((snapshot) => {
    const content = readSnapshotContent(snapshot.content);
    const compaction = content?.compaction;
    const summary = content?.summary;
    const raw = snapshot.content as Record<string, unknown>;
    return {
      snapshotId: snapshot.id,
      createdAt: snapshot.createdAt,
      mode: compaction?.mode ?? (raw.compressionType as CompactionRecord['mode'] | undefined) ?? 'auto',
      tokensBefore:
        compaction?.tokensBefore ?? (typeof raw.originalTokenCount === 'number' ? raw.originalTokenCount : 0),
      tokensAfter: compaction?.tokensAfter ?? snapshot.tokenCount,
      messagesSummarized: summary?.covers.count ?? content?.messagesIncluded ?? 0,
      ...(compaction === undefined ? {} : { durationMs: compaction.durationMs }),
      ...(summary === undefined ? {} : { summarySource: summary.source }),
      ...(summary?.model === undefined ? {} : { summarizerModel: summary.model }),
    };
  });
}

/** A store without search: the same rule as the stores' own search, over every row in order. */
async function searchWithoutIndex(
  store: Store,
  sessionId: string,
  query: HistoryQuery & { readonly text: string },
): Promise<readonly StoredMessage[]> {
  const rows = await store.messages(sessionId);
  return searchRows(rows, (index) => searchableText((rows[index] as StoredMessage).message).toLowerCase(), {
    text: query.text,
    ...(query.limit === undefined ? {} : { limit: query.limit }),
    ...(query.beforeSeq === undefined ? {} : { beforeSeq: query.beforeSeq }),
  });
}

/** Every persisted compaction of a session (only the latest when the store keeps no history). */
export async function sessionCompactions(
  store: Store,
  sessionId: string,
): Promise<readonly CompactionRecord[]> {
  if (hasSnapshotHistory(store)) return compactionRecords(await store.snapshots(sessionId, 'summary'));
  const latest = await store.latestSnapshot(sessionId, 'summary');
  return compactionRecords(latest === undefined ? [] : [latest]);
}

/** How many compactions a session has persisted. */
export async function compactionCount(
  store: Store,
  sessionId: string,
  projection: SessionProjection,
): Promise<number> {
  if (hasSnapshotHistory(store)) return (await store.snapshots(sessionId, 'summary')).length;
  return projection.snapshot === undefined ? 0 : 1;
}
