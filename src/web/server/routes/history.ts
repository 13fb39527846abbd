import { Hono } from 'hono';
import { z } from 'zod';
import type { HistoryPage } from '../../api-types.ts';
import { parseQuery, sessionIdParam } from '../parse-request.ts';
import { reply } from '../reply.ts';
import { requireSession, toWireMessages } from '../session-view.ts';
import type { WebDeps } from '../web-deps.ts';

/** Messages per history page unless `limit` says otherwise. */
export const DEFAULT_HISTORY_LIMIT = 100;

const positive = (max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'expected a positive whole number')
    .transform(Number)
    .pipe(z.number().int().min(1).max(max));

export const historyQuery = z.object({
  query: z.string().max(500, 'a search has at most 500 characters').optional(),
  limit: positive(500).optional(),
  before: positive(Number.MAX_SAFE_INTEGER).optional(),
});

/**
 * `GET /api/sessions/:id/history?query=&limit=&before=` (WEB-6, FR-6.3): the full original
 * history, or a search of it, each message marked in context / summarized / stubbed.
 */
export function historyRoutes(deps: WebDeps): Hono {
  return new Hono().get('/:id/history', async (context) => {
    const sessionId = sessionIdParam(context);
    const { query, limit, before } = parseQuery(context, historyQuery);
    const info = await requireSession(deps.store, sessionId);
    const agent = await deps.pool.agent(sessionId);
    const text = query?.trim() ?? '';
    const pageSize = limit ?? DEFAULT_HISTORY_LIMIT;
    const entries = await agent.session.history({
      limit: pageSize,
      ...(text === '' ? {} : { text }),
      ...(before === undefined ? {} : { beforeSeq: before }),
    });
    const ascending = [...entries].sort((a, b) => a.seq - b.seq);
    const oldest = ascending[0]?.seq;
    const page: HistoryPage = {
      messages: toWireMessages(ascending),
      total: info.messageCount,
      ...(text === '' ? {} : { query: text }),
      ...(entries.length === pageSize && oldest !== undefined && oldest > 1 ? { nextBefore: oldest } : {}),
    };
    return reply(context, 'GET /api/sessions/:id/history', page);
  });
}
