import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../defaults.ts';
import { windowAfterOverflow } from './overflow-window.ts';

describe('windowAfterOverflow (RT-3)', () => {
  it('uses the reported limit, the count error, or a fixed shrink', () => {
    expect(windowAfterOverflow(128_000, { limit: 32_000, actual: 40_000 })).toBe(32_000);
    expect(windowAfterOverflow(128_000, { actual: 150_000 }, { estimate: 120_000 })).toBe(102_400);
    expect(windowAfterOverflow(128_000, { actual: 150_000 }, { calibrated: true })).toBe(128_000);
    expect(windowAfterOverflow(128_000, { actual: 150_000 })).toBe(128_000 * DEFAULTS.overflowShrink);
    expect(windowAfterOverflow(100_000, {})).toBe(100_000 * DEFAULTS.overflowShrink);
  });

  it('never grows the window', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2_000_000 }),
        fc.record({
          limit: fc.option(fc.integer({ min: -5, max: 3_000_000 }), { nil: undefined }),
          actual: fc.option(fc.integer({ min: -5, max: 3_000_000 }), { nil: undefined }),
        }),
        fc.option(fc.integer({ min: 0, max: 3_000_000 }), { nil: undefined }),
        (current, overflow, estimate) => {
          const next = windowAfterOverflow(current, JSON.parse(JSON.stringify(overflow)), {
            ...(estimate === undefined ? {} : { estimate }),
          });
          expect(next).toBeLessThanOrEqual(current);
          expect(Number.isInteger(next)).toBe(true);
        },
      ),
    );
  });
});
