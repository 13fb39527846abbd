import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCountCache } from './count-cache.ts';

describe('createCountCache (TOK-6)', () => {
  it('computes a count once and answers repeats from the cache', () => {
    const cache = createCountCache(10);
    let computed = 0;
    const compute = () => {
      computed++;
      return 42;
    };
    expect(cache.remember('a', compute)).toBe(42);
    expect(cache.remember('a', compute)).toBe(42);
    expect(computed).toBe(1);
  });

  it('evicts the least recently used entry when full, not the oldest inserted', () => {
    const cache = createCountCache(3);
    cache.remember('a', () => 1);
    cache.remember('b', () => 2);
    cache.remember('c', () => 3);
    cache.remember('a', () => -1); // a is now the most recently used
    cache.remember('d', () => 4); // evicts b
    expect([...cache.keys()]).toEqual(['d', 'a', 'c']);
    let recomputed = false;
    expect(
      cache.remember('b', () => {
        recomputed = true;
        return 2;
      }),
    ).toBe(2);
    expect(recomputed).toBe(true);
    expect(cache.remember('a', () => -1)).toBe(1);
  });

  it('never holds more entries than its size, and keeps the most recent ones (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 300 }),
        (size, keys) => {
          const cache = createCountCache(size);
          const recent: number[] = [];
          for (const key of keys) {
            cache.remember(String(key), () => key * 2);
            const at = recent.indexOf(key);
            if (at >= 0) recent.splice(at, 1);
            recent.unshift(key);
          }
          expect(cache.size).toBeLessThanOrEqual(size);
          expect([...cache.keys()]).toEqual(recent.slice(0, size).map(String));
        },
      ),
    );
  });

  it('grows to a reserved size up to its ceiling, keeping its entries and their recency', () => {
    const cache = createCountCache(3, { ceiling: 10 });
    for (const key of ['a', 'b', 'c']) cache.remember(key, () => 1);
    cache.remember('a', () => -1);
    cache.reserve(2);
    expect(cache.max).toBe(3);
    cache.reserve(5);
    expect(cache.max).toBe(6);
    expect([...cache.keys()]).toEqual(['a', 'c', 'b']);
    cache.reserve(1_000);
    expect(cache.max).toBe(10);
    expect(createCountCache(3).max).toBe(3);
    const fixed = createCountCache(3);
    fixed.reserve(100);
    expect(fixed.max).toBe(3);
  });

  it('a scan larger than the cache, repeated, hits every entry once reserved (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 400 }), (size, scan) => {
        const cache = createCountCache(size, { ceiling: 1_000 });
        let computed = 0;
        const pass = () => {
          cache.reserve(scan);
          for (let i = 0; i < scan; i++)
            cache.remember(String(i), () => {
              computed++;
              return i;
            });
        };
        pass();
        expect(computed).toBe(scan);
        pass();
        expect(computed).toBe(scan);
      }),
    );
  });
});
