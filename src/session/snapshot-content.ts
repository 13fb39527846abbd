import type { CompactionReport } from '../compaction/types.ts';
import type { JsonValue, Message } from '../messages/types.ts';
import type { SummarySnapshotContent } from '../stores/types.ts';
import { EMPTY_LEDGER } from '../summarize/ledger.ts';
import type { FactLedger } from '../summarize/types.ts';

/**
 * The `content_json` of a summary snapshot as a session writes it: the ST-2 fields plus
 * `projectionHead`, the projection's messages up to the cutoff exactly as they were sent
 * (system prompt, goal, the summary message, pinned messages). Resuming is then
 * `projectionHead` + the stored messages after the cutoff, and the prompt is byte-identical
 * to the one before the restart, so the provider's prompt cache still hits (RT-5, ST-6).
 */
export interface SessionSnapshotContent extends SummarySnapshotContent {
  readonly projectionHead: readonly Message[];
}

/** What a compaction removed from the verbatim projection, for the snapshot. */
export interface CompactionCut {
  /** `seq` of the newest message the snapshot stands for. */
  readonly cutoffSeq: number;
  readonly cutoffId: string;
  readonly firstId: string;
  /** Messages of the projection up to the cutoff, as sent. */
  readonly projectionHead: readonly Message[];
  readonly summaryTokens: number;
  readonly messagesIncluded: number;
}

/** Builds the snapshot content of a compaction (ST-2 field names). */
export function snapshotContent(
  report: CompactionReport,
  cut: CompactionCut,
  compressionTimestamp: string,
): SessionSnapshotContent {
  return {
    summaryText: report.summary?.text ?? '',
    messageRange: { firstMessageId: cut.firstId, lastMessageId: cut.cutoffId },
    compressionTimestamp,
    compressionType: report.trigger ?? 'auto',
    originalTokenCount: report.tokensBefore,
    summaryTokenCount: cut.summaryTokens,
    messagesIncluded: cut.messagesIncluded,
    ledger: report.summary?.ledger ?? EMPTY_LEDGER,
    projectionHead: cut.projectionHead,
  };
}

/** The snapshot content as JSON for the store (it is JSON already; this only widens the type). */
export function toJson(content: SessionSnapshotContent): JsonValue {
  return content as unknown as JsonValue;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isMessage = (value: unknown): value is Message =>
  isRecord(value) &&
  typeof value.id === 'string' &&
  typeof value.role === 'string' &&
  Array.isArray(value.parts) &&
  typeof value.createdAt === 'string';

/**
 * Reads snapshot content back. Snapshots written by other tools (or older versions) without
 * `projectionHead` still resume: the summary text becomes a user message.
 */
export function readSnapshotContent(
  content: JsonValue,
):
  | { head: readonly Message[]; messagesIncluded: number; summaryText: string; ledger: FactLedger }
  | undefined {
  if (!isRecord(content) || typeof content.summaryText !== 'string') return undefined;
  const messagesIncluded = typeof content.messagesIncluded === 'number' ? content.messagesIncluded : 0;
  const ledger = isRecord(content.ledger) ? (content.ledger as unknown as FactLedger) : EMPTY_LEDGER;
  const stored: unknown = content.projectionHead;
  if (Array.isArray(stored) && stored.every(isMessage)) {
    return { head: stored as Message[], messagesIncluded, summaryText: content.summaryText, ledger };
  }
  const timestamp =
    typeof content.compressionTimestamp === 'string'
      ? content.compressionTimestamp
      : new Date(0).toISOString();
  const summary: Message = {
    id: `cf_summary_resumed_${messagesIncluded}`,
    role: 'user',
    parts: [{ type: 'text', text: content.summaryText }],
    createdAt: timestamp,
    metadata: { chatfold: { transform: 'summary', summarized: messagesIncluded, source: 'custom' } },
  };
  return { head: [summary], messagesIncluded, summaryText: content.summaryText, ledger };
}
