/**
 * The memo tables of the engine, as one object a caller owns (issue 22 §3, API-2): no module
 * keeps a table of its own. Each table remembers what was worked out about a message or part
 * object — that it passed the entry check, its parsed tool arguments, its ledger facts, the
 * projection message a transform made of it — so a session that compacts the same history
 * again reads those answers instead of recomputing them.
 *
 * Who owns one: a session (through its token counter, which lives as long as it does) or a
 * caller who passes `cache` to `compact` / `planCompaction`. A stateless call without one
 * gets a fresh cache for that call only; tests get a clean slate with a new cache.
 *
 * The tables are declared where they are used, with {@link cacheTable}; this module knows
 * nothing of them, so it sits in the innermost layer every other one may import.
 */
import { ChatfoldError } from '../errors/chatfold-error.ts';

/** A named table kind; the table itself lives in each {@link EngineCache}. */
export interface CacheTable<T> {
  /** For debugging: which module's table this is. */
  readonly name: string;
  /** Makes an empty table (on first use in a cache). */
  readonly create: () => T;
}

/** One owner's memo tables. */
export interface EngineCache {
  /** The cache's table of kind `table`, made empty on first use. */
  table<T>(table: CacheTable<T>): T;
}

/**
 * Declares a kind of table, once per module (the declaration is an immutable constant; the
 * tables are in the caches).
 *
 * @example
 * const FACTS = cacheTable('ledger.facts', () => new WeakMap<Message, MessageFacts>());
 * const facts = cache.table(FACTS);
 */
export function cacheTable<T>(name: string, create: () => T): CacheTable<T> {
  return Object.freeze({ name, create });
}

/**
 * A new, empty cache.
 *
 * @example
 * const cache = createEngineCache();
 * await compact(history, { model: 'gpt-4o', cache }); // later calls with `cache` reuse its answers
 */
export function createEngineCache(): EngineCache {
  const tables = new Map<CacheTable<unknown>, unknown>();
  return {
    table<T>(table: CacheTable<T>): T {
      let found = tables.get(table) as T | undefined;
      if (found === undefined) {
        found = table.create();
        tables.set(table, found);
      }
      return found;
    },
  };
}

/**
 * A `cache` option as given to a public function: undefined, or a cache.
 *
 * @throws ChatfoldError `E_INVALID_OPTIONS` for anything else.
 */
export function cacheOption(value: unknown, fn: string): EngineCache | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'object' && value !== null && typeof (value as EngineCache).table === 'function')
    return value as EngineCache;
  throw new ChatfoldError(
    'E_INVALID_OPTIONS',
    `${fn}: options.cache must be an engine cache (createEngineCache()), received ${value === null ? 'null' : typeof value}`,
    { option: 'cache', where: fn },
  );
}

/** The tables of `cache`, or of a fresh cache when there is none (a stateless call). */
export function cacheOrFresh(cache: EngineCache | undefined): EngineCache {
  return cache ?? createEngineCache();
}
