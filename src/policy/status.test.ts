import { describe, expect, it } from 'vitest';
import { computeBudget } from './budget.ts';
import { contextStatus } from './status.ts';

describe('contextStatus (TRG-6)', () => {
  const budget = computeBudget({ window: 100_000, responseReserve: 5000 });

  it('reports tokens, budget, window, percent and the N/K triggers', () => {
    const status = contextStatus({
      tokens: 45_000,
      budget,
      messagesSinceCompaction: 12,
      accuracy: 'exact',
      tokenizer: 'openai:o200k_base',
      triggers: [{ messages: 30 }, { tokens: 128_000 }, { fraction: 0.8 }],
    });
    expect(status).toMatchObject({
      tokens: 45_000,
      budget: 90_000,
      window: 100_000,
      percent: 50,
      messagesTrigger: 30,
      tokensTrigger: 128_000,
      willCompactNextTurn: false,
    });
  });

  it('says when the next turn will trigger', () => {
    const status = contextStatus({
      tokens: 70_000,
      budget,
      messagesSinceCompaction: 3,
      accuracy: 'approximate',
      tokenizer: 'chars/4',
      nextTurnTokens: 2500,
    });
    expect(status.willCompactNextTurn).toBe(true);
  });
});
