import { describe, expect, it } from 'vitest';
import { computeBudget } from './budget.ts';

describe('computeBudget (TRG-1)', () => {
  it('subtracts response reserve, 5 % margin and tool definitions', () => {
    expect(computeBudget({ window: 100_000, responseReserve: 4000, toolTokens: 1000 })).toEqual({
      window: 100_000,
      responseReserve: 4000,
      safetyMargin: 5000,
      toolTokens: 1000,
      messages: 90_000,
    });
  });

  it('derives the reserve from max output, capped at 25 % of the window and 32k', () => {
    expect(computeBudget({ window: 200_000, maxOutputTokens: 64_000 }).responseReserve).toBe(32_000);
    expect(computeBudget({ window: 8000, maxOutputTokens: 4096 }).responseReserve).toBe(2000);
    expect(computeBudget({ window: 128_000, maxOutputTokens: 16_384 }).responseReserve).toBe(16_384);
  });

  it('widens the margin when counts are approximate', () => {
    expect(computeBudget({ window: 100_000, responseReserve: 0, accuracy: 'approximate' }).safetyMargin).toBe(
      15_000,
    );
    expect(computeBudget({ window: 100_000, responseReserve: 0, accuracy: 'calibrated' }).safetyMargin).toBe(
      8000,
    );
  });

  it('throws E_BUDGET_IMPOSSIBLE with the numbers when nothing is left', () => {
    expect(() => computeBudget({ window: 10_000, responseReserve: 5000, toolTokens: 6000 })).toThrowError(
      expect.objectContaining({
        code: 'E_BUDGET_IMPOSSIBLE',
        details: expect.objectContaining({ toolTokens: 6000 }),
      }),
    );
  });

  it('rejects a non-positive window with E_INVALID_OPTIONS', () => {
    expect(() => computeBudget({ window: 0 })).toThrowError(
      expect.objectContaining({ code: 'E_INVALID_OPTIONS' }),
    );
  });
});
