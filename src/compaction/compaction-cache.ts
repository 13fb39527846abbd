import { createEngineCache, type EngineCache } from '../messages/engine-cache.ts';

const isCache = (value: unknown): value is EngineCache =>
  typeof value === 'object' && value !== null && typeof (value as EngineCache).table === 'function';

/**
 * The memo tables a compaction works with (issue 22 §3): the caller's `cache`, else the one
 * of the counter the caller passed (a session's counter lives as long as the session), else a
 * fresh cache for this call alone. Never a table shared by unrelated callers: a counter the
 * library picked for a model id does not lend its cache.
 *
 * Reads the options before they are checked (the entry check of the messages comes first), so
 * anything that is not a cache counts as none.
 */
export function compactionCache(
  options: { readonly cache?: unknown; readonly counter?: unknown } = {},
): EngineCache {
  if (isCache(options.cache)) return options.cache;
  const counter = options.counter as { readonly cache?: unknown } | undefined;
  if (typeof counter === 'object' && counter !== null && isCache(counter.cache)) return counter.cache;
  return createEngineCache();
}
