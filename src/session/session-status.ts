import type { ContextPolicy } from '../policy/context-policy.ts';
import { type ContextMeasure, policyBudget } from '../policy/decide.ts';
import type { LoopGuardState } from '../policy/loop-guard.ts';
import { contextStatus } from '../policy/status.ts';
import { chatfoldMetadata } from '../projection/chatfold-metadata.ts';
import type { UnderReport } from '../tokens/calibrated-counter.ts';
import type { TokenCounter } from '../tokens/types.ts';
import type { PendingPlan } from './pending-plan.ts';
import type { SessionProjection } from './session-projection.ts';
import type { ContextBreakdown, SessionStatus } from './types.ts';

const plural = (n: number, word: string): string =>
  `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

/** What `session.status()` returns (TRG-6, ST-6, WEB-2): the gauge, the breakdown, the counts. */
export function sessionStatus({
  sessionId,
  projection,
  counter,
  measure,
  policy,
  compactions,
  pending,
  guard,
}: {
  sessionId: string;
  projection: SessionProjection;
  counter: TokenCounter & { readonly underReport?: UnderReport | undefined };
  measure: ContextMeasure;
  policy: ContextPolicy;
  compactions: number;
  pending?: PendingPlan | undefined;
  /** The session's loop guard: whether automatic compaction waits after one that did not help. */
  guard?: LoopGuardState | undefined;
}): SessionStatus {
  const messages = projection.messages;
  const count = counter.count(messages);
  const budget = policyBudget(measure, policy);
  const parts = { systemPrompt: 0, summary: 0, messages: count.overhead };
  messages.forEach((message, index) => {
    const tokens = count.perMessage[index] ?? 0;
    const record = chatfoldMetadata(message);
    if (record?.transform === 'summary') parts.summary += tokens;
    else if (message.role === 'system' && record === undefined) parts.systemPrompt += tokens;
    else parts.messages += tokens;
  });
  const used = parts.systemPrompt + parts.summary + parts.messages + budget.toolTokens;
  const breakdown: ContextBreakdown = {
    ...parts,
    tools: budget.toolTokens,
    reservedOutput: budget.responseReserve,
    safetyMargin: budget.safetyMargin,
    free: Math.max(0, budget.window - used - budget.responseReserve - budget.safetyMargin),
  };
  const content = projection.content;
  const summarized = content?.summary?.covers.count ?? content?.messagesIncluded ?? 0;
  const snapshot = projection.snapshot;
  const base = contextStatus({
    measure: { ...measure, tokens: count.total },
    policy,
    tokenizer: counter.tokenizer,
    ...(guard === undefined ? {} : { guard: { state: guard, messages: projection.lastSeq } }),
    ...(snapshot === undefined || summarized === 0
      ? {}
      : {
          summary: {
            messagesSummarized: summarized,
            tokens: snapshot.tokenCount,
            createdAt: snapshot.createdAt,
          },
        }),
  });
  return {
    ...base,
    sessionId,
    messagesInHistory: projection.lastSeq,
    messagesSummarized: summarized,
    text: `${plural(projection.lastSeq, 'message')} in history (${summarized.toLocaleString('en-US')} summarized)`,
    compactions,
    breakdown,
    ...(counter.underReport === undefined ? {} : { underReport: counter.underReport }),
    ...(pending === undefined
      ? {}
      : {
          pendingSummary: {
            createdAt: pending.createdAt,
            messagesSummarized: pending.plan.summary?.covers.count ?? 0,
            tokensAfter: pending.plan.tokensAfter,
          },
        }),
  };
}
