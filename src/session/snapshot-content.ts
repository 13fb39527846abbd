import type { CompactionMode, CompactionPlan, CompactionSummary } from '../compaction/types.ts';
import type { JsonValue, Message } from '../messages/types.ts';
import type { SummarySnapshotContent } from '../stores/types.ts';
import { EMPTY_LEDGER } from '../summarize/ledger.ts';
import type { FactLedger } from '../summarize/types.ts';

/**
 * The `content_json` of a summary snapshot as a session writes it: the ST-2 fields, the
 * structured summary and what the compaction did (for `/compactions` and the web app), plus
 * `projectionHead`, the projection's messages up to the cutoff exactly as they were sent
 * (system prompt, goal, the summary message, pinned messages). Resuming is `projectionHead` +
 * the stored messages after the cutoff: the prompt is byte-identical to the one before the
 * restart, so the provider's prompt cache still hits (RT-5, ST-6).
 */
export interface SessionSnapshotContent extends SummarySnapshotContent {
  readonly projectionHead: readonly Message[];
  /** `seq` of each head message (null for messages chatfold inserted). */
  readonly headSeqs?: readonly (number | null)[];
  /** The summary as data (absent when the compaction only stubbed, masked or dropped). */
  readonly summary?: Omit<CompactionSummary, 'messageId'> & { readonly messageId: string };
  /** `seq` range the summary covers, for marking history entries as summarized. */
  readonly summarySeqs?: { readonly first: number; readonly last: number };
  readonly compaction: {
    readonly mode: CompactionMode;
    readonly tokensBefore: number;
    readonly tokensAfter: number;
    readonly durationMs: number;
    readonly stages: CompactionPlan['stages'];
    /** Messages in the history when it ran (what `messages` triggers count from on resume). */
    readonly atSeq?: number;
  };
}

/** What the session knows about a compaction beyond its plan. */
export interface CompactionCut {
  /** `seq` of the newest message the snapshot stands for. */
  readonly cutoffSeq: number;
  readonly cutoffId: string;
  /** The oldest stored message the compaction changed or removed. */
  readonly firstId: string;
  /** Messages of the projection up to the cutoff, as sent. */
  readonly projectionHead: readonly Message[];
  readonly headSeqs: readonly (number | null)[];
  readonly summaryTokens: number;
  readonly summary?: CompactionSummary;
  readonly summarySeqs?: { readonly first: number; readonly last: number };
  readonly durationMs: number;
  readonly timestamp: string;
  readonly atSeq: number;
}

/** Builds the snapshot content of a compaction (ST-2 field names + the plan's data). */
export function snapshotContent(plan: CompactionPlan, cut: CompactionCut): SessionSnapshotContent {
  const summary = cut.summary;
  return {
    summaryText: summary?.text ?? '',
    messageRange: { firstMessageId: summary?.covers.firstId ?? cut.firstId, lastMessageId: cut.cutoffId },
    compressionTimestamp: cut.timestamp,
    compressionType: plan.mode,
    originalTokenCount: plan.tokensBefore,
    summaryTokenCount: cut.summaryTokens,
    messagesIncluded: summary?.covers.count ?? 0,
    ledger: summary?.ledger ?? EMPTY_LEDGER,
    projectionHead: cut.projectionHead,
    headSeqs: cut.headSeqs,
    ...(summary === undefined ? {} : { summary }),
    ...(cut.summarySeqs === undefined ? {} : { summarySeqs: cut.summarySeqs }),
    compaction: {
      mode: plan.mode,
      tokensBefore: plan.tokensBefore,
      tokensAfter: plan.tokensAfter,
      durationMs: cut.durationMs,
      stages: plan.stages,
      atSeq: cut.atSeq,
    },
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

/** A snapshot's content as the session reads it back. */
export interface ReadSnapshot {
  readonly head: readonly Message[];
  readonly messagesIncluded: number;
  readonly summaryText: string;
  readonly ledger: FactLedger;
  readonly headSeqs?: SessionSnapshotContent['headSeqs'];
  readonly summary?: SessionSnapshotContent['summary'];
  readonly summarySeqs?: SessionSnapshotContent['summarySeqs'];
  readonly compaction?: SessionSnapshotContent['compaction'];
}

/**
 * Reads snapshot content back. Snapshots written by other tools (or 0.1) without the
 * structured fields still resume: the summary text becomes a user message that carries the
 * summary as data, so the next compaction merges it instead of summarizing it again.
 */
export function readSnapshotContent(content: JsonValue): ReadSnapshot | undefined {
  if (!isRecord(content) || typeof content.summaryText !== 'string') return undefined;
  const messagesIncluded = typeof content.messagesIncluded === 'number' ? content.messagesIncluded : 0;
  const ledger = isRecord(content.ledger) ? (content.ledger as unknown as FactLedger) : EMPTY_LEDGER;
  const extra = {
    ...(Array.isArray(content.headSeqs) ? { headSeqs: content.headSeqs as (number | null)[] } : {}),
    ...(isRecord(content.summary)
      ? { summary: content.summary as unknown as NonNullable<ReadSnapshot['summary']> }
      : {}),
    ...(isRecord(content.summarySeqs)
      ? { summarySeqs: content.summarySeqs as unknown as NonNullable<ReadSnapshot['summarySeqs']> }
      : {}),
    ...(isRecord(content.compaction)
      ? { compaction: content.compaction as unknown as NonNullable<ReadSnapshot['compaction']> }
      : {}),
  };
  const stored: unknown = content.projectionHead;
  if (Array.isArray(stored) && stored.every(isMessage)) {
    return { head: stored, messagesIncluded, summaryText: content.summaryText, ledger, ...extra };
  }
  const range = isRecord(content.messageRange) ? content.messageRange : {};
  const timestamp =
    typeof content.compressionTimestamp === 'string'
      ? content.compressionTimestamp
      : new Date(0).toISOString();
  const covers = {
    firstId: typeof range.firstMessageId === 'string' ? range.firstMessageId : '',
    lastId: typeof range.lastMessageId === 'string' ? range.lastMessageId : '',
    count: messagesIncluded,
  };
  const summary: Message = {
    id: `cf_summary_resumed_${messagesIncluded}`,
    role: 'user',
    parts: [{ type: 'text', text: content.summaryText }],
    createdAt: timestamp,
    metadata: {
      chatfold: {
        transform: 'summary',
        text: content.summaryText,
        ledger: ledger as unknown as JsonValue,
        covers,
        source: 'custom',
      },
    },
  };
  return { head: [summary], messagesIncluded, summaryText: content.summaryText, ledger, ...extra };
}
