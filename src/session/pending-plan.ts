import type { CompactionPlan } from '../compaction/types.ts';
import type { JsonValue } from '../messages/types.ts';

/** Settings key of a session's pending background plan (issue 13). */
export const pendingPlanKey = (sessionId: string): string => `chatfold.pending-plan:${sessionId}`;

/**
 * A plan computed off the request path (with the LLM summary), waiting for the real trigger.
 * It applies while the session still starts from `baseSnapshotId` (the log is append-only, so
 * the plan's input is then a prefix of the projection).
 */
export interface PendingPlan {
  readonly version: 1;
  readonly baseSnapshotId: string | null;
  readonly createdAt: string;
  readonly plan: CompactionPlan;
}

/** Reads a stored pending plan; anything else (cleared, malformed, another version) is none. */
export function readPendingPlan(value: JsonValue | undefined): PendingPlan | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if (record.version !== 1 || typeof record.createdAt !== 'string') return undefined;
  if (record.baseSnapshotId !== null && typeof record.baseSnapshotId !== 'string') return undefined;
  const plan = record.plan as CompactionPlan | undefined;
  if (typeof plan !== 'object' || plan === null || plan.version !== 1 || !Array.isArray(plan.dropped))
    return undefined;
  return value as unknown as PendingPlan;
}

/** The JSON a pending plan is stored as. */
export function pendingPlanJson(pending: PendingPlan): JsonValue {
  return JSON.parse(JSON.stringify(pending)) as JsonValue;
}
