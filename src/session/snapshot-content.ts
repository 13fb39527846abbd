import { z } from 'zod';
import type { CompactionPlan, CompactionSummary } from '../compaction/types.ts';
import { messageValueSchema } from '../messages/message-value-schema.ts';
import type { JsonValue, Message } from '../messages/types.ts';
import { parseVersionedRecord, type RecordFormat } from '../options/parse-record.ts';
import {
  compactionSummarySchema,
  factLedgerSchema,
  nonNegativeInteger,
  openObject,
  readonlyArray,
  stageEffectSchema,
} from '../projection/plan-schema.ts';
import { EMPTY_LEDGER } from '../summarize/ledger.ts';
import type { FactLedger } from '../summarize/types.ts';

/**
 * The format of summary snapshot content: version 1. Content written before versions existed
 * has none and reads as version 1; a newer version is `E_UNSUPPORTED_VERSION`.
 */
export const SNAPSHOT_CONTENT_FORMAT: RecordFormat = { record: 'summary snapshot', version: 1 };

const mode = z.enum(['auto', 'manual', 'overflow']);
const tokens = z.number().nonnegative();
const seqRange = openObject({ first: nonNegativeInteger, last: nonNegativeInteger });
const compactionFacts = openObject({
  mode,
  tokensBefore: tokens,
  tokensAfter: tokens,
  durationMs: z.number().nonnegative(),
  stages: readonlyArray(stageEffectSchema),
  /** Messages in the history when it ran (what `messages` triggers count from on resume). */
  atSeq: nonNegativeInteger.exactOptional(),
});

/**
 * The `content_json` of a summary snapshot as a session writes it: the ST-2 fields
 * (`summaryText` … `ledger`), the structured summary and what the compaction did (for
 * `/compactions` and the web app), plus `projectionHead`, the projection's messages up to the
 * cutoff exactly as they were sent (system prompt, goal, the summary message, pinned
 * messages). Resuming is `projectionHead` + the stored messages after the cutoff: the prompt
 * is byte-identical to the one before the restart, so the provider's prompt cache still hits
 * (RT-5, ST-6). Keys a newer chatfold adds are kept.
 */
export const sessionSnapshotContentSchema = openObject({
  version: z.literal(1),
  summaryText: z.string(),
  messageRange: openObject({ firstMessageId: z.string(), lastMessageId: z.string() }),
  compressionTimestamp: z.string(),
  compressionType: mode,
  originalTokenCount: tokens,
  summaryTokenCount: tokens,
  messagesIncluded: nonNegativeInteger,
  ledger: factLedgerSchema,
  projectionHead: readonlyArray(messageValueSchema),
  /** `seq` of each head message (null for messages chatfold inserted). */
  headSeqs: readonlyArray(nonNegativeInteger.nullable()).exactOptional(),
  /** The summary as data (absent when the compaction only stubbed, masked or dropped). */
  summary: compactionSummarySchema.exactOptional(),
  /** `seq` range the summary covers, for marking history entries as summarized. */
  summarySeqs: seqRange.exactOptional(),
  compaction: compactionFacts,
});

/** {@link sessionSnapshotContentSchema} as a type. */
export type SessionSnapshotContent = z.output<typeof sessionSnapshotContentSchema>;

/**
 * Snapshot content of other tools (the ST-2 fields only) and of early versions: what resumes
 * from it is the summary text; fields it lacks or holds garbage in read as empty.
 */
const legacySnapshotContentSchema = z.object({
  summaryText: z.string(),
  messagesIncluded: nonNegativeInteger.catch(0),
  ledger: factLedgerSchema.catch(EMPTY_LEDGER),
  messageRange: z
    .object({ firstMessageId: z.string().catch(''), lastMessageId: z.string().catch('') })
    .catch({ firstMessageId: '', lastMessageId: '' }),
  compressionTimestamp: z.string().catch(new Date(0).toISOString()),
  headSeqs: readonlyArray(nonNegativeInteger.nullable()).optional().catch(undefined),
  summary: compactionSummarySchema.optional().catch(undefined),
  summarySeqs: seqRange.optional().catch(undefined),
  compaction: compactionFacts.optional().catch(undefined),
});

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
    version: 1,
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
 * Reads snapshot content back through its schema. Snapshots written by other tools (or 0.1)
 * without the structured fields still resume: the summary text becomes a user message that
 * carries the summary as data, so the next compaction merges it instead of summarizing it
 * again. Undefined for content that is no summary snapshot at all.
 *
 * @throws ChatfoldError `E_UNSUPPORTED_VERSION` for content written by a newer chatfold.
 */
export function readSnapshotContent(content: JsonValue): ReadSnapshot | undefined {
  const full = parseVersionedRecord(content, sessionSnapshotContentSchema, SNAPSHOT_CONTENT_FORMAT);
  const read = full.success ? full.data : legacySnapshotContentSchema.safeParse(content).data;
  if (read === undefined) return undefined;
  const { messagesIncluded, summaryText, ledger, headSeqs, summary, summarySeqs, compaction } = read;
  const extra = {
    ...(headSeqs === undefined ? {} : { headSeqs }),
    ...(summary === undefined ? {} : { summary }),
    ...(summarySeqs === undefined ? {} : { summarySeqs }),
    ...(compaction === undefined ? {} : { compaction }),
  };
  if (full.success)
    return { head: full.data.projectionHead, messagesIncluded, summaryText, ledger, ...extra };
  const covers = {
    firstId: read.messageRange.firstMessageId,
    lastId: read.messageRange.lastMessageId,
    count: messagesIncluded,
  };
  const resumed: Message = {
    id: `cf_summary_resumed_${messagesIncluded}`,
    role: 'user',
    parts: [{ type: 'text', text: summaryText }],
    createdAt: read.compressionTimestamp,
    metadata: {
      chatfold: {
        version: 1,
        transform: 'summary',
        text: summaryText,
        ledger: ledger as unknown as JsonValue,
        covers,
        source: 'custom',
      },
    },
  };
  return { head: [resumed], messagesIncluded, summaryText, ledger, ...extra };
}
