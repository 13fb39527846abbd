import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeAnswer, FakeChatRequest } from './chat-turn.ts';
import { defaultRespond } from './default-respond.ts';
import { FAKE_PROVIDER_ROUTES } from './routes.ts';

/** One request the fake server received. */
export interface RecordedRequest {
  readonly method: string;
  /** Path without the query string, e.g. `/v1/messages/count_tokens`. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingMessage['headers'];
  /** Parsed JSON body, or the raw text when it is not JSON. */
  readonly body: unknown;
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
}

/** One server-sent event. `event` is omitted by OpenAI and Gemini, set by Anthropic. */
export interface SseEvent {
  readonly event?: string;
  readonly data: string;
}

/** What a route answers: a JSON body, or a stream of server-sent events. */
export type FakeResponse =
  | { readonly status: number; readonly body: unknown; readonly headers?: Readonly<Record<string, string>> }
  | {
      readonly status: number;
      readonly events: readonly SseEvent[];
      readonly headers?: Readonly<Record<string, string>>;
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

/** Options of {@link startFakeProvider}; every behaviour can also be changed later with `configure`. */
export interface FakeProviderOptions extends Partial<FakeProviderBehaviour> {
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  readonly port?: number;
  /** Default `127.0.0.1`. */
  readonly host?: string;
  /** The endpoints to serve. Default: every route in `FAKE_PROVIDER_ROUTES`. */
  readonly routes?: readonly FakeRoute[];
}

/** A running fake provider. */
export interface FakeProviderServer {
  /**
   * Base URL, e.g. `http://127.0.0.1:43123`. OpenAI SDK: `baseURL: url + '/v1'`; Anthropic SDK:
   * `baseURL: url`; Google GenAI SDK: `httpOptions: { baseUrl: url }`.
   */
  readonly url: string;
  readonly port: number;
  /** Every request received, in order (count them to prove a cache hit or a retry). */
  readonly requests: RecordedRequest[];
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
});

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function write(res: ServerResponse, answer: FakeResponse): void {
  if (res.destroyed) return;
  if ('events' in answer) {
    res.writeHead(answer.status, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      ...answer.headers,
    });
    for (const { event, data } of answer.events)
      res.write(`${event === undefined ? '' : `event: ${event}\n`}data: ${data}\n\n`);
    res.end();
    return;
  }
  res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
  res.end(JSON.stringify(answer.body));
}

function route(
  routes: readonly FakeRoute[],
  request: RecordedRequest,
  behaviour: FakeProviderBehaviour,
): FakeResponse {
  for (const candidate of routes) {
    const match = candidate.path.exec(request.path);
    if (match === null || candidate.method !== request.method) continue;
    const failure = behaviour.failures.shift() ?? behaviour.failAlways;
    if (failure === undefined) {
      try {
        return candidate.handle(request, { params: { ...match.groups }, behaviour });
      } catch (error) {
        // A throwing `respond` or `countTokens` is the test's bug: say so in the provider's shape.
        return candidate.error(500, `fake provider handler failed: ${String(error)}`);
      }
    }
    const error = candidate.error(failure.status, failure.message ?? 'fake provider failure');
    return failure.retryAfter === undefined
      ? error
      : { ...error, headers: { ...error.headers, 'retry-after': String(failure.retryAfter) } };
  }
  return { status: 404, body: { error: { message: `no fake route for ${request.method} ${request.path}` } } };
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
  const { port = 0, host = '127.0.0.1', routes, ...initial } = options;
  const served = routes ?? FAKE_PROVIDER_ROUTES;
  const startBehaviour = (): FakeProviderBehaviour => ({
    ...defaultBehaviour(),
    ...initial,
    failures: [...(initial.failures ?? [])],
  });
  const behaviour = startBehaviour();
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const request: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: await readBody(req),
    };
    requests.push(request);
    const answer = route(served, request, behaviour);
    if (behaviour.latencyMs > 0) setTimeout(() => write(res, answer), behaviour.latencyMs);
    else write(res, answer);
  });
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
    requests,
    configure: (change) => Object.assign(behaviour, change),
    reset: () => {
      requests.length = 0;
      Object.assign(behaviour, startBehaviour());
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
