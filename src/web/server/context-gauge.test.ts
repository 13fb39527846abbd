import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GAUGE_CRITICAL_PERCENT, GAUGE_WARNING_PERCENT, gaugeLevel } from './context-gauge.ts';

describe('gaugeLevel (WEB-2, FR-6.1.1)', () => {
  it('is orange from 80 % and red from 95 %', () => {
    expect(gaugeLevel(79.9)).toBe('ok');
    expect(gaugeLevel(80)).toBe('warning');
    expect(gaugeLevel(94.9)).toBe('warning');
    expect(gaugeLevel(95)).toBe('critical');
    expect(gaugeLevel(130)).toBe('critical');
  });

  it('never goes down as the percentage goes up', () => {
    const rank = { ok: 0, warning: 1, critical: 2 } as const;
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 200, noNaN: true }),
        fc.double({ min: 0, max: 200, noNaN: true }),
        (a, b) => {
          const [low, high] = a <= b ? [a, b] : [b, a];
          expect(rank[gaugeLevel(low)]).toBeLessThanOrEqual(rank[gaugeLevel(high)]);
        },
      ),
    );
    expect(GAUGE_WARNING_PERCENT).toBeLessThan(GAUGE_CRITICAL_PERCENT);
  });
});
