/**
 * `chatfold serve` and the gateway refuse a port that is taken with one typed error naming
 * the address (they wait for their socket through the same code).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/agent/create-agent.ts';
import { startGateway } from '../../src/gateway/index.ts';
import { memoryStore } from '../../src/stores/memory/index.ts';
import { createRedactor } from '../../src/web/server/redact.ts';
import { startWebServer } from '../../src/web/server/start-web-server.ts';

let taken: Server;
let port: number;

beforeEach(async () => {
  taken = createServer((_request, response) => response.end());
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  port = (taken.address() as AddressInfo).port;
});

afterEach(async () => {
  await new Promise<void>((resolve) => taken.close(() => resolve()));
});

const refusal = () => ({
  code: 'E_INVALID_OPTIONS',
  message: expect.stringMatching(new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\)`)),
  details: { host: '127.0.0.1', port },
});

describe('a port that is taken', () => {
  it('is E_INVALID_OPTIONS for chatfold serve', async () => {
    await expect(
      startWebServer({
        port,
        store: memoryStore(),
        agent: {
          name: 'a',
          model: { provider: 'openai-compatible', name: 'm', baseURL: 'http://127.0.0.1:9/v1', apiKey: 'x' },
        },
        createAgent,
        modelId: 'm',
        modelLabel: 'openai-compatible:m',
        clientDir: undefined,
        redact: createRedactor([]),
        version: '0.0.0-test',
      }),
    ).rejects.toMatchObject(refusal());
  });

  it('is E_INVALID_OPTIONS for the gateway', async () => {
    await expect(
      startGateway({
        upstream: 'http://127.0.0.1:9/v1',
        store: memoryStore(),
        port,
        config: { window: 2_000 },
      }),
    ).rejects.toMatchObject(refusal());
  });
});
