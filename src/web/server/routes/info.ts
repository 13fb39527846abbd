import { Hono } from 'hono';
import { reply } from '../reply.ts';
import type { WebDeps } from '../web-deps.ts';

/** `GET /api/info`: version, agent, model label, store kind, fake-provider flag (never a key, WEB-8). */
export function infoRoutes(deps: WebDeps): Hono {
  return new Hono().get('/', (context) => reply(context, 'GET /api/info', deps.info));
}
