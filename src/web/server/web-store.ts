import { ChatfoldError } from '../../errors/chatfold-error.ts';
import type { Store } from '../../stores/types.ts';

/**
 * What the web app needs from a store: the core a session uses plus listing sessions,
 * full-history search (FR-6.3) and settings (FR-3.1.2). Every bundled store has them.
 */
export type WebStore = Store &
  Required<Pick<Store, 'listSessions' | 'getSession' | 'search' | 'getSetting' | 'setSetting' | 'snapshots'>>;

const NEEDED = ['listSessions', 'getSession', 'search', 'getSetting', 'setSetting', 'snapshots'] as const;

/**
 * Checks, once at start-up, that a store can back the web app, and says which capability is
 * missing otherwise (`E_INVALID_OPTIONS`).
 */
export function asWebStore(store: Store): WebStore {
  const missing = NEEDED.filter(
    (method) => typeof (store as unknown as Record<string, unknown>)[method] !== 'function',
  );
  if (missing.length > 0) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `the web app needs a store that lists sessions, searches history and keeps settings; the ${store.kind} store lacks ${missing.join(', ')}. Use the SQLite, PostgreSQL, JSONL or memory store`,
      { option: 'store', missing },
    );
  }
  return store as WebStore;
}
