import { describe, expect, it } from 'vitest';
import { INITIAL_LOOP_GUARD, isCompactionAllowed, recordCompaction, recordFailure } from './loop-guard.ts';

describe('loop guard (TRG-5)', () => {
  it('pauses auto-compaction after a stalled compaction (< 5 % gain)', () => {
    const state = recordCompaction(INITIAL_LOOP_GUARD, { messageCount: 100, before: 10_000, after: 9700 });
    expect(isCompactionAllowed(state, 101)).toBe(false);
    expect(isCompactionAllowed(state, 110)).toBe(true);
    expect(state.consecutiveStalls).toBe(1);
  });

  it('resets after a compaction that gains enough', () => {
    const stalled = recordCompaction(INITIAL_LOOP_GUARD, { messageCount: 100, before: 10_000, after: 9900 });
    expect(recordCompaction(stalled, { messageCount: 120, before: 10_000, after: 5000 })).toEqual(
      INITIAL_LOOP_GUARD,
    );
  });

  it('backs off exponentially on failures, capped', () => {
    let state = INITIAL_LOOP_GUARD;
    const waits: number[] = [];
    for (let i = 0; i < 8; i++) {
      state = recordFailure(state, 0);
      waits.push(state.resumeAt);
    }
    expect(waits).toEqual([2, 4, 8, 16, 32, 64, 64, 64]);
  });
});
