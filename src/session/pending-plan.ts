import { z } from 'zod';
import type { CompactionPlan } from '../compaction/types.ts';
import type { JsonValue } from '../messages/types.ts';
import { parseVersionedRecord, type RecordFormat } from '../options/parse-record.ts';
import { compactionPlanSchema } from '../projection/plan-schema.ts';

/** Settings key of a session's pending background plan (issue 13). */
export const pendingPlanKey = (sessionId: string): string => `chatfold.pending-plan:${sessionId}`;

/**
 * The format of a stored pending plan: version 1 (the plan inside has its own version, which
 * `applyCompactionPlan` checks). A newer version is `E_UNSUPPORTED_VERSION`.
 */
export const PENDING_PLAN_FORMAT: RecordFormat = { record: 'pending plan', version: 1 };

/**
 * A plan computed off the request path (with the LLM summary), waiting for the real trigger.
 * It applies while the session still starts from `baseSnapshotId` (the log is append-only, so
 * the plan's input is then a prefix of the projection).
 */
export const pendingPlanSchema = z.object({
  version: z.literal(1),
  /** The snapshot the projection started from when the plan was made (null: none yet). */
  baseSnapshotId: z.string().nullable(),
  createdAt: z.string(),
  plan: compactionPlanSchema,
});

/** {@link pendingPlanSchema} as a type, its plan a `CompactionPlan`. */
export type PendingPlan = Readonly<Omit<z.output<typeof pendingPlanSchema>, 'plan'>> & {
  readonly plan: CompactionPlan;
};

/**
 * Reads a stored pending plan through {@link pendingPlanSchema}; anything else (cleared,
 * malformed) is none.
 *
 * @throws ChatfoldError `E_UNSUPPORTED_VERSION` for a pending plan written by a newer chatfold.
 */
export function readPendingPlan(value: JsonValue | undefined): PendingPlan | undefined {
  if (value === undefined || value === null) return undefined;
  const result = parseVersionedRecord(value, pendingPlanSchema, PENDING_PLAN_FORMAT);
  return result.success ? (result.data as PendingPlan) : undefined;
}

/** The JSON a pending plan is stored as. */
export function pendingPlanJson(pending: PendingPlan): JsonValue {
  return JSON.parse(JSON.stringify(pending)) as JsonValue;
}
