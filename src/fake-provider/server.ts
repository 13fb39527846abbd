import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeAnswer, FakeChatRequest } from './chat-turn.ts';
import { defaultRespond } from './default-respond.ts';
import { readBody } from './read-body.ts';
import { RequestLog, type RequestLogLimits } from './request-log.ts';
import { FAKE_PROVIDER_ROUTES } from './routes.ts';
import type { FakeScript } from './script.ts';
import { writeResponse } from './write-response.ts';

/** One request the fake server received. */
export interface RecordedRequest {
  readonly method: string;
  /** Path without the query string, e.g. `/v1/messages/count_tokens`. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingMessage['headers'];
  /** Parsed JSON body, or the raw text when it is not JSON. */
  readonly body: unknown;
  /** Size of the body in bytes, as received. */
  readonly bodyBytes: number;
}

/** A failure to answer instead of the route's success. */
export interface FakeFailure {
  readonly status: number;
  readonly message?: string;
  /** Seconds, sent as `retry-after` (429s). */
  readonly retryAfter?: number;
}

/**
 * The largest prompt a model accepts, in tokens: one number for every model, or one per model
 * id (`'*'` for the rest). Longer prompts get the provider's real context-overflow error.
 */
export type FakeContextLimit = number | Readonly<Record<string, number>>;

/** How the fake server behaves; change it between requests with `configure`. */
export interface FakeProviderBehaviour {
  /** Delay before answering, to test timeouts. */
  latencyMs: number;
  /** Failures answered one per request, in order, before successes resume. */
  failures: FakeFailure[];
  /** When set, every request fails like this (after `failures` are used up). */
  failAlways: FakeFailure | undefined;
  /**
   * Tokens of a request's prompt, for count endpoints, reported usage and the context limit.
   * Default (`undefined`): chatfold's own counter for the model on the request's messages,
   * or characters of the JSON body / 4 when they do not parse.
   */
  countTokens: ((request: RecordedRequest) => number) | undefined;
  /** Context limit; `undefined` accepts any length. */
  contextLimit: FakeContextLimit | undefined;
  /** The model's answer. Default: a structured summary for chatfold's summarization prompt, else an echo. */
  respond: (request: FakeChatRequest) => FakeAnswer;
  /**
   * Rules tried before `respond`: the first that matches a chat call decides its answer (text,
   * tool calls, latency, failure). See {@link FakeScript}; `chatfold fake-provider --script`.
   */
  script: FakeScript | undefined;
}

/** When an answer's bytes go out: before the first byte, and between streamed events. */
export interface FakeTiming {
  readonly delayMs?: number;
  readonly chunkDelayMs?: number;
}

/** One server-sent event. `event` is omitted by OpenAI and Gemini, set by Anthropic. */
export interface SseEvent {
  readonly event?: string;
  readonly data: string;
}

/** What a route answers: a JSON body, or a stream of server-sent events, sent with `timing`. */
export type FakeResponse =
  | {
      readonly status: number;
      readonly body: unknown;
      readonly headers?: Readonly<Record<string, string>>;
      readonly timing?: FakeTiming;
    }
  | {
      readonly status: number;
      readonly events: readonly SseEvent[];
      readonly headers?: Readonly<Record<string, string>>;
      readonly timing?: FakeTiming;
    };

/**
 * One provider endpoint, in its own small module (`anthropic/count-tokens.ts`, …), so more
 * endpoints plug in without touching the server.
 */
export interface FakeRoute {
  readonly method: 'GET' | 'POST';
  /** Matched against the path; named groups become `params`. */
  readonly path: RegExp;
  /** The provider's real error body for a status (used for scheduled failures too). */
  error(status: number, message: string): FakeResponse;
  /** The success answer, or a validation error in the provider's real shape. */
  handle(request: RecordedRequest, context: RouteContext): FakeResponse;
}

/** What a route's handler gets besides the request. */
export interface RouteContext {
  readonly params: Readonly<Record<string, string>>;
  readonly behaviour: FakeProviderBehaviour;
}

/** Socket timeouts of the fake server, in milliseconds (Node's `http.Server` settings). */
export interface FakeServerTimeouts {
  /** Time to receive a request's headers (slow-header clients get 408). Default 10,000. */
  readonly headersMs?: number;
  /** Time to receive a whole request, body included. Default 60,000. */
  readonly requestMs?: number;
  /** How long an idle keep-alive connection stays open. Default 5,000. */
  readonly keepAliveMs?: number;
}

/** The server's bounds by default: body size, request log, timeouts. */
export const FAKE_SERVER_DEFAULTS = {
  /** 32 MiB, Anthropic's documented request limit for the Messages API. */
  maxBodyBytes: 32 * 2 ** 20,
  timeouts: { headersMs: 10_000, requestMs: 60_000, keepAliveMs: 5_000 },
} as const;

/** Options of {@link startFakeProvider}; every behaviour can also be changed later with `configure`. */
export interface FakeProviderOptions extends Partial<FakeProviderBehaviour> {
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  readonly port?: number;
  /** Default `127.0.0.1`. */
  readonly host?: string;
  /** The endpoints to serve. Default: every route in `FAKE_PROVIDER_ROUTES`. */
  readonly routes?: readonly FakeRoute[];
  /** Larger bodies get 413 in the route provider's error shape. Default 32 MiB. */
  readonly maxBodyBytes?: number;
  /** Bounds of `requests` (default: the last 1,000 requests, 64 MiB of bodies). */
  readonly requestLog?: RequestLogLimits;
  readonly timeouts?: FakeServerTimeouts;
}

/** A running fake provider. */
export interface FakeProviderServer {
  /**
   * Base URL, e.g. `http://127.0.0.1:43123`. OpenAI SDK: `baseURL: url + '/v1'`; Anthropic SDK:
   * `baseURL: url`; Google GenAI SDK: `httpOptions: { baseUrl: url }`.
   */
  readonly url: string;
  readonly port: number;
  /**
   * The requests received, in order (count them to prove a cache hit or a retry): the most
   * recent ones within the `requestLog` bounds. Requests refused for their size or content
   * type, or cut off by the client, are not recorded.
   */
  readonly requests: readonly RecordedRequest[];
  configure(change: Partial<FakeProviderBehaviour>): void;
  /** Clears recorded requests and restores the behaviour the server started with. */
  reset(): void;
  close(): Promise<void>;
}

const defaultBehaviour = (): FakeProviderBehaviour => ({
  latencyMs: 0,
  failures: [],
  failAlways: undefined,
  countTokens: undefined,
  contextLimit: undefined,
  respond: defaultRespond,
  script: undefined,
});

/** `application/json`, with or without parameters, or any `+json` type. */
const isJson = (contentType: string | undefined): boolean => {
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || type.endsWith('+json');
};

/** True when a request announces a body (a length above 0, or chunked). */
const hasBody = (req: IncomingMessage): boolean =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const withHeader = (answer: FakeResponse, name: string, value: string): FakeResponse => ({
  ...answer,
  headers: { ...answer.headers, [name]: value },
});

function findRoute(routes: readonly FakeRoute[], method: string, path: string) {
  for (const candidate of routes) {
    const match = candidate.path.exec(path);
    if (match !== null && candidate.method === method)
      return { route: candidate, params: { ...match.groups } };
  }
  return undefined;
}

function answer(
  found: { readonly route: FakeRoute; readonly params: Record<string, string> },
  request: RecordedRequest,
  behaviour: FakeProviderBehaviour,
): FakeResponse {
  const failure = behaviour.failures.shift() ?? behaviour.failAlways;
  if (failure === undefined) {
    try {
      return found.route.handle(request, { params: found.params, behaviour });
    } catch (error) {
      // A throwing `respond` or `countTokens` is the test's bug: say so in the provider's shape.
      return found.route.error(500, `fake provider handler failed: ${String(error)}`);
    }
  }
  const error = found.route.error(failure.status, failure.message ?? 'fake provider failure');
  return failure.retryAfter === undefined
    ? error
    : withHeader(error, 'retry-after', String(failure.retryAfter));
}

/** A route's error for a refused request, sent at once; the connection closes after it. */
function refuse(res: ServerResponse, route: FakeRoute, status: number, message: string): void {
  const error = withHeader(route.error(status, message), 'connection', 'close');
  if (res.destroyed || res.headersSent) return;
  const body = 'body' in error ? JSON.stringify(error.body) : '';
  res.writeHead(error.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...error.headers,
  });
  res.end(body);
}

/**
 * Starts a fake LLM provider HTTP server (default 127.0.0.1, random port) that speaks the real
 * wire formats of OpenAI Chat Completions, Anthropic Messages and Gemini generateContent,
 * including their count-tokens endpoints, streaming, context-overflow errors and scheduled
 * failures — so tests and demos drive the official SDKs over real HTTP without a key.
 * Bounded by design: it only answers, never calls out, and `close()` ends every connection.
 *
 * @param options port, routes and the initial behaviour (context limit, answers, failures).
 * @returns the running server; `configure` changes its behaviour between requests.
 * @example
 * const server = await startFakeProvider({ contextLimit: { 'gpt-4o': 128_000 } });
 * const openai = new OpenAI({ apiKey: 'fake', baseURL: `${server.url}/v1` });
 * server.configure({ failures: [{ status: 429, retryAfter: 1 }] });
 */
export async function startFakeProvider(options: FakeProviderOptions = {}): Promise<FakeProviderServer> {
  const {
    port = 0,
    host = '127.0.0.1',
    routes,
    maxBodyBytes = FAKE_SERVER_DEFAULTS.maxBodyBytes,
    requestLog: logLimits,
    timeouts = {},
    ...initial
  } = options;
  const served = routes ?? FAKE_PROVIDER_ROUTES;
  const startBehaviour = (): FakeProviderBehaviour => ({
    ...defaultBehaviour(),
    ...initial,
    failures: [...(initial.failures ?? [])],
    // A copy, so `times` counts start again after `reset()`.
    script: initial.script === undefined ? undefined : structuredClone(initial.script),
  });
  const behaviour = startBehaviour();
  const log = new RequestLog(logLimits);
  const closing = new AbortController();

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const found = findRoute(served, method, url.pathname);
    if (found === undefined) {
      const body = { error: { message: `no fake route for ${method} ${url.pathname}` } };
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      return;
    }
    const tooLarge = (bytes: string) =>
      refuse(
        res,
        found.route,
        413,
        `Request payload size exceeds the limit: ${maxBodyBytes} bytes (received ${bytes}).`,
      );
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > maxBodyBytes) return tooLarge(`${declared} bytes`);
    if (hasBody(req) && !isJson(req.headers['content-type'])) {
      const received = req.headers['content-type'] ?? 'no content-type';
      return refuse(
        res,
        found.route,
        415,
        `Unsupported content type ${JSON.stringify(received)}: send the body as application/json.`,
      );
    }
    const read = await readBody(req, maxBodyBytes);
    if (read.type === 'aborted') return;
    if (read.type === 'too-large') return tooLarge(`more than ${maxBodyBytes} bytes`);
    const request: RecordedRequest = {
      method,
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: parseBody(read.text),
      bodyBytes: read.bytes,
    };
    log.add(request);
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    await writeResponse(res, answer(found, request, behaviour), {
      latencyMs: behaviour.latencyMs,
      signal: AbortSignal.any([gone.signal, closing.signal]),
    });
  }

  const { headersMs, requestMs, keepAliveMs } = { ...FAKE_SERVER_DEFAULTS.timeouts, ...timeouts };
  const server = createServer(
    {
      headersTimeout: headersMs,
      requestTimeout: Math.max(requestMs, headersMs),
      keepAliveTimeout: keepAliveMs,
      // How often Node looks for connections past those timeouts (default 30 s).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersMs / 2))),
    },
    (req, res) => {
      serve(req, res).catch((error: unknown) => {
        // A bug of the fake itself: answer 500 if still possible, never end the process.
        if (res.headersSent || res.destroyed) res.destroy();
        else
          res
            .writeHead(500, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: { message: `fake provider failed: ${String(error)}` } }));
      });
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    requests: log.entries,
    configure: (change) =>
      Object.assign(
        behaviour,
        change,
        change.script === undefined ? {} : { script: structuredClone(change.script) },
      ),
    reset: () => {
      log.clear();
      Object.assign(behaviour, startBehaviour());
    },
    close: () =>
      new Promise<void>((resolve) => {
        closing.abort();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
