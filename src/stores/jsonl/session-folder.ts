import { createHash } from 'node:crypto';

/** The folder under a store's directory that holds one folder per session. */
export const SESSIONS_FOLDER = 'sessions';

/** Encoded names longer than this are cut and given a hash (file names stop at 255 bytes). */
const MAX_ENCODED_LENGTH = 200;
/** Characters of the encoding kept before the hash of a long name. */
const LONG_PREFIX_LENGTH = 160;

/** Device names Windows reserves in every folder, whatever the extension. */
const WINDOWS_RESERVED = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])$/;

/**
 * The folder name of a session in a JSONL directory (`<dir>/sessions/<name>/`).
 *
 * Every character outside `[a-z0-9_-]` is percent-encoded byte by byte from its UTF-8 with
 * lower-case hex (`My Chat` → `%4dy%20%43hat`, `../x` → `%2e%2e%2fx`), so a name:
 * - never contains `/`, `\`, `.` or `..` (no path traversal) nor characters Windows forbids;
 * - is lower case, so ids that differ only in case (`A`, `a` → `%41`, `a`) stay apart on
 *   case-insensitive file systems (macOS, Windows);
 * - decodes back to the id with `decodeURIComponent` while it is short.
 *
 * Windows device names (`con`, `nul`, `com1`, …) get their first letter encoded too. An
 * encoding longer than 200 characters (long ids, emoji: at most 512 characters can take 3 072)
 * (and an id with lone surrogates, which UTF-8 cannot hold) keeps its first 160 characters,
 * then `~` and 32 hex digits of the id's SHA-256; `~` never occurs in a plain encoding, so the
 * two forms cannot collide. The folder's `session.json`
 * holds the exact id, which the store checks whenever it opens the folder.
 *
 * @param sessionId - Any session id (a non-empty string of at most 512 characters).
 * @returns The folder name: `[a-z0-9_%~-]`, 1 to 200 characters.
 */
export function sessionFolderName(sessionId: string): string {
  let name = '';
  for (const byte of Buffer.from(sessionId, 'utf8')) {
    name += isKept(byte) ? String.fromCharCode(byte) : `%${byte.toString(16).padStart(2, '0')}`;
  }
  if (WINDOWS_RESERVED.test(name)) name = `%${name.charCodeAt(0).toString(16)}${name.slice(1)}`;
  // Lone surrogates all become U+FFFD in UTF-8, so such ids always take the hashed form.
  if (name.length <= MAX_ENCODED_LENGTH && sessionId.isWellFormed()) return name;
  // Cut before a `%xx` escape, never inside one.
  let cut = LONG_PREFIX_LENGTH;
  const lastEscape = name.lastIndexOf('%', cut - 1);
  if (lastEscape > cut - 3) cut = lastEscape;
  // The hash covers the exact UTF-16 code units.
  const hash = createHash('sha256').update(Buffer.from(sessionId, 'utf16le')).digest('hex').slice(0, 32);
  return `${name.slice(0, cut)}~${hash}`;
}

/** `a`–`z`, `0`–`9`, `_`, `-`. */
function isKept(byte: number): boolean {
  return (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39) || byte === 0x5f || byte === 0x2d;
}
