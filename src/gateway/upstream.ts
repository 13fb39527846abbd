/**
 * Calls the upstream model server (issue 21): the client's request with the projected prompt,
 * its own headers (minus hop-by-hop ones, the gateway's own and credentials), and the key the
 * gateway is configured to use. An error status becomes an {@link UpstreamError} that
 * `parseContextOverflow` reads (status and body), so an overflow is retried once.
 */

/** Which key reaches the upstream: the gateway's own, the client's, or none. */
export type UpstreamAuth =
  | { readonly type: 'key'; readonly key: string }
  | { readonly type: 'passthrough' }
  | { readonly type: 'none' };

/** Wire format of the upstream. */
export type UpstreamFormat = 'openai' | 'anthropic';

/** A non-2xx answer of the upstream, kept whole so the client can get it unchanged. */
export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';
  readonly status: number;
  /** The body as the upstream sent it (`parseContextOverflow` reads `responseBody`). */
  readonly responseBody: string;
  readonly headers: Headers;

  constructor(status: number, responseBody: string, headers: Headers) {
    super(`upstream answered ${status}: ${responseBody.slice(0, 2_000)}`);
    this.status = status;
    this.responseBody = responseBody;
    this.headers = headers;
  }
}

/** Request headers never forwarded: hop-by-hop, the gateway's own, and credentials (set by {@link UpstreamAuth}). */
const DROPPED_REQUEST = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'accept-encoding',
  'authorization',
  'x-api-key',
  'cookie',
  'proxy-authorization',
  'proxy-connection',
  'origin',
  'referer',
]);

/** Response headers not passed back: the body is re-sent decoded and with its own framing. */
const DROPPED_RESPONSE = new Set([
  'connection',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'keep-alive',
  'trailer',
  'upgrade',
]);

/**
 * The headers to send upstream.
 *
 * @param incoming The client's request headers.
 * @param auth Which key to send.
 * @param format `authorization: Bearer` for OpenAI-compatible servers, `x-api-key` for Anthropic.
 */
export function upstreamHeaders(incoming: Headers, auth: UpstreamAuth, format: UpstreamFormat): Headers {
  const headers = new Headers();
  for (const [name, value] of incoming) {
    const lower = name.toLowerCase();
    if (DROPPED_REQUEST.has(lower) || lower.startsWith('x-chatfold-') || lower.startsWith('sec-')) continue;
    headers.set(name, value);
  }
  headers.set('content-type', 'application/json');
  if (auth.type === 'key') {
    if (format === 'anthropic') headers.set('x-api-key', auth.key);
    else headers.set('authorization', `Bearer ${auth.key}`);
  } else if (auth.type === 'passthrough') {
    const authorization = incoming.get('authorization');
    const apiKey = incoming.get('x-api-key');
    if (authorization !== null) headers.set('authorization', authorization);
    if (apiKey !== null) headers.set('x-api-key', apiKey);
  }
  return headers;
}

/** The upstream's response headers a client may see. */
export function passedResponseHeaders(upstream: Headers): Headers {
  const headers = new Headers();
  for (const [name, value] of upstream) {
    if (!DROPPED_RESPONSE.has(name.toLowerCase())) headers.set(name, value);
  }
  return headers;
}

/** The upstream's response as the client gets it unchanged: its status and body, the headers it may see. */
export function passedResponse(upstream: Response): Response {
  return new Response(upstream.body, {
    status: upstream.status,
    headers: passedResponseHeaders(upstream.headers),
  });
}

/** Joins a base URL (`http://127.0.0.1:11434/v1`) and a path below it (`/chat/completions`). */
export function upstreamUrl(baseUrl: string, path: string, search = ''): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}${search}`;
}

/** Socket errors of a reused keep-alive connection that the server had closed. */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

function isStaleConnection(error: unknown): boolean {
  if (!(error instanceof TypeError)) return false;
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && STALE_CONNECTION.has(code);
}

/** Options of {@link sendUpstream}. */
export interface SendUpstreamOptions {
  readonly url: string;
  readonly method?: string;
  readonly headers: Headers;
  readonly body?: string;
  readonly signal?: AbortSignal;
  readonly fetch?: typeof fetch;
}

/**
 * Sends one request upstream.
 *
 * A connection reset before any answer (a kept-alive connection the upstream closed) is
 * retried once on a new connection.
 *
 * @returns The response when its status is 2xx (its body not read yet).
 * @throws UpstreamError for any other status, with the body read.
 */
export async function sendUpstream({
  url,
  method = 'POST',
  headers,
  body,
  signal,
  fetch: fetchImpl = fetch,
}: SendUpstreamOptions): Promise<Response> {
  const init = {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
    ...(signal === undefined ? {} : { signal }),
  };
  let response: Response;
  try {
    response = await fetchImpl(url, init);
  } catch (error) {
    // A kept-alive connection the upstream closed just as it was reused: nothing reached the
    // model, so the request is sent once more on a new connection.
    if (!isStaleConnection(error) || signal?.aborted === true) throw error;
    response = await fetchImpl(url, init);
  }
  if (response.ok) return response;
  throw new UpstreamError(response.status, await response.text(), response.headers);
}
