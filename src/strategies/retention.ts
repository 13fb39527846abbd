import type { Message } from '../messages/types.ts';
import type { MessageUnit } from './tool-groups.ts';
import type { StrategyContext } from './types.ts';

/** A unit's tokens, summed over its messages. */
export function unitTokens(
  messages: readonly Message[],
  unit: MessageUnit,
  context: StrategyContext,
): number {
  let tokens = 0;
  for (let i = unit.start; i < unit.end; i++) tokens += context.counter.countMessage(messages[i] as Message);
  return tokens;
}

/**
 * Where the retained tail starts (FR-1.3.4, exact): the largest suffix of whole units with at
 * most `maxMessages` messages and `maxTokens` tokens (each only when set), never reaching
 * into the head. "The newest 3 messages are 900 tokens, 4 are 1,100, retention 1,000 → 3."
 * Messages from `end` on (the pending input) are always in the tail and not counted.
 */
export function retentionStart(
  messages: readonly Message[],
  units: readonly MessageUnit[],
  headEnd: number,
  limits: {
    readonly maxMessages?: number | undefined;
    readonly maxTokens?: number | undefined;
    readonly end?: number | undefined;
  },
  context: StrategyContext,
): number {
  const end = limits.end ?? messages.length;
  let start = end;
  let tokens = 0;
  for (let u = units.length - 1; u >= 0; u--) {
    const unit = units[u] as MessageUnit;
    if (unit.start >= end) continue;
    if (unit.start < headEnd) break;
    const count = end - unit.start;
    if (limits.maxMessages !== undefined && count > limits.maxMessages) break;
    const next = tokens + unitTokens(messages, unit, context);
    if (limits.maxTokens !== undefined && next > limits.maxTokens) break;
    tokens = next;
    start = unit.start;
  }
  return start;
}

/**
 * Where the pending input starts: the last message when it is a user turn nobody answered yet
 * (the request being sent, FR-1.5.1 "current user input"), else the end. It is sent whatever
 * the retention says and does not count against it.
 */
export function pendingInputStart(
  messages: readonly Message[],
  isUserTurn: (message: Message) => boolean,
): number {
  const last = messages.at(-1);
  return last !== undefined && isUserTurn(last) ? messages.length - 1 : messages.length;
}
