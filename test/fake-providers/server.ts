import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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

/** How the fake server behaves; change it between requests with `configure`. */
export interface FakeProviderBehaviour {
  /** Delay before answering, to test timeouts. */
  latencyMs: number;
  /** Failures answered one per request, in order, before successes resume. */
  failures: FakeFailure[];
  /** When set, every request fails like this (after `failures` are used up). */
  failAlways: FakeFailure | undefined;
  /** Tokens the server reports for a count request. Default: characters of the counted JSON / 4. */
  countTokens: (request: RecordedRequest) => number;
}

/** What a route answers. */
export interface FakeResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * One provider endpoint, in its own small module (`anthropic/count-tokens.ts`, …), so more
 * endpoints (OpenAI chat completions, Anthropic messages) plug in without touching the server.
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

/** A running fake provider on 127.0.0.1. */
export interface FakeProviderServer {
  /** Base URL, e.g. `http://127.0.0.1:43123`: pass it as the SDK's `baseURL`. */
  readonly url: string;
  /** Every request received, in order (count them to prove a cache hit). */
  readonly requests: RecordedRequest[];
  configure(change: Partial<FakeProviderBehaviour>): void;
  /** Clears recorded requests and restores the default behaviour. */
  reset(): void;
  close(): Promise<void>;
}

const defaultBehaviour = (): FakeProviderBehaviour => ({
  latencyMs: 0,
  failures: [],
  failAlways: undefined,
  countTokens: (request) => Math.ceil(JSON.stringify(request.body ?? '').length / 4),
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

/**
 * Starts a fake provider HTTP server on 127.0.0.1 (random port) that speaks the real wire
 * formats of the given routes, so tests drive the official SDKs over real HTTP. Bounded by
 * design: it only answers, never calls out, and `close()` ends every connection.
 *
 * @example
 * const server = await startFakeProvider([anthropicCountTokens, geminiCountTokens]);
 * server.configure({ failures: [{ status: 529 }] });
 */
export async function startFakeProvider(routes: readonly FakeRoute[]): Promise<FakeProviderServer> {
  const behaviour = defaultBehaviour();
  const requests: RecordedRequest[] = [];
  const respond = (res: ServerResponse, answer: FakeResponse): void => {
    if (res.destroyed) return;
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(JSON.stringify(answer.body));
  };
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
    let answer: FakeResponse = {
      status: 404,
      body: { error: { message: `no fake route for ${request.method} ${request.path}` } },
    };
    for (const route of routes) {
      const match = route.path.exec(request.path);
      if (match === null || route.method !== request.method) continue;
      const failure = behaviour.failures.shift() ?? behaviour.failAlways;
      if (failure === undefined) {
        answer = route.handle(request, { params: { ...match.groups }, behaviour });
      } else {
        const error = route.error(failure.status, failure.message ?? 'fake provider failure');
        answer =
          failure.retryAfter === undefined
            ? error
            : { ...error, headers: { ...error.headers, 'retry-after': String(failure.retryAfter) } };
      }
      break;
    }
    if (behaviour.latencyMs > 0) setTimeout(() => respond(res, answer), behaviour.latencyMs);
    else respond(res, answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    configure: (change) => Object.assign(behaviour, change),
    reset: () => {
      requests.length = 0;
      Object.assign(behaviour, defaultBehaviour());
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
