import type { CompactionReport } from '../compaction/types.ts';
import { readMessageInputs } from '../messages/normalize.ts';
import type { Message, MessageInput, Provider, ToolDefinition } from '../messages/types.ts';
import type { CompactionDecision, ContextMeasure } from '../policy/decide.ts';
import { windowAfterOverflow } from '../policy/overflow-window.ts';
import type { CalibratedCounter } from '../tokens/calibrated-counter.ts';
import type { TokenCounter } from '../tokens/types.ts';
import type { SessionConfig } from './session.ts';
import type { SessionProjection } from './session-projection.ts';

/**
 * Ids derived from content would make two identical turns ("yes") one row: a session gives
 * every message without an id of its own (or with one a converter derived) its own.
 */
export function withSessionIds(inputs: readonly MessageInput[]): MessageInput[] {
  // Each message read once, into a plain copy (issue 24 §2): the id decided here is the one stored.
  return readMessageInputs(inputs, 'append').map(({ message, derivedId }) =>
    typeof message === 'object' &&
    message !== null &&
    ((message as MessageInput).id === undefined || derivedId)
      ? { ...(message as MessageInput), id: `msg_${globalThis.crypto.randomUUID().replaceAll('-', '')}` }
      : (message as MessageInput),
  );
}

/** The report of a `prepare()` that did not compact, and why. */
export function idleReport({
  reason,
  decision,
  tokens,
  messages,
  counter,
  provider,
}: {
  reason: string;
  decision: CompactionDecision;
  tokens: number;
  messages: number;
  counter: TokenCounter;
  provider?: Provider;
}): CompactionReport {
  return {
    compacted: false,
    cancelled: false,
    mode: 'auto',
    reason,
    ...(provider === undefined ? {} : { provider }),
    policy: decision.policyName,
    budget: decision.budget,
    target: decision.target,
    tokensBefore: tokens,
    tokensAfter: tokens,
    messagesBefore: messages,
    messagesAfter: messages,
    tokenizer: counter.tokenizer,
    accuracy: counter.accuracy,
    stages: [],
    fallbacks: [],
    warnings: [],
  };
}

/**
 * The window for the next prompt: the model's, or a smaller one learned from an overflow
 * error (RT-3). A new overflow calibrates the counter on the size the provider reported
 * (TOK-5) and, when it shrinks the window, calls `onLearned`.
 */
export function learnWindow(
  config: SessionConfig,
  overflow: { readonly limit?: number | undefined; readonly actual?: number | undefined } | undefined,
  session: {
    counter: CalibratedCounter;
    previousPrompt: readonly Message[];
    previousTools?: readonly ToolDefinition[];
    onLearned: (window: number) => void;
  },
): number {
  const learned = config.learnedWindow;
  const current = Math.min(config.window, learned.value ?? Number.POSITIVE_INFINITY);
  if (overflow === undefined) return current;
  const calibrated = session.previousPrompt.length > 0;
  if (overflow.actual !== undefined && calibrated) {
    session.counter.recordUsage(
      session.previousPrompt,
      // The size an overflow error names is the provider's own count of that prompt: exact.
      { inputTokens: overflow.actual, isExact: true },
      session.previousTools === undefined ? {} : { tools: session.previousTools },
    );
  }
  const next = windowAfterOverflow(current, overflow, { calibrated });
  if (next < current || learned.value === undefined) {
    learned.value = next;
    session.onLearned(next);
  }
  return next;
}

/** What `decide` measures for a session's projection (TRG-1..4). */
export function sessionMeasure(
  config: SessionConfig,
  counter: TokenCounter,
  projection: SessionProjection,
  run: { window: number; tools: readonly ToolDefinition[] | undefined; tokens: number | undefined },
): ContextMeasure {
  return {
    window: run.window,
    maxOutputTokens: config.maxOutputTokens,
    accuracy: counter.accuracy,
    toolTokens: run.tools?.length ? counter.count([], { tools: run.tools }).tools : 0,
    tokens: run.tokens ?? counter.count(projection.messages).total,
    messages: projection.messages.length,
    messagesSinceCompaction: projection.sinceCompaction,
  };
}
