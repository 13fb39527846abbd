import { DEFAULTS } from '../defaults.ts';
import type { CountAccuracy } from '../tokens/types.ts';
import type { Budget } from './budget.ts';
import { evaluateTriggers, type Triggers } from './triggers.ts';

/** The current summary, as `status()` shows it. */
export interface SummaryStatus {
  readonly messagesSummarized: number;
  readonly tokens: number;
  readonly createdAt: string;
}

/** Context status for gauges and `/context` (TRG-6). */
export interface ContextStatus {
  readonly tokens: number;
  readonly budget: number;
  readonly window: number;
  /** tokens / budget × 100, one decimal. */
  readonly percent: number;
  readonly messagesSinceCompaction: number;
  /** The smallest `messages` trigger, if any (seed 004's N). */
  readonly messagesTrigger?: number;
  /** The smallest `tokens` trigger, if any (seed 004's K). */
  readonly tokensTrigger?: number;
  /** Whether adding `nextTurnTokens` would fire a trigger. */
  readonly willCompactNextTurn: boolean;
  readonly summary?: SummaryStatus;
  readonly accuracy: CountAccuracy;
  readonly tokenizer: string;
}

/** Inputs of {@link contextStatus}. */
export interface ContextStatusInput {
  readonly tokens: number;
  readonly budget: Budget;
  readonly messagesSinceCompaction: number;
  readonly accuracy: CountAccuracy;
  readonly tokenizer: string;
  readonly triggers?: Triggers;
  readonly floor?: number;
  /** Expected size of the next turn (e.g. the user's draft). Default 0. */
  readonly nextTurnTokens?: number;
  readonly summary?: SummaryStatus;
}

/** Computes the data `status()` returns (TRG-6). Pure. */
export function contextStatus({
  tokens,
  budget,
  messagesSinceCompaction,
  accuracy,
  tokenizer,
  triggers = DEFAULTS.triggers,
  floor = DEFAULTS.floor,
  nextTurnTokens = 0,
  summary,
}: ContextStatusInput): ContextStatus {
  const smallest = (key: 'messages' | 'tokens'): number | undefined => {
    const values = triggers.map((group) => group[key]).filter((v): v is number => v !== undefined);
    return values.length ? Math.min(...values) : undefined;
  };
  const messagesTrigger = smallest('messages');
  const tokensTrigger = smallest('tokens');
  const next = evaluateTriggers(
    {
      tokens: tokens + nextTurnTokens,
      budget: budget.messages,
      messagesSinceCompaction: messagesSinceCompaction + 1,
    },
    { triggers, floor },
  );
  return {
    tokens,
    budget: budget.messages,
    window: budget.window,
    percent: Math.round((tokens / budget.messages) * 1000) / 10,
    messagesSinceCompaction,
    ...(messagesTrigger === undefined ? {} : { messagesTrigger }),
    ...(tokensTrigger === undefined ? {} : { tokensTrigger }),
    willCompactNextTurn: next.shouldCompact,
    ...(summary === undefined ? {} : { summary }),
    accuracy,
    tokenizer,
  };
}
