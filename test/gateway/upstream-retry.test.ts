/**
 * A kept-alive connection to the upstream that the upstream closed as the gateway reused it
 * (issue 21): nothing reached the model, so `sendUpstream` sends the request once more on a new
 * connection; any other failure is not retried.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { sendUpstream } from '../../src/gateway/upstream.ts';

const servers: ReturnType<typeof createServer>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

it('sends once more after the connection is reset before an answer', async () => {
  let requests = 0;
  const url = await serve((request, response) => {
    requests++;
    if (requests === 1) {
      request.socket.destroy();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"ok":true}');
  });
  const response = await sendUpstream({ url, headers: new Headers(), body: '{}' });
  expect(await response.json()).toEqual({ ok: true });
  expect(requests).toBe(2);
});

it('does not retry when the upstream keeps resetting, nor when nothing listens', async () => {
  let requests = 0;
  const url = await serve((request) => {
    requests++;
    request.socket.destroy();
  });
  await expect(sendUpstream({ url, headers: new Headers(), body: '{}' })).rejects.toBeInstanceOf(TypeError);
  expect(requests).toBe(2);
  await expect(
    sendUpstream({ url: 'http://127.0.0.1:9/v1', headers: new Headers(), body: '{}' }),
  ).rejects.toThrow();
});
