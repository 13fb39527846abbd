import { Hono } from 'hono';
import type { WebDeps } from '../web-deps.ts';

/** `GET /api/info`: version, agent, model label, store kind, fake-provider flag (never a key, WEB-8). */
export function infoRoutes(deps: WebDeps): Hono {
  return new Hono().get('/', (context) => context.json(deps.info));
}
