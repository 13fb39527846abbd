// The browser side of the JSON API and its event streams. The access token (WEB-8) comes from
// the URL fragment the server printed (`#token=…`, never sent to a server) and lives in session
// storage; every request carries it as a bearer token.
import { EventSourceParserStream } from 'eventsource-parser/stream';
import type {
  ApiError as ApiErrorBody,
  ApiErrorCode,
  ApiRoutes,
  HistoryQuery,
  StreamEvent,
  StreamRoutes,
} from '../../api-types.ts';

const TOKEN_KEY = 'chatfold.token';

/** Moves `#token=…` from the address bar into session storage (so it is not bookmarked or shared). */
export function adoptTokenFromLocation(): void {
  const match = /(?:^#|&)token=([^&]+)/.exec(window.location.hash);
  if (match?.[1] === undefined) return;
  sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
  const rest = window.location.hash.replace(/(^#|&)token=[^&]+/, '$1').replace(/^#&/, '#');
  history.replaceState(null, '', rest === '#' ? window.location.pathname : rest);
}

/** An error answer of the API, with its stable code. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** The API's code, or `E_HTTP` when the answer was not an API error body (a proxy, a crash). */
  readonly code: ApiErrorCode | 'E_HTTP';
  readonly status: number;

  constructor(status: number, code: ApiErrorCode | 'E_HTTP', message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function headers(json: boolean): Headers {
  const out = new Headers({ Accept: json ? 'application/json' : 'text/event-stream' });
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token !== null) out.set('Authorization', `Bearer ${token}`);
  return out;
}

async function failure(response: Response): Promise<ApiError> {
  try {
    const body = (await response.json()) as ApiErrorBody;
    return new ApiError(response.status, body.error.code, body.error.message);
  } catch {
    return new ApiError(response.status, 'E_HTTP', `${response.status} ${response.statusText}`);
  }
}

/** Calls a JSON endpoint; rejects with {@link ApiError}. */
export async function api<T>(
  path: string,
  options: { method?: string; body?: unknown; signal?: AbortSignal } = {},
): Promise<T> {
  const init: RequestInit = { method: options.method ?? 'GET', headers: headers(true) };
  if (options.body !== undefined) {
    (init.headers as Headers).set('Content-Type', 'application/json');
    init.body = JSON.stringify(options.body);
  }
  if (options.signal !== undefined) init.signal = options.signal;
  const response = await fetch(path, init);
  if (!response.ok) throw await failure(response);
  return (await response.json()) as T;
}

/**
 * POSTs and reads the answer as server-sent events, one {@link StreamEvent} at a time. Aborting
 * `signal` closes the stream, which stops the turn on the server.
 */
export async function* streamEvents(
  path: string,
  body: unknown,
  signal: AbortSignal,
): AsyncGenerator<StreamEvent> {
  const init: RequestInit = { method: 'POST', headers: headers(false), body: JSON.stringify(body), signal };
  (init.headers as Headers).set('Content-Type', 'application/json');
  const response = await fetch(path, init);
  if (!response.ok) throw await failure(response);
  if (response.body === null) throw new ApiError(response.status, 'E_HTTP', 'the server sent no stream');
  const events = response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream());
  const reader = events.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield JSON.parse(value.data) as StreamEvent;
    }
  } finally {
    reader.releaseLock();
  }
}

/** What a call of a route needs: the session id for `:id` routes, the body it takes, a query. */
type CallOptions<R extends keyof ApiRoutes> = (R extends `${string}:id${string}`
  ? { readonly id: string }
  : { readonly id?: never }) &
  (ApiRoutes[R]['body'] extends undefined
    ? { readonly body?: never }
    : { readonly body: ApiRoutes[R]['body'] }) & {
    readonly query?: R extends 'GET /api/sessions/:id/history' ? HistoryQuery : never;
    readonly signal?: AbortSignal;
  };

/** The URL path of a route (`:id` filled in, the query appended). */
function routePath(route: string, id: string | undefined, query?: HistoryQuery): string {
  // A HistoryQuery holds strings only.
  const path = route.slice(route.indexOf(' ') + 1).replace(':id', encodeURIComponent(id ?? ''));
  const search = query === undefined ? '' : new URLSearchParams({ ...query }).toString();
  return search === '' ? path : `${path}?${search}`;
}

/**
 * Calls a route of the API contract: the body and the answer are typed by `ApiRoutes`, the
 * same contract the server's routes answer through.
 *
 * @example
 * const { session } = await call('POST /api/sessions', { body: {} });
 * const view = await call('GET /api/sessions/:id', { id: session.id });
 */
export function call<R extends keyof ApiRoutes>(
  route: R,
  options: CallOptions<R>,
): Promise<ApiRoutes[R]['response']> {
  const method = route.slice(0, route.indexOf(' '));
  return api<ApiRoutes[R]['response']>(routePath(route, options.id, options.query), {
    method,
    ...(options.body === undefined ? {} : { body: options.body }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}

/** Streams a route of `StreamRoutes` (a turn, a summary, a regeneration) for a session. */
export function streamRoute<R extends keyof StreamRoutes>(
  route: R,
  id: string,
  body: StreamRoutes[R],
  signal: AbortSignal,
): AsyncGenerator<StreamEvent> {
  return streamEvents(routePath(route, id), body, signal);
}

/**
 * Stops the session's running turn or summary on the server (Stop, Cancel). Its stream stays
 * open until what was produced is stored, then ends with `done: aborted`.
 *
 * @returns false when nothing was running.
 */
export async function stopRun(sessionId: string): Promise<boolean> {
  const { stopped } = await call('POST /api/sessions/:id/stop', { id: sessionId, body: {} });
  return stopped;
}
