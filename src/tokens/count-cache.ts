import { LRUCache } from 'lru-cache';

/**
 * Token counts kept by content key (TOK-6), bounded: when full, the least recently used count
 * goes. Insertion and eviction are O(1) at any size (`lru-cache` keeps its own index lists;
 * deleting the first key of a full `Map` instead made every insert skip the tombstones of
 * earlier deletions, 50–200× slower once full).
 *
 * A list longer than the cache, counted again with equal content in new objects (a stateless
 * caller converts its whole history on every call), is least-recently-used's worst case: each
 * insert evicts the entry the next scan needs first, and nothing ever hits. `reserve` grows the
 * cache to the list about to be counted (issue 19 §3), up to the ceiling it was created with.
 */
export interface CountCache {
  /** The count cached under `key`, computed once and remembered. */
  remember(key: string, compute: () => number): number;
  /**
   * Makes room for `entries` counts (a list about to be counted), growing the cache up to its
   * ceiling; never shrinks it. Entries held stay, in the same recency order.
   */
  reserve(entries: number): void;
  /** Entries held now (never more than the cache's size). */
  readonly size: number;
  /** Entries the cache holds at most now. */
  readonly max: number;
  /** The keys from most to least recently used (tests and diagnostics). */
  keys(): IterableIterator<string>;
}

/**
 * Creates a bounded least-recently-used count cache.
 *
 * @param max - Entries kept; at least 1.
 * @param options.ceiling - The most entries `reserve` may grow it to; default `max` (no growth).
 * @returns A {@link CountCache}.
 */
export function createCountCache(
  max: number,
  { ceiling = max }: { readonly ceiling?: number } = {},
): CountCache {
  const limit = Math.max(1, Math.floor(max));
  const most = Math.max(limit, Math.floor(ceiling));
  let cache = new LRUCache<string, number>({ max: limit });
  return {
    remember(key, compute) {
      let tokens = cache.get(key);
      if (tokens === undefined) {
        tokens = compute();
        cache.set(key, tokens);
      }
      return tokens;
    },
    reserve(entries) {
      if (entries <= cache.max || cache.max >= most) return;
      // Doubling: a history growing by one message per call copies the cache O(log n) times.
      const grown = new LRUCache<string, number>({
        max: Math.min(most, Math.max(Math.ceil(entries), cache.max * 2)),
      });
      // Least recently used first, so the recency order carries over.
      for (const [key, tokens] of [...cache.entries()].reverse()) grown.set(key, tokens);
      cache = grown;
    },
    get size() {
      return cache.size;
    },
    get max() {
      return cache.max;
    },
    keys: () => cache.keys(),
  };
}
