import { createHash } from 'node:crypto';

/** Longest readable prefix of a session folder name. */
const SLUG_LENGTH = 40;

/**
 * The folder name of a session in a JSONL directory: a readable lower-case slug of the id plus
 * 16 hex digits of its SHA-256, e.g. `fix-the-parser-3f9a0c…`. Safe on every file system: only
 * `[a-z0-9_-]`, never `.` or `..` (no path traversal), at most 57 characters, and two ids that
 * differ only in case, in characters the slug drops, or beyond the slug still get different
 * names (the hash covers the exact UTF-16 code units), also on case-insensitive file systems.
 * The folder's `session.json` holds the exact id, which the store checks on every open.
 *
 * @param sessionId - Any session id.
 * @returns The folder name.
 */
export function sessionFolderName(sessionId: string): string {
  const slug = sessionId
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, SLUG_LENGTH)
    .replace(/^-+|-+$/g, '');
  const hash = createHash('sha256').update(Buffer.from(sessionId, 'utf16le')).digest('hex').slice(0, 16);
  return slug === '' ? hash : `${slug}-${hash}`;
}
