import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ApiRoutes } from '../api-types.ts';

/**
 * Answers a route of the API contract with its JSON: the body must be what `ApiRoutes` says
 * the route returns, so the server and the client cannot drift apart.
 *
 * @param context the request's context.
 * @param _route the route, as `ApiRoutes` names it (types the body).
 * @param body the answer.
 * @param status default 200.
 */
export function reply<R extends keyof ApiRoutes>(
  context: Context,
  _route: R,
  body: ApiRoutes[R]['response'],
  status: ContentfulStatusCode = 200,
): Response {
  return context.json(body, status);
}
