import { createServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/agent/create-agent.ts';
import type { ChatfoldError } from '../../src/errors/chatfold-error.ts';
import { memoryStore } from '../../src/stores/memory/index.ts';
import {
  type HttpLimits,
  httpServerOptions,
  limitConnections,
  resolveHttpLimits,
} from '../../src/web/server/connection-limits.ts';
import { createRedactor } from '../../src/web/server/redact.ts';
import { startWebServer, type WebServer } from '../../src/web/server/start-web-server.ts';

// Issue 24, part 6: idle connections that never finish their headers (or never send a byte)
// cannot stop `chatfold serve` answering. Real server on 127.0.0.1, small caps so it is quick.

let server: WebServer | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await server?.close();
  server = undefined;
});

async function startServe(limits: HttpLimits): Promise<WebServer> {
  server = await startWebServer({
    port: 0,
    limits,
    store: memoryStore(),
    agent: {
      name: 'test-agent',
      // Never called: the test asks for /api/info only.
      model: { provider: 'openai-compatible', name: 'none', baseURL: 'http://127.0.0.1:9/v1', apiKey: 'x' },
    },
    createAgent,
    modelId: 'none',
    modelLabel: 'openai-compatible:none',
    clientDir: undefined,
    redact: createRedactor([]),
    version: '0.0.0-test',
  });
  return server;
}

/** Opens a socket and sends `prefix` (an unfinished request, or nothing); resolves once connected. */
function openIdle(port: number, prefix: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      if (prefix !== '') socket.write(prefix);
      resolve(socket);
    });
    socket.on('error', () => {});
    socket.once('error', reject);
    sockets.push(socket);
  });
}

const closed = (socket: Socket): Promise<void> =>
  socket.destroyed || socket.readyState === 'closed'
    ? Promise.resolve()
    : new Promise((resolve) => socket.once('close', () => resolve()));

/**
 * Awaits `promise`; if it has not settled well before the test's own timeout, fails naming the
 * step and the state `state` reads (a liveness report, not a speed check).
 */
async function step<T>(what: string, promise: Promise<T>, state: () => unknown): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: not after 20 s; ${JSON.stringify(state())}`)),
      20_000,
    );
  });
  try {
    return await Promise.race([promise, stuck]);
  } finally {
    clearTimeout(timer);
  }
}

describe('chatfold serve keeps answering (issue 24)', () => {
  it('with many more idle sockets than its caps open, a normal request is still answered', async () => {
    const web = await startServe({ maxConnections: 20, maxConnectionsPerAddress: 10 });
    // 60 sockets: a third send nothing, the rest start a request and never finish its headers.
    for (let i = 0; i < 60; i++) {
      await openIdle(web.port, i % 3 === 0 ? '' : 'GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    }
    const response = await fetch(`${web.url}/api/info`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ version: '0.0.0-test' });
    const counts = web.connections();
    expect(counts.open).toBeLessThanOrEqual(10);
    expect(counts.evicted).toBeGreaterThanOrEqual(50);
  });

  it('closes a socket that sends nothing, and one that trickles its headers, after headersTimeoutMs', async () => {
    const web = await startServe({ headersTimeoutMs: 200, requestTimeoutMs: 400 });
    const silent = await openIdle(web.port, '');
    const trickling = await openIdle(web.port, 'GET /api/info HTTP/1.1\r\n');
    const drip = setInterval(() => trickling.writable && trickling.write('X-A: b\r\n'), 20);
    // Without the limits both stay open (Node never times a connection that sent no byte).
    // Each step says where it stopped if it does not finish (this test once hung in a full run).
    await step('both sockets closed', Promise.all([closed(silent), closed(trickling)]), () => ({
      counts: web.connections(),
      silent: silent.readyState,
      trickling: trickling.readyState,
    }));
    clearInterval(drip);
    expect(web.connections().timedOut).toBeGreaterThanOrEqual(1);
    const response = await step('GET /api/info answered', fetch(`${web.url}/api/info`), () => ({
      counts: web.connections(),
    }));
    expect(response.status).toBe(200);
  });

  it('a busy connection (a streaming answer) is never evicted; a new one is refused instead', async () => {
    // A plain Node server with the same helper, as a gateway would use it.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const plain = createServer(httpServerOptions(), (request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('streaming');
      if (request.url === '/hold') void held.then(() => response.end());
      else response.end();
    });
    const counts = limitConnections(plain, { maxConnections: 2, maxConnectionsPerAddress: 2 });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const { port } = plain.address() as { port: number };
    const streams = [0, 1].map(() => {
      const controller = new AbortController();
      return {
        controller,
        response: fetch(`http://127.0.0.1:${port}/hold`, { signal: controller.signal }),
      };
    });
    for (const stream of streams) expect((await stream.response).status).toBe(200);
    // Both connections are busy: the third cannot evict them and is refused.
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
    expect(counts()).toMatchObject({ open: 2, refused: 1, evicted: 0 });
    release();
    for (const stream of streams) await (await stream.response).text();
    plain.closeAllConnections();
    await new Promise((resolve) => plain.close(resolve));
  });

  it('a response that streams longer than requestTimeoutMs is not cut (the timeout is for receiving the request)', async () => {
    const limits = { headersTimeoutMs: 100, requestTimeoutMs: 200 };
    const plain = createServer(httpServerOptions(limits), (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('first\n');
      // Several checking intervals past the request timeout.
      setTimeout(() => response.end('last\n'), 1_000);
    });
    limitConnections(plain, limits);
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const { port } = plain.address() as { port: number };
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('first\nlast\n');
    plain.closeAllConnections();
    await new Promise((resolve) => plain.close(resolve));
  });

  it('refuses limits that are not positive integers, or a headers timeout over the request timeout', () => {
    for (const limits of [{ maxConnections: 0 }, { headersTimeoutMs: 1.5 }, { requestTimeoutMs: -1 }]) {
      expect(() => resolveHttpLimits(limits)).toThrow(
        expect.objectContaining({ code: 'E_INVALID_OPTIONS' }) as ChatfoldError,
      );
    }
    expect(() => resolveHttpLimits({ headersTimeoutMs: 5000, requestTimeoutMs: 1000 })).toThrow(
      /must not exceed/,
    );
  });
});
