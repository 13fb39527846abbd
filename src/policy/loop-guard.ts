/**
 * Loop protection (TRG-5): a compaction that gains less than {@link STALL_GAIN} is "stalled"
 * and auto-compaction waits for more messages; failures back off exponentially.
 * Plain data in, plain data out, so sessions can persist it.
 */

/** A compaction that saves less than this share of tokens is stalled. */
export const STALL_GAIN = 0.05;
/** Messages to wait after a stalled compaction before trying again. */
export const STALL_WAIT_MESSAGES = 10;
/** Messages to wait after the first failure; doubles per consecutive failure. */
export const FAILURE_BASE_WAIT_MESSAGES = 2;
/** Upper bound of the failure wait. */
export const FAILURE_MAX_WAIT_MESSAGES = 64;

export interface LoopGuardState {
  /** Message count at which auto-compaction may run again (0 = now). */
  readonly resumeAt: number;
  readonly consecutiveFailures: number;
  readonly consecutiveStalls: number;
}

export const INITIAL_LOOP_GUARD: LoopGuardState = {
  resumeAt: 0,
  consecutiveFailures: 0,
  consecutiveStalls: 0,
};

/** Whether auto-compaction is allowed at `messageCount` (manual and overflow always are). */
export function isCompactionAllowed(state: LoopGuardState, messageCount: number): boolean {
  return messageCount >= state.resumeAt;
}

/** The state after a compaction at `messageCount` that took tokens from `before` to `after`. */
export function recordCompaction(
  state: LoopGuardState,
  { messageCount, before, after }: { messageCount: number; before: number; after: number },
): LoopGuardState {
  const gain = before > 0 ? (before - after) / before : 0;
  if (gain < STALL_GAIN) {
    return {
      resumeAt: messageCount + STALL_WAIT_MESSAGES,
      consecutiveFailures: 0,
      consecutiveStalls: state.consecutiveStalls + 1,
    };
  }
  return INITIAL_LOOP_GUARD;
}

/**
 * The state after a compaction ran at `messageCount` (a session's and a stateless fitter's one
 * rule): a cancelled run changes nothing; one that compacted, or an automatic one that did not,
 * is recorded by how much it saved.
 */
export function guardAfterPlan(
  state: LoopGuardState,
  plan: {
    readonly cancelled: boolean;
    readonly compacted: boolean;
    readonly mode: string;
    readonly tokensBefore: number;
    readonly tokensAfter: number;
  },
  messageCount: number,
): LoopGuardState {
  if (plan.cancelled || !(plan.compacted || plan.mode === 'auto')) return state;
  return recordCompaction(state, { messageCount, before: plan.tokensBefore, after: plan.tokensAfter });
}

/** The state after a failed compaction at `messageCount`: exponential back-off in messages. */
export function recordFailure(state: LoopGuardState, messageCount: number): LoopGuardState {
  const failures = state.consecutiveFailures + 1;
  const wait = Math.min(FAILURE_BASE_WAIT_MESSAGES * 2 ** (failures - 1), FAILURE_MAX_WAIT_MESSAGES);
  return {
    resumeAt: messageCount + wait,
    consecutiveFailures: failures,
    consecutiveStalls: state.consecutiveStalls,
  };
}
