import type { SessionCatalog, SessionInfo } from '../stores/types.ts';

// The session metadata front ends share (the terminal agent and the web app write the same keys):
// a title, and a soft delete — a deleted session leaves the lists, its messages stay in the
// append-only store as the record of what was deleted and when.

/** Metadata key of a session's title. */
export const SESSION_TITLE_KEY = 'title';
/** Metadata key set (ISO time) when a session is deleted. */
export const SESSION_DELETED_AT_KEY = 'deletedAt';
/** Longest title, in characters. */
export const MAX_SESSION_TITLE = 200;

/** The session's title, if it has one. */
export function sessionTitle(info: SessionInfo): string | undefined {
  const title = info.metadata?.[SESSION_TITLE_KEY];
  return typeof title === 'string' && title.trim() !== '' ? title : undefined;
}

/** Whether the session was deleted. */
export const isDeletedSession = (info: SessionInfo): boolean =>
  typeof info.metadata?.[SESSION_DELETED_AT_KEY] === 'string';

/** Sets a session's title (trimmed, at most {@link MAX_SESSION_TITLE} characters). */
export function renameSession(store: SessionCatalog, sessionId: string, title: string): Promise<SessionInfo> {
  return store.ensureSession(sessionId, { [SESSION_TITLE_KEY]: title.trim().slice(0, MAX_SESSION_TITLE) });
}

/** Deletes a session softly: it leaves the lists; its messages stay in the store. */
export function deleteSession(
  store: SessionCatalog,
  sessionId: string,
  now = new Date(),
): Promise<SessionInfo> {
  return store.ensureSession(sessionId, { [SESSION_DELETED_AT_KEY]: now.toISOString() });
}
