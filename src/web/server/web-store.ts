import { ChatfoldError } from '../../errors/chatfold-error.ts';
import {
  hasSessionCatalog,
  hasSettings,
  type SessionCatalog,
  type SettingsStore,
  type Store,
} from '../../stores/types.ts';

/**
 * What the web app needs from a store: the core a session uses, session rows to list and
 * title (WEB-1), and settings (FR-3.1.2). Every bundled store has them (`FullStore`).
 */
export type WebStore = Store & SessionCatalog & SettingsStore;

/**
 * Checks, once at start-up, that a store can back the web app, and says which capability is
 * missing otherwise (`E_INVALID_OPTIONS`).
 */
export function asWebStore(store: Store): WebStore {
  if (hasSessionCatalog(store) && hasSettings(store)) return store;
  const missing = [
    ...(hasSessionCatalog(store) ? [] : ['a session catalog (ensureSession, getSession, listSessions)']),
    ...(hasSettings(store) ? [] : ['settings (getSetting, setSetting)']),
  ];
  throw new ChatfoldError(
    'E_INVALID_OPTIONS',
    `the web app needs a store that lists sessions and keeps settings; the ${store.kind} store lacks ${missing.join(' and ')}. Use the SQLite, PostgreSQL, JSONL or memory store`,
    { option: 'store', missing },
  );
}
