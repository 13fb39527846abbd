import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { Message } from '../messages/types.ts';
import { applyPlanEdits } from './edits.ts';
import type { CompactionPlan } from './types.ts';

/**
 * Turns a plan into the projection to send (pure): drops, replaces and inserts what the
 * plan says. `messages` is the list the plan was computed for, or that list with newer
 * messages after it (a history only grows): those pass through unchanged. A plan read back
 * from JSON applies the same way.
 *
 * @param messages The input of `planCompaction`, possibly extended.
 * @param plan A plan from `planCompaction` (or its JSON).
 * @returns The projection.
 * @throws ChatfoldError `E_INVALID_OPTIONS` when `messages` does not start with the plan's input.
 *
 * @example
 * const plan = await planCompaction(history, { model: 'gpt-4o', mode: 'manual' });
 * const projection = applyCompactionPlan(history, plan);
 */
export function applyCompactionPlan(messages: readonly Message[], plan: CompactionPlan): Message[] {
  const { input } = plan;
  if (
    messages.length < input.count ||
    (input.count > 0 && (messages[0]?.id !== input.firstId || messages[input.count - 1]?.id !== input.lastId))
  ) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `applyCompactionPlan: the plan was made for ${input.count} message(s) from ${input.firstId ?? '(none)'} to ${input.lastId ?? '(none)'}; the list given (${messages.length} message(s) from ${messages[0]?.id ?? '(none)'}) does not start with them`,
      { expected: input, received: { count: messages.length, firstId: messages[0]?.id } },
    );
  }
  if (!plan.compacted) return [...messages];
  return applyPlanEdits(messages, plan);
}
