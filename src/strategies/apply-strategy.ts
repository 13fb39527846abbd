import type { Message } from '../messages/types.ts';
import { applyEdits } from '../projection/edits.ts';
import type { StrategyContext, StrategyResult } from './types.ts';

/** A strategy's result together with the list its edits produce. */
export interface AppliedStrategyResult extends StrategyResult {
  readonly messages: readonly Message[];
}

/**
 * The list a strategy's edits produce from its input, beside the edits (for tests and for
 * strategy authors checking their output). Returns the input array itself when there are no edits.
 *
 * @example
 * const { messages: projection } = withProjection(messages, mask().apply(messages, context));
 */
export function withProjection(messages: readonly Message[], result: StrategyResult): AppliedStrategyResult {
  const edited =
    (result.edits.drop?.length ?? 0) +
    (result.edits.replace?.length ?? 0) +
    (result.edits.insert?.length ?? 0);
  return { ...result, messages: edited === 0 ? messages : applyEdits(messages, result.edits) };
}

/** Runs a strategy and returns its edits with the projection they produce. */
export async function applyStrategy(
  strategy: {
    apply(messages: readonly Message[], context: StrategyContext): StrategyResult | Promise<StrategyResult>;
  },
  messages: readonly Message[],
  context: StrategyContext,
): Promise<AppliedStrategyResult> {
  return withProjection(messages, await strategy.apply(messages, context));
}
