// Test harness of the web app's in-process API tests (WEB-1..8): the real Hono app over a real
// store, turning through the real agent runtime against chatfold's fake provider over HTTP.
import { createAgent } from '../../src/agent/create-agent.ts';
import type { AgentOptions } from '../../src/agent/types.ts';
import { type FakeProviderServer, startFakeProvider } from '../../src/fake-provider/index.ts';
import type { FakeScript } from '../../src/fake-provider/script.ts';
import { memoryStore } from '../../src/stores/memory/index.ts';
import type { Store } from '../../src/stores/types.ts';
import type { StreamEvent, WireSession } from '../../src/web/api-types.ts';
import { createWebApp, type WebAppOptions } from '../../src/web/server/create-web-app.ts';
import { createRedactor } from '../../src/web/server/redact.ts';
import type { WebStore } from '../../src/web/server/web-store.ts';

/** The origin the tests' "browser" sends. */
export const ORIGIN = 'http://127.0.0.1:8080';

/** A key the fake provider accepts; the tests check it never leaves the server. */
export const FAKE_API_KEY = 'sk-test-fake-provider-key-0123456789';

/** Options of {@link startWebHarness}. */
export interface WebHarnessOptions {
  readonly store?: Store;
  readonly token?: string;
  readonly script?: FakeScript;
  /** The model's window (small, so compaction shows after a few turns). Default 6,000. */
  readonly window?: number;
  readonly agent?: Partial<Omit<AgentOptions, 'store' | 'session'>>;
  readonly app?: Partial<WebAppOptions>;
}

/** A running app and its fake provider. */
export interface WebHarness {
  readonly fake: FakeProviderServer;
  readonly store: WebStore;
  readonly app: ReturnType<typeof createWebApp>['app'];
  readonly pool: ReturnType<typeof createWebApp>['pool'];
  /** A request as the page sends it: JSON, same origin, the token when there is one. */
  request(
    path: string,
    init?: { method?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<Response>;
  /** Creates a session and returns it. */
  createSession(title?: string): Promise<WireSession>;
  /** POSTs and reads the whole event stream. */
  stream(path: string, body: unknown): Promise<StreamEvent[]>;
  close(): Promise<void>;
}

/** Parses a `text/event-stream` body into the app's events (`event:` must equal `data.type`). */
export function parseEventStream(text: string): StreamEvent[] {
  const events: StreamEvent[] = [];
  for (const block of text.split('\n\n')) {
    const lines = block.split('\n');
    const name = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length);
    const data = lines
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice('data: '.length))
      .join('\n');
    if (name === undefined || data === '') continue;
    const event = JSON.parse(data) as StreamEvent;
    if (event.type !== name) throw new Error(`event ${name} carries data of type ${event.type}`);
    events.push(event);
  }
  return events;
}

/** Starts the fake provider and the web app over a store (default: in memory). */
export async function startWebHarness(options: WebHarnessOptions = {}): Promise<WebHarness> {
  const fake = await startFakeProvider(options.script === undefined ? {} : { script: options.script });
  const store = (options.store ?? memoryStore()) as WebStore;
  const { app, pool } = createWebApp({
    store,
    agent: {
      name: 'test-agent',
      model: {
        provider: 'openai-compatible',
        name: 'chatfold-fake',
        baseURL: `${fake.url}/v1`,
        apiKey: FAKE_API_KEY,
        maxInputTokens: options.window ?? 6000,
        maxOutputTokens: 1024,
      },
      instructions: 'You are a test assistant.',
      ...options.agent,
    },
    createAgent,
    modelId: 'chatfold-fake',
    modelLabel: 'openai-compatible:chatfold-fake',
    allowedOrigins: [ORIGIN],
    clientDir: undefined,
    redact: createRedactor([FAKE_API_KEY, options.token]),
    version: '0.0.0-test',
    ...(options.token === undefined ? {} : { token: options.token }),
    ...options.app,
  });
  const request: WebHarness['request'] = (path, init = {}) => {
    const headers: Record<string, string> = { origin: ORIGIN, ...init.headers };
    if (options.token !== undefined && headers.authorization === undefined)
      headers.authorization = `Bearer ${options.token}`;
    if (init.body !== undefined) headers['content-type'] ??= 'application/json';
    return Promise.resolve(
      app.request(path, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers,
        ...(init.body === undefined
          ? {}
          : { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) }),
      }),
    );
  };
  return {
    fake,
    store,
    app,
    pool,
    request,
    async createSession(title) {
      const response = await request('/api/sessions', { body: title === undefined ? {} : { title } });
      if (response.status !== 201)
        throw new Error(`create session: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { session: WireSession }).session;
    },
    async stream(path, body) {
      const response = await request(path, { body });
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return parseEventStream(await response.text());
    },
    async close() {
      await fake.close();
      await store.close();
    },
  };
}

/** A message of about `tokens` tokens (chars/4), with a marker to find it again. */
export function filler(marker: string, tokens: number): string {
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
  let text = `${marker}:`;
  for (let i = 0; text.length < tokens * 4; i++) text += ` ${words[i % words.length]}`;
  return text;
}
