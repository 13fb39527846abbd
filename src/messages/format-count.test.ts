import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatCount } from './format-count.ts';

describe('formatCount', () => {
  it("writes every number as toLocaleString('en-US') does (property)", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer(),
          fc.maxSafeInteger(),
          fc.constantFrom(
            0,
            -0,
            999,
            1000,
            -1000,
            999_999,
            1_000_000,
            0.5,
            1234.5678,
            Number.NaN,
            Infinity,
            2 ** 60,
          ),
          fc.double(),
        ),
        (n) => {
          expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('groups digits by three', () => {
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatCount(-12)).toBe('-12');
  });
});
