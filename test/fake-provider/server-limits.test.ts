/**
 * The fake provider as a server people run (issue 9 §2), driven with raw sockets (node:net):
 * clients that leave mid-body, bodies over the limit (413 in each provider's error shape),
 * a bounded request log, header / request / keep-alive timeouts, and `content-type`.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type FakeProviderOptions,
  type FakeProviderServer,
  startFakeProvider,
} from '../../src/fake-provider/index.ts';

const servers: FakeProviderServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
const start = async (options: FakeProviderOptions = {}) => {
  const server = await startFakeProvider(options);
  servers.push(server);
  return server;
};

/** A raw HTTP response: status, lower-case headers, body text. */
interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

function parse(raw: string): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = raw.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: raw.slice(end + 4) };
}

/** Opens a socket to the server. */
function open(server: FakeProviderServer): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server sends until it closes the connection. */
function untilClosed(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(received));
  });
}

/** Sends raw bytes on a fresh connection and returns the parsed response once the server closes it. */
async function exchange(server: FakeProviderServer, ...pieces: (string | Buffer)[]): Promise<RawResponse> {
  const socket = await open(server);
  const closed = untilClosed(socket);
  for (const piece of pieces) socket.write(piece);
  return parse(await closed);
}

const ROUTES = {
  openai: { path: '/v1/chat/completions', headers: 'Authorization: Bearer k\r\n' },
  anthropic: { path: '/v1/messages', headers: 'x-api-key: k\r\nanthropic-version: 2023-06-01\r\n' },
  gemini: { path: '/v1beta/models/gemini-2.5-flash:generateContent', headers: 'x-goog-api-key: k\r\n' },
} as const;

const CHAT_BODIES = {
  openai: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
  anthropic: { model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
  gemini: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
} as const;

/** A request's head. */
const head = (
  provider: keyof typeof ROUTES,
  {
    length,
    type = 'application/json',
    extra = 'Connection: close\r\n',
  }: { length?: number; type?: string; extra?: string },
) =>
  `POST ${ROUTES[provider].path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${ROUTES[provider].headers}` +
  `${type === '' ? '' : `Content-Type: ${type}\r\n`}` +
  `${length === undefined ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${length}\r\n`}${extra}\r\n`;

const request = (
  provider: keyof typeof ROUTES,
  body: unknown,
  options: { type?: string; extra?: string } = {},
) => {
  const text = JSON.stringify(body);
  return head(provider, { length: Buffer.byteLength(text), ...options }) + text;
};

/** Each provider's own error shape for a status (their error bodies and `type` / `status` names). */
const ERROR_SHAPES = {
  openai: (type: string) => ({ error: { type, message: expect.any(String) } }),
  anthropic: (type: string) => ({ type: 'error', error: { type, message: expect.any(String) } }),
  gemini: (status: string) => ({ error: { status, message: expect.any(String) } }),
};

describe('a client that disconnects mid-body', () => {
  it('costs the server nothing: it keeps serving and records no half request', async () => {
    const server = await start();
    for (let i = 0; i < 20; i++) {
      const socket = await open(server);
      socket.write(`${head('openai', { length: 1000 })}{"model":"gpt-4o",`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      socket.destroy();
    }
    const response = await exchange(server, request('openai', CHAT_BODIES.openai));
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ choices: [{ message: { content: 'hi' } }] });
    expect(server.requests).toHaveLength(1);
  });
});

describe('body size limit', () => {
  const cases = [
    ['openai', 413, ERROR_SHAPES.openai('invalid_request_error')],
    ['anthropic', 413, ERROR_SHAPES.anthropic('request_too_large')],
    ['gemini', 413, ERROR_SHAPES.gemini('INVALID_ARGUMENT')],
  ] as const;
  for (const [provider, status, shape] of cases) {
    it(`${provider}: a declared length over the limit gets 413 in ${provider}'s error shape before any body is read`, async () => {
      const server = await start({ maxBodyBytes: 1000 });
      const response = await exchange(server, head(provider, { length: 200 * 2 ** 20 }));
      expect(response.status).toBe(status);
      expect(response.headers.connection).toBe('close');
      const body = JSON.parse(response.body);
      expect(body).toMatchObject(shape);
      expect(JSON.stringify(body)).toContain('exceeds the limit: 1000 bytes');
      expect(server.requests).toHaveLength(0);
    });
  }

  it('a chunked body that grows past the limit gets 413 and is not kept', async () => {
    const server = await start({ maxBodyBytes: 1000 });
    const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
    const response = await exchange(
      server,
      head('anthropic', {}),
      chunk(`{"model":"claude","max_tokens":1,"messages":[{"role":"user","content":"`),
      chunk('x'.repeat(800)),
      chunk('y'.repeat(800)),
    );
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toMatchObject(ERROR_SHAPES.anthropic('request_too_large'));
    expect(server.requests).toHaveLength(0);
  });

  it('a body of exactly the limit is served', async () => {
    const text = JSON.stringify(CHAT_BODIES.openai);
    const server = await start({ maxBodyBytes: Buffer.byteLength(text) });
    const response = await exchange(server, request('openai', CHAT_BODIES.openai));
    expect(response.status).toBe(200);
  });
});

describe('request log', () => {
  it('keeps only the most recent requests, by count', async () => {
    const server = await start({ requestLog: { maxRequests: 3 } });
    for (const content of ['1', '2', '3', '4', '5']) {
      const body = { model: 'gpt-4o', messages: [{ role: 'user', content }] };
      expect((await exchange(server, request('openai', body))).status).toBe(200);
    }
    expect(
      server.requests.map((r) => (r.body as { messages: { content: string }[] }).messages[0]?.content),
    ).toEqual(['3', '4', '5']);
  });

  it('keeps only the most recent bodies within the byte budget (the newest always)', async () => {
    const server = await start({ requestLog: { maxBodyBytes: 5000 } });
    for (const size of [3000, 3000, 1000, 9000]) {
      const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(size) }] };
      await exchange(server, request('openai', body));
      const kept = server.requests.map((r) => r.bodyBytes);
      expect(kept.length === 1 || kept.reduce((a, b) => a + b, 0) <= 5000).toBe(true);
    }
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.bodyBytes).toBeGreaterThan(9000);
  });
});

describe('timeouts', () => {
  const timeouts = { headersMs: 300, requestMs: 600, keepAliveMs: 300 };

  it('closes a connection whose headers never finish (408)', async () => {
    const server = await start({ timeouts });
    const sockets = await Promise.all(Array.from({ length: 20 }, () => open(server)));
    const closed = sockets.map((socket) => untilClosed(socket));
    for (const socket of sockets) socket.write('POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    for (const received of await Promise.all(closed)) expect(received).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes a connection whose body never finishes (408)', async () => {
    const server = await start({ timeouts });
    const response = await exchange(server, `${head('openai', { length: 100 })}{"model":`);
    expect(response.status).toBe(408);
    expect(server.requests).toHaveLength(0);
  });

  it('closes an idle keep-alive connection after answering', async () => {
    const server = await start({ timeouts });
    const response = await exchange(
      server,
      request('openai', CHAT_BODIES.openai, { extra: 'Connection: keep-alive\r\n' }),
    );
    // The server closed the connection (the exchange ended) after a complete answer.
    expect(response.status).toBe(200);
    expect(response.headers.connection).toBe('keep-alive');
    expect(JSON.parse(response.body)).toMatchObject({ object: 'chat.completion' });
  });
});

describe('content-type', () => {
  const cases = [
    ['openai', ERROR_SHAPES.openai('invalid_request_error')],
    ['anthropic', ERROR_SHAPES.anthropic('invalid_request_error')],
    ['gemini', ERROR_SHAPES.gemini('INVALID_ARGUMENT')],
  ] as const;
  for (const [provider, shape] of cases) {
    it(`${provider}: a body that is not declared JSON gets 415 in ${provider}'s error shape`, async () => {
      const server = await start();
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', '']) {
        const response = await exchange(server, request(provider, CHAT_BODIES[provider], { type }));
        expect(response.status).toBe(415);
        expect(JSON.parse(response.body)).toMatchObject(shape);
        expect(response.body).toContain('application/json');
      }
      expect(server.requests).toHaveLength(0);
    });
  }

  it('accepts application/json with a charset, in any case', async () => {
    const server = await start();
    const response = await exchange(
      server,
      request('gemini', CHAT_BODIES.gemini, { type: 'Application/JSON; charset=utf-8' }),
    );
    expect(response.status).toBe(200);
  });
});
