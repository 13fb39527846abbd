import { LRUCache } from 'lru-cache';

/**
 * Token counts kept by content key (TOK-6), bounded: when full, the least recently used count
 * goes. Insertion and eviction are O(1) at any size (`lru-cache` keeps its own index lists;
 * deleting the first key of a full `Map` instead made every insert skip the tombstones of
 * earlier deletions, 50–200× slower once full).
 */
export interface CountCache {
  /** The count cached under `key`, computed once and remembered. */
  remember(key: string, compute: () => number): number;
  /** Entries held now (never more than the cache's size). */
  readonly size: number;
  /** The keys from most to least recently used (tests and diagnostics). */
  keys(): IterableIterator<string>;
}

/**
 * Creates a bounded least-recently-used count cache.
 *
 * @param max - Entries kept; at least 1.
 * @returns A {@link CountCache}.
 */
export function createCountCache(max: number): CountCache {
  const cache = new LRUCache<string, number>({ max: Math.max(1, Math.floor(max)) });
  return {
    remember(key, compute) {
      let tokens = cache.get(key);
      if (tokens === undefined) {
        tokens = compute();
        cache.set(key, tokens);
      }
      return tokens;
    },
    get size() {
      return cache.size;
    },
    keys: () => cache.keys(),
  };
}
