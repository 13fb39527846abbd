import { ChatfoldError } from '../../errors/chatfold-error.ts';

/** `E_STORE_CONFLICT`: a message id already stored in the session with other content. */
export function conflictError(sessionId: string, messageId: string): ChatfoldError {
  return new ChatfoldError(
    'E_STORE_CONFLICT',
    `message ${JSON.stringify(messageId)} is already stored in session ${JSON.stringify(sessionId)} with different content; messages are append-only, give the new message its own id`,
    { sessionId, messageId },
  );
}

/** Session ids are non-empty strings of at most this many characters (UTF-16 code units). */
export const MAX_SESSION_ID_LENGTH = 512;

/** Control characters, Unicode category Cc: C0 (NUL, newline, escape…), DEL and C1. */
const CONTROL = /\p{Cc}/u;

/**
 * The one rule for session ids, checked by every store at its boundary (ST-1, MSG-4): a
 * non-empty string of at most {@link MAX_SESSION_ID_LENGTH} characters, well-formed Unicode (no
 * lone surrogates), without control characters. Postgres cannot store NUL or lone surrogates
 * and file names cannot hold some controls, so an id every store keeps the same is one that
 * has neither; anything else (paths, quotes, emoji, spaces) is fine.
 *
 * @param id The session id as the caller passed it.
 * @returns The id.
 * @throws ChatfoldError `E_INVALID_SESSION_ID` naming what is wrong.
 */
export function checkSessionId(id: unknown): string {
  const reason =
    typeof id !== 'string'
      ? `received ${id === null ? 'null' : Array.isArray(id) ? 'an array' : typeof id}`
      : id.length === 0
        ? 'received an empty string'
        : id.length > MAX_SESSION_ID_LENGTH
          ? `received a string of ${id.length} characters`
          : CONTROL.test(id)
            ? `received one with a control character (U+${(id.match(CONTROL)?.[0].charCodeAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}) at index ${id.search(CONTROL)}`
            : !id.isWellFormed()
              ? 'received one with a lone UTF-16 surrogate (invalid Unicode)'
              : undefined;
  if (reason === undefined) return id as string;
  throw new ChatfoldError(
    'E_INVALID_SESSION_ID',
    `session id: expected a non-empty string of at most ${MAX_SESSION_ID_LENGTH} characters without control characters or lone surrogates, ${reason}; derive ids from something printable (a UUID, a user and a date)`,
    { reason },
  );
}
