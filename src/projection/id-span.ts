/**
 * How compaction texts name what they replaced (issue 21, recall): one message id, or the
 * first and last id of a run of stored messages as `first..last`. Ids are stable, so a text
 * that names them stays byte-identical from one compaction to the next (prompt caches keep
 * working), and `chatfold_recall` takes the same form back.
 */

/** The separator of a span's two ids. */
export const ID_SPAN_SEPARATOR = '..';

/**
 * The ids of a run of messages, compactly: `gw-a` for one, `gw-a..gw-b` for several.
 *
 * @param firstId The run's first stored message.
 * @param lastId The run's last stored message.
 */
export function formatIdSpan(firstId: string, lastId: string): string {
  return firstId === lastId ? firstId : `${firstId}${ID_SPAN_SEPARATOR}${lastId}`;
}

/**
 * Reads an id or a span back: `{ firstId, lastId }` (the same id twice for one message).
 * Ids never contain `..` (chatfold's are hex hashes and uuids); a text with it elsewhere reads
 * as one id.
 */
export function parseIdSpan(text: string): { readonly firstId: string; readonly lastId: string } {
  const at = text.indexOf(ID_SPAN_SEPARATOR);
  if (at <= 0 || at + ID_SPAN_SEPARATOR.length >= text.length) return { firstId: text, lastId: text };
  return { firstId: text.slice(0, at), lastId: text.slice(at + ID_SPAN_SEPARATOR.length) };
}
