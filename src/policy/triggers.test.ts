import { describe, expect, it } from 'vitest';
import { checkTriggers, evaluateTriggers } from './triggers.ts';

describe('evaluateTriggers (TRG-2, TRG-3)', () => {
  const base = { budget: 100_000, messagesSinceCompaction: 0 };

  it('fires at 80 % of the budget by default', () => {
    expect(evaluateTriggers({ ...base, tokens: 79_999 }).shouldCompact).toBe(false);
    expect(evaluateTriggers({ ...base, tokens: 80_000 })).toMatchObject({
      shouldCompact: true,
      trigger: 'auto',
    });
  });

  it('always fires over budget as overflow, even below the floor', () => {
    expect(evaluateTriggers({ tokens: 1500, budget: 1000, messagesSinceCompaction: 0 })).toMatchObject({
      shouldCompact: true,
      trigger: 'overflow',
    });
  });

  it('never auto-fires below the floor', () => {
    expect(
      evaluateTriggers(
        { tokens: 1900, budget: 2000, messagesSinceCompaction: 99 },
        { triggers: [{ messages: 30 }] },
      ).shouldCompact,
    ).toBe(false);
  });

  it('combines conditions as OR of AND-groups (seed 004: 30 messages or 128k tokens)', () => {
    const triggers = [{ messages: 30 }, { tokens: 128_000 }];
    const budget = 1_000_000;
    expect(
      evaluateTriggers({ tokens: 5000, budget, messagesSinceCompaction: 30 }, { triggers }).shouldCompact,
    ).toBe(true);
    expect(
      evaluateTriggers({ tokens: 128_000, budget, messagesSinceCompaction: 1 }, { triggers }).shouldCompact,
    ).toBe(true);
    expect(
      evaluateTriggers({ tokens: 127_999, budget, messagesSinceCompaction: 29 }, { triggers }).shouldCompact,
    ).toBe(false);
    const both = [{ messages: 30, fraction: 0.5 }];
    expect(
      evaluateTriggers({ tokens: 10_000, budget: 100_000, messagesSinceCompaction: 40 }, { triggers: both })
        .shouldCompact,
    ).toBe(false);
    expect(
      evaluateTriggers({ tokens: 60_000, budget: 100_000, messagesSinceCompaction: 40 }, { triggers: both })
        .reason,
    ).toContain('and');
  });

  it('rejects malformed groups with E_INVALID_OPTIONS naming the key', () => {
    expect(() => checkTriggers([{ fraction: 1.5 }])).toThrowError(/triggers\[0\]\.fraction/);
    expect(() => checkTriggers([{}])).toThrowError(expect.objectContaining({ code: 'E_INVALID_OPTIONS' }));
    expect(() => checkTriggers([{ messages: 2.5 }])).toThrowError(/positive integer/);
  });
});
