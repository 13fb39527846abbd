import type { MessageQuery, SearchQuery } from '../types.ts';

/** How many rows `search` returns when the query gives no `limit`. */
export const DEFAULT_SEARCH_LIMIT = 50;

/**
 * `Store.messages` over rows kept in memory in seq order (`rows[i].seq === i + 1`).
 *
 * @param rows - The session's rows.
 * @param query - Exclusive seq bounds, limit and order.
 * @returns The selected rows (the same objects).
 */
export function selectMessages<T>(rows: readonly T[], query: MessageQuery): T[] {
  const from = Math.max(0, query.afterSeq ?? 0);
  const to = Math.min(rows.length, (query.beforeSeq ?? Number.POSITIVE_INFINITY) - 1);
  if (to <= from) return [];
  const limit = Math.max(0, query.limit ?? Number.POSITIVE_INFINITY);
  if (query.order === 'desc') return rows.slice(Math.max(from, to - limit), to).reverse();
  return rows.slice(from, Math.min(to, from + limit));
}

/**
 * `Store.search` over rows kept in memory in seq order: newest first, below `beforeSeq`.
 *
 * @param rows - The session's rows.
 * @param textAt - The lower-cased searchable text of the row at an index (`searchableText`).
 * @param query - The text, limit and `beforeSeq`.
 * @returns The matching rows (the same objects).
 */
export function searchRows<T>(
  rows: readonly T[],
  textAt: (index: number) => string,
  query: SearchQuery,
): T[] {
  const needle = query.text.toLowerCase();
  const limit = query.limit ?? DEFAULT_SEARCH_LIMIT;
  const out: T[] = [];
  const start = Math.min(rows.length, (query.beforeSeq ?? Number.POSITIVE_INFINITY) - 1) - 1;
  for (let i = start; i >= 0 && out.length < limit; i--) {
    if (textAt(i).includes(needle)) out.push(rows[i] as T);
  }
  return out;
}
