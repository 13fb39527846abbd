import type { StrategyResult } from './types.ts';

type Effect = StrategyResult['effect'];

/** A strategy's effect with every count not given set to 0. */
export function stageEffect(effect: Partial<Effect>): Effect {
  return { dropped: 0, stubbed: 0, masked: 0, summarized: 0, clipped: 0, notes: [], ...effect };
}
