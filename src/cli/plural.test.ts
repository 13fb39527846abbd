import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plural } from './plural.ts';

describe('plural', () => {
  it('one is singular, every other count plural, with thousands separators', () => {
    expect(plural(1, 'message')).toBe('1 message');
    expect(plural(0, 'message')).toBe('0 messages');
    expect(plural(1234, 'model call')).toBe('1,234 model calls');
    expect(plural(2, 'match', 'matches')).toBe('2 matches');
    fc.assert(
      fc.property(fc.nat({ max: 1_000_000 }), (n) => {
        expect(plural(n, 'token').endsWith(n === 1 ? ' token' : ' tokens')).toBe(true);
      }),
    );
  });
});
