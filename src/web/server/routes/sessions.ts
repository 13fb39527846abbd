import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { z } from 'zod';
import {
  deleteSession,
  isDeletedSession,
  MAX_SESSION_TITLE,
  SESSION_TITLE_KEY,
} from '../../../agent/session-metadata.ts';
import type { SessionView } from '../../api-types.ts';
import { AUTO_COMPACTION_KEY } from '../agent-pool.ts';
import { HttpError } from '../http-error.ts';
import { parseBody, sessionIdParam } from '../parse-request.ts';
import { reply } from '../reply.ts';
import { requireSession, toWireMessages, toWireSession, toWireSummary } from '../session-view.ts';
import type { WebDeps } from '../web-deps.ts';

/** Messages of the active context the chat view loads at once; older ones are in the full history. */
export const CHAT_VIEW_LIMIT = 200;
/** Sessions the list shows. */
export const SESSION_LIST_LIMIT = 200;

/** Titles are plain text (rendered as text, never HTML: WEB-8). */
const title = z
  .string()
  .trim()
  .min(1, 'a title must not be empty')
  .max(MAX_SESSION_TITLE, `a title has at most ${MAX_SESSION_TITLE} characters`);

export const createBody = z.strictObject({ title: title.optional() });
export const updateBody = z
  .strictObject({ title: title.optional(), autoCompaction: z.enum(['inherit', 'on', 'off']).optional() })
  .refine(
    (body) => body.title !== undefined || body.autoCompaction !== undefined,
    'expected title or autoCompaction',
  );

/**
 * Sessions (WEB-1): `GET /api/sessions` (list), `POST /api/sessions` (new), `GET
 * /api/sessions/:id` (the chat view: summary, messages since it, gauge), `PATCH
 * /api/sessions/:id` (rename, per-session auto-compaction), `GET /api/sessions/:id/gauge`,
 * `DELETE /api/sessions/:id` (soft: the chat leaves the list and the API; the store keeps its
 * messages and the time of deletion, since the history is append-only). Every answer goes
 * through the `ApiRoutes` contract the client is typed by.
 */
export function sessionRoutes(deps: WebDeps): Hono {
  const { store } = deps;
  return new Hono()
    .get('/', async (context) => {
      const sessions = await store.listSessions({ limit: SESSION_LIST_LIMIT });
      return reply(context, 'GET /api/sessions', {
        sessions: sessions.filter((info) => !isDeletedSession(info)).map(toWireSession),
      });
    })
    .post('/', async (context) => {
      const body = await parseBody(context, createBody);
      const id = `s-${randomUUID().replaceAll('-', '').slice(0, 20)}`;
      const info = await store.ensureSession(
        id,
        body.title === undefined ? {} : { [SESSION_TITLE_KEY]: body.title },
      );
      return reply(context, 'POST /api/sessions', { session: toWireSession(info) }, 201);
    })
    .get('/:id', async (context) => {
      const sessionId = sessionIdParam(context);
      const info = await requireSession(store, sessionId);
      const agent = await deps.pool.agent(sessionId);
      const [entries, snapshot, gauge] = await Promise.all([
        agent.session.history({ limit: CHAT_VIEW_LIMIT }),
        store.latestSnapshot(sessionId, 'summary'),
        deps.gauge(sessionId),
      ]);
      // The chat shows the active context (summary on top); summarized and omitted messages
      // are in the full history view (WEB-6).
      const active = [...entries]
        .sort((a, b) => a.seq - b.seq)
        .filter((entry) => entry.status !== 'summarized' && entry.status !== 'omitted');
      const summary = snapshot === undefined ? undefined : toWireSummary(snapshot);
      const inContextTotal = Math.max(0, gauge.messagesInHistory - gauge.messagesSummarized);
      const view: SessionView = {
        session: toWireSession(info),
        gauge,
        ...(summary === undefined ? {} : { summary }),
        messages: toWireMessages(active.filter((entry) => entry.message.role !== 'system')),
        olderInContext: entries.length < CHAT_VIEW_LIMIT ? 0 : Math.max(0, inContextTotal - active.length),
      };
      return reply(context, 'GET /api/sessions/:id', view);
    })
    .patch('/:id', async (context) => {
      const sessionId = sessionIdParam(context);
      const body = await parseBody(context, updateBody);
      await requireSession(store, sessionId);
      const info = await store.ensureSession(sessionId, {
        ...(body.title === undefined ? {} : { [SESSION_TITLE_KEY]: body.title }),
        ...(body.autoCompaction === undefined ? {} : { [AUTO_COMPACTION_KEY]: body.autoCompaction }),
      });
      return reply(context, 'PATCH /api/sessions/:id', { session: toWireSession(info) });
    })
    .delete('/:id', async (context) => {
      const sessionId = sessionIdParam(context);
      await requireSession(store, sessionId);
      if (deps.pool.isBusy(sessionId)) {
        throw new HttpError(
          409,
          'E_BUSY',
          'this chat is answering or summarizing; stop it first, then delete it',
        );
      }
      await deleteSession(store, sessionId);
      return reply(context, 'DELETE /api/sessions/:id', { deleted: true });
    })
    .get('/:id/gauge', async (context) => {
      const sessionId = sessionIdParam(context);
      await requireSession(store, sessionId);
      return reply(context, 'GET /api/sessions/:id/gauge', { gauge: await deps.gauge(sessionId) });
    });
}
