import { z } from 'zod';
import type { CompactionPlan } from '../compaction/types.ts';
import { parseVersionedRecord, type RecordFormat } from '../options/parse-record.ts';
import {
  guardAfterPlan,
  INITIAL_LOOP_GUARD,
  isCompactionAllowed,
  type LoopGuardState,
  recordFailure,
} from '../policy/loop-guard.ts';

/**
 * What one session remembers between compactions (HK-1, TRG-5, RT-4): the loop guard, how
 * many times in a row `beforeCompact` cancelled, and the summarizer back-off. Plain data,
 * owned by the session (never shared through module state) and persisted in the store's
 * settings so a restart remembers it.
 */
export interface SessionCompactionState {
  readonly guard: LoopGuardState;
  readonly consecutiveCancels: number;
  readonly summarizerFailures: number;
  /** Epoch milliseconds before which the LLM summarizer is not tried again. */
  readonly summarizerRetryAt: number;
}

export const INITIAL_SESSION_STATE: SessionCompactionState = {
  guard: INITIAL_LOOP_GUARD,
  consecutiveCancels: 0,
  summarizerFailures: 0,
  summarizerRetryAt: 0,
};

/** Whether an automatic compaction may run now (TRG-5); manual and overflow always may. */
export function mayAutoCompact(state: SessionCompactionState, messageCount: number): boolean {
  return isCompactionAllowed(state.guard, messageCount);
}

/** Whether the LLM summarizer may be called at `now` (RT-4 back-off). */
export function isSummarizerAvailable(state: SessionCompactionState, now: number): boolean {
  return now >= state.summarizerRetryAt;
}

/** The state after a plan ran; `backoff` says when the summarizer failed and for how long. */
export function stateAfterPlan(
  state: SessionCompactionState,
  plan: CompactionPlan,
  {
    messageCount,
    now,
    llmCalled,
    backoffMs,
  }: {
    messageCount: number;
    now: number;
    llmCalled: boolean;
    /** The policy's `onFailure.backoffMs`: first wait and upper bound, doubling per failure (RT-4). */
    backoffMs: { readonly base: number; readonly max: number };
  },
): { state: SessionCompactionState; backoff?: { failures: number; retryAfterMs: number } } {
  if (plan.cancelled) return { state: { ...state, consecutiveCancels: state.consecutiveCancels + 1 } };
  const next: SessionCompactionState = {
    ...state,
    consecutiveCancels: 0,
    guard: guardAfterPlan(state.guard, plan, messageCount),
  };
  if (!llmCalled) return { state: next };
  // A summary the model wrote (clipped or not) is a success; any other summarizer fallback is a failure.
  const failed = plan.fallbacks.some(
    (fallback) => fallback.source === 'summarizer' && fallback.fallback !== 'clipped',
  );
  if (!failed) {
    return plan.summary?.source === 'llm'
      ? { state: { ...next, summarizerFailures: 0, summarizerRetryAt: 0 } }
      : { state: next };
  }
  // Only automatic compaction backs off; a manual request always calls the model (and its failure is not counted).
  if (plan.mode === 'manual') return { state: next };
  const failures = state.summarizerFailures + 1;
  const retryAfterMs = Math.min(backoffMs.base * 2 ** (failures - 1), backoffMs.max);
  return {
    state: { ...next, summarizerFailures: failures, summarizerRetryAt: now + retryAfterMs },
    backoff: { failures, retryAfterMs },
  };
}

/** The state after a compaction threw (TRG-5: exponential back-off in messages). */
export function stateAfterFailure(
  state: SessionCompactionState,
  messageCount: number,
): SessionCompactionState {
  return { ...state, guard: recordFailure(state.guard, messageCount) };
}

/**
 * The format of a persisted {@link SessionCompactionState}: version 1. State written before
 * versions existed has none and reads as version 1; a newer version is `E_UNSUPPORTED_VERSION`.
 */
export const SESSION_STATE_FORMAT: RecordFormat = { record: 'session state', version: 1 };

const count = z.number().nonnegative().catch(0);

/**
 * {@link SessionCompactionState} as stored. A field that is missing or malformed starts fresh
 * (the guard as a whole, each counter on its own): a damaged state only forgets a back-off.
 */
export const sessionStateSchema = z.object({
  version: z.literal(1),
  guard: z
    .object({
      resumeAt: z.number().nonnegative(),
      consecutiveFailures: z.number().nonnegative(),
      consecutiveStalls: z.number().nonnegative(),
    })
    .catch(INITIAL_LOOP_GUARD),
  consecutiveCancels: count,
  summarizerFailures: count,
  /** Epoch milliseconds before which the LLM summarizer is not tried again. */
  summarizerRetryAt: count,
});

/**
 * Reads a persisted state back through {@link sessionStateSchema}; anything that is not a
 * state starts fresh.
 *
 * @throws ChatfoldError `E_UNSUPPORTED_VERSION` for a state written by a newer chatfold.
 */
export function readSessionState(value: unknown): SessionCompactionState {
  const result = parseVersionedRecord(value, sessionStateSchema, SESSION_STATE_FORMAT);
  if (!result.success) return INITIAL_SESSION_STATE;
  const { version: _, ...state } = result.data;
  return state;
}
