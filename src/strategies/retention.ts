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
 */
export function retentionStart(
  messages: readonly Message[],
  units: readonly MessageUnit[],
  headEnd: number,
  limits: { readonly maxMessages?: number | undefined; readonly maxTokens?: number | undefined },
  context: StrategyContext,
): number {
  let start = messages.length;
  let tokens = 0;
  for (let u = units.length - 1; u >= 0; u--) {
    const unit = units[u] as MessageUnit;
    if (unit.start < headEnd) break;
    const count = messages.length - unit.start;
    if (limits.maxMessages !== undefined && count > limits.maxMessages) break;
    const next = tokens + unitTokens(messages, unit, context);
    if (limits.maxTokens !== undefined && next > limits.maxTokens) break;
    tokens = next;
    start = unit.start;
  }
  return start;
}
