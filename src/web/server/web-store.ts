import { ChatfoldError } from '../../errors/chatfold-error.ts';
import {
  type FullStore,
  hasSearch,
  hasSessionCatalog,
  hasSettings,
  hasSnapshotHistory,
  type Store,
} from '../../stores/types.ts';

/**
 * What the web app needs from a store: the core a session uses plus listing sessions,
 * full-history search (FR-6.3), settings (FR-3.1.2) and snapshot history. Every bundled store has them.
 */
export type WebStore = FullStore;

/**
 * Checks, once at start-up, that a store can back the web app, and says which capability is
 * missing otherwise (`E_INVALID_OPTIONS`).
 */
export function asWebStore(store: Store): WebStore {
  const missing = [
    ...(hasSessionCatalog(store) ? [] : ['session catalog (listSessions, getSession, ensureSession)']),
    ...(hasSearch(store) ? [] : ['search']),
    ...(hasSettings(store) ? [] : ['settings (getSetting, setSetting)']),
    ...(hasSnapshotHistory(store) ? [] : ['snapshots']),
  ];
  if (missing.length > 0) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `the web app needs a store that lists sessions, searches history and keeps settings; the ${store.kind} store lacks ${missing.join(', ')}. Use the SQLite, PostgreSQL, JSONL or memory store`,
      { option: 'store', missing },
    );
  }
  return store as WebStore;
}
