// The browser side of the JSON API and its event streams. The access token (WEB-8) comes from
// the URL fragment the server printed (`#token=…`, never sent to a server) and lives in session
// storage; every request carries it as a bearer token.
import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { ApiError as ApiErrorBody, ApiErrorCode, StreamEvent } from '../../api-types.ts';

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

/** Path of a session's API resource. */
export const sessionPath = (id: string, rest = ''): string =>
  `/api/sessions/${encodeURIComponent(id)}${rest}`;

/**
 * Stops the session's running turn or summary on the server (Stop, Cancel). Its stream stays
 * open until what was produced is stored, then ends with `done: aborted`.
 *
 * @returns false when nothing was running.
 */
export async function stopRun(sessionId: string): Promise<boolean> {
  const { stopped } = await api<{ stopped: boolean }>(sessionPath(sessionId, '/stop'), {
    method: 'POST',
    body: {},
  });
  return stopped;
}
