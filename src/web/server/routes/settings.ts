import { Hono } from 'hono';
import { parseBody } from '../parse-request.ts';
import { reply } from '../reply.ts';
import type { WebDeps } from '../web-deps.ts';
import { webSettingsPatchSchema } from '../web-settings.ts';

/**
 * `GET /api/settings`, `PUT /api/settings` (WEB-7, FR-3.1): auto-compaction, threshold per
 * model, retention tokens, notifications, summarizer model; persisted in the store's settings
 * (FR-3.1.2), so they survive a restart and are shared by servers on one database. A `PUT`
 * takes any subset and applies to each session's next turn.
 */
export function settingsRoutes(deps: WebDeps): Hono {
  return new Hono()
    .get('/', async (context) =>
      reply(context, 'GET /api/settings', { settings: await deps.settings.read() }),
    )
    .put('/', async (context) => {
      const patch = await parseBody(context, webSettingsPatchSchema);
      return reply(context, 'PUT /api/settings', { settings: await deps.settings.write(patch) });
    });
}
