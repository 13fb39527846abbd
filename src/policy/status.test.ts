import { describe, expect, it } from 'vitest';
import { parsePolicy } from './context-policy.ts';
import { contextStatus } from './status.ts';

describe('contextStatus (TRG-6)', () => {
  const measure = {
    window: 100_000,
    accuracy: 'exact' as const,
    toolTokens: 0,
    messages: 40,
  };

  it('reports tokens, budget, window, percent of the window and the N/K triggers', () => {
    const policy = parsePolicy({
      triggers: [{ messages: 30 }, { tokens: 128_000 }, { fraction: 0.8 }],
      responseReserve: 5000,
    });
    const status = contextStatus({
      measure: { ...measure, tokens: 45_000, messagesSinceCompaction: 12 },
      policy,
      tokenizer: 'openai:o200k_base',
    });
    expect(status).toMatchObject({
      tokens: 45_000,
      budget: 90_000,
      window: 100_000,
      percent: 45,
      messagesTrigger: 30,
      tokensTrigger: 128_000,
      willCompactNextTurn: false,
      policy,
    });
    expect(
      status.conditions.map((condition) => [condition.kind, condition.threshold, condition.holds]),
    ).toEqual([
      ['messages', 30, false],
      ['tokens', 128_000, false],
      ['fraction', 80_000, false],
    ]);
  });

  it('says when the next turn will trigger, and when the floor holds a trigger back', () => {
    const policy = parsePolicy({ triggers: [{ fraction: 0.7 }], responseReserve: 5000 });
    const next = contextStatus({
      measure: { ...measure, tokens: 69_000, messagesSinceCompaction: 3 },
      policy,
      tokenizer: 'chars/4',
      nextTurnTokens: 2500,
    });
    expect(next.willCompactNextTurn).toBe(true);
    const floored = contextStatus({
      measure: { ...measure, window: 1000, tokens: 800, messagesSinceCompaction: 3 },
      policy: parsePolicy({
        triggers: [{ messages: 2 }],
        floor: { tokens: 2000 },
        responseReserve: 0,
        safetyMargin: 0,
      }),
      tokenizer: 'chars/4',
    });
    expect(floored.heldByFloor).toBe(true);
    expect(floored.reason).toMatch(/below the floor of 2,000 tokens/);
  });
});
