import type { CountAccuracy } from '../tokens/types.ts';
import type { ContextPolicy } from './context-policy.ts';
import { type CompactionDecision, type ContextMeasure, decide, type TriggerCondition } from './decide.ts';
import { isCompactionAllowed, type LoopGuardState } from './loop-guard.ts';

/** The current summary, as `status()` shows it. */
export interface SummaryStatus {
  readonly messagesSummarized: number;
  readonly tokens: number;
  readonly createdAt: string;
}

/** Context status for gauges and `/context` (TRG-6): the counts, the policy, each trigger. */
export interface ContextStatus {
  /** Tokens of the messages. */
  readonly tokens: number;
  /** Tokens of the whole prompt (messages + tool definitions): what the gauge shows. */
  readonly promptTokens: number;
  /** Tokens the messages may use (window − reserve − margin − tools). */
  readonly budget: number;
  readonly window: number;
  /** promptTokens / window × 100, one decimal: the number `fraction` triggers compare. */
  readonly percent: number;
  readonly messagesSinceCompaction: number;
  /** The smallest `messages` trigger, if any. */
  readonly messagesTrigger?: number;
  /** The smallest `tokens` trigger, if any. */
  readonly tokensTrigger?: number;
  /** Every trigger condition of the policy and where the prompt stands against it. */
  readonly conditions: readonly TriggerCondition[];
  /** The policy in force, whole (what the settings page and `/context` show). */
  readonly policy: ContextPolicy;
  /** Why the next automatic check would or would not compact. */
  readonly reason: string;
  /** A trigger holds but the floor keeps automatic compaction back. */
  readonly heldByFloor: boolean;
  /**
   * Set while a session waits after a compaction that did not help (saved under 5 %, or threw):
   * the number of messages in history at which automatic compaction may run again.
   */
  readonly autoCompactionResumesAt?: number;
  /** Whether adding `nextTurnTokens` (and one message) would compact. */
  readonly willCompactNextTurn: boolean;
  readonly summary?: SummaryStatus;
  readonly accuracy: CountAccuracy;
  readonly tokenizer: string;
}

/** Inputs of {@link contextStatus}. */
export interface ContextStatusInput {
  readonly measure: ContextMeasure;
  readonly policy: ContextPolicy;
  readonly tokenizer: string;
  /** Expected size of the next turn (e.g. the user's draft). Default 0. */
  readonly nextTurnTokens?: number;
  readonly summary?: SummaryStatus;
  /**
   * A session's loop guard (TRG-5) and the messages its history holds now: while it waits after
   * a compaction that did not help, automatic compaction is held back.
   */
  readonly guard?: { readonly state: LoopGuardState; readonly messages: number };
}

/** Computes the data `status()` returns (TRG-6) from the same `decide` every product uses. Pure. */
export function contextStatus({
  measure,
  policy,
  tokenizer,
  nextTurnTokens = 0,
  summary,
  guard,
}: ContextStatusInput): ContextStatus {
  const now: CompactionDecision = decide(measure, policy, 'auto');
  const next = decide(
    {
      ...measure,
      tokens: measure.tokens + nextTurnTokens,
      messages: measure.messages + 1,
      messagesSinceCompaction: measure.messagesSinceCompaction + 1,
    },
    policy,
    'auto',
  );
  const smallest = (key: 'messages' | 'tokens'): number | undefined => {
    const values = policy.triggers.map((group) => group[key]).filter((v): v is number => v !== undefined);
    return values.length ? Math.min(...values) : undefined;
  };
  // Whether the session's wait still holds `added` messages from now (a prompt that does not fit never waits).
  const waits = (added: number): boolean =>
    guard !== undefined && !isCompactionAllowed(guard.state, guard.messages + added);
  const resumesAt = guard !== undefined && waits(0) ? guard.state.resumeAt : undefined;
  const messagesTrigger = smallest('messages');
  const tokensTrigger = smallest('tokens');
  return {
    tokens: measure.tokens,
    promptTokens: now.promptTokens,
    budget: now.budget.messages,
    window: now.budget.window,
    percent: Math.round((now.promptTokens / now.budget.window) * 1000) / 10,
    messagesSinceCompaction: measure.messagesSinceCompaction,
    ...(messagesTrigger === undefined ? {} : { messagesTrigger }),
    ...(tokensTrigger === undefined ? {} : { tokensTrigger }),
    conditions: now.conditions,
    policy,
    reason:
      now.compact && !now.mustFit && resumesAt !== undefined
        ? `${now.reason}, but automatic compaction waits after one that did not help: it may run again at message ${resumesAt} (${resumesAt - (guard?.messages ?? 0)} to go)`
        : now.reason,
    heldByFloor: now.heldByFloor,
    willCompactNextTurn: next.compact && (next.mustFit || !waits(1)),
    ...(resumesAt === undefined ? {} : { autoCompactionResumesAt: resumesAt }),
    ...(summary === undefined ? {} : { summary }),
    accuracy: measure.accuracy,
    tokenizer,
  };
}
