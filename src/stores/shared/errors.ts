import { ChatfoldError } from '../../errors/chatfold-error.ts';

/** `E_STORE_CONFLICT`: a message id already stored in the session with other content. */
export function conflictError(sessionId: string, messageId: string): ChatfoldError {
  return new ChatfoldError(
    'E_STORE_CONFLICT',
    `message ${JSON.stringify(messageId)} is already stored in session ${JSON.stringify(sessionId)} with different content; messages are append-only, give the new message its own id`,
    { sessionId, messageId },
  );
}

/** Session ids are non-empty strings of at most this many characters. */
export const MAX_SESSION_ID_LENGTH = 512;

/** Checks a session id: a non-empty string of at most {@link MAX_SESSION_ID_LENGTH} characters. */
export function checkSessionId(id: unknown): string {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_SESSION_ID_LENGTH) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `session id: expected a non-empty string of at most ${MAX_SESSION_ID_LENGTH} characters, received ${typeof id === 'string' ? `a string of ${id.length} characters` : typeof id}`,
      { option: 'sessionId' },
    );
  }
  return id;
}
