import { Hono } from 'hono';
import { z } from 'zod';
import { SESSION_TITLE_KEY, sessionTitle } from '../../../agent/session-metadata.ts';
import { parseBody, sessionIdParam } from '../parse-request.ts';
import { reply } from '../reply.ts';
import { requireSession } from '../session-view.ts';
import { streamSessionRun } from '../stream-session-run.ts';
import type { WebDeps } from '../web-deps.ts';

/** Longest user message the API takes (WEB-8: bounded requests). */
export const MAX_TURN_CHARS = 100_000;
/** Characters of the first message used as the title of an untitled session. */
const TITLE_FROM_TEXT = 60;

export const turnBody = z.strictObject({
  text: z
    .string()
    .max(MAX_TURN_CHARS, `a message has at most ${MAX_TURN_CHARS.toLocaleString('en-US')} characters`)
    .refine((text) => text.trim() !== '', 'a message must not be empty'),
});

/**
 * A one-line title from the first message of a session: markdown marks (code fences and
 * backticks, emphasis, headings, quotes, list bullets) and link targets removed, whitespace
 * folded, cut at a word near 60 characters.
 */
export function titleFromText(text: string): string {
  const line = text
    .replace(/```[^\n]*\n?/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+[.)])\s+/gm, '')
    .replace(/[`*_~]+/g, '')
    .trim()
    .replace(/\s+/g, ' ');
  if (line === '') return 'New chat';
  if (line.length <= TITLE_FROM_TEXT) return line;
  const cut = line.slice(0, TITLE_FROM_TEXT - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > TITLE_FROM_TEXT / 2 ? cut.slice(0, space) : cut}…`;
}

/**
 * `POST /api/sessions/:id/turns { text }` (WEB-1): runs one turn of the agent — the same tool
 * loop as `chatfold chat` (AG-3) — and streams it as server-sent events: text deltas, tool
 * calls, usage, compaction start / progress / end / fallback, the gauge, `done`. Closing the
 * connection stops the turn; what was produced stays in the session. `POST
 * /api/sessions/:id/stop` stops it without closing the stream: the stream ends once the partial
 * answer is stored, so the page keeps it in place.
 */
export function turnRoutes(deps: WebDeps): Hono {
  return new Hono()
    .post('/:id/stop', async (context) => {
      // Stop and Cancel (FR-2.3.3): the running stream stores what was produced, then ends.
      const sessionId = sessionIdParam(context);
      await requireSession(deps.store, sessionId);
      return reply(context, 'POST /api/sessions/:id/stop', { stopped: deps.pool.stop(sessionId) });
    })
    .post('/:id/turns', async (context) => {
      const sessionId = sessionIdParam(context);
      const { text } = await parseBody(context, turnBody);
      const info = await requireSession(deps.store, sessionId);
      const untitled = sessionTitle(info) === undefined;
      return streamSessionRun(context, deps, sessionId, async function* (agent, signal) {
        // The first message names an untitled session (only once the turn is accepted).
        if (untitled) await deps.store.ensureSession(sessionId, { [SESSION_TITLE_KEY]: titleFromText(text) });
        yield* agent.run(text, { signal });
      });
    });
}
