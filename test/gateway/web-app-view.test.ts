/**
 * A gateway conversation in the web app (issue 21): `chatfold serve` opened on the gateway's
 * store lists the conversation and shows its full history and its compactions.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, expect, it } from 'vitest';
import { createAgent } from '../../src/agent/create-agent.ts';
import { type GatewayServer, startGateway } from '../../src/gateway/index.ts';
import { sqliteStore } from '../../src/stores/sqlite/index.ts';
import { createRedactor } from '../../src/web/server/redact.ts';
import { startWebServer, type WebServer } from '../../src/web/server/start-web-server.ts';
import { type OpenAIUpstream, startOpenAIUpstream } from './openai-upstream.ts';

let upstream: OpenAIUpstream | undefined;
let gateway: GatewayServer | undefined;
let web: WebServer | undefined;
afterEach(async () => {
  await web?.close();
  await gateway?.close({ drainMs: 1_000 });
  await upstream?.close();
});

it('lists a gateway conversation and shows its full history and compactions', async () => {
  upstream = await startOpenAIUpstream();
  const file = join(mkdtempSync(join(tmpdir(), 'chatfold-gateway-web-')), 'chatfold.db');
  const gatewayStore = sqliteStore(file);
  gateway = await startGateway({
    upstream: `${upstream.url}/v1`,
    store: gatewayStore,
    port: 0,
    config: { window: 2_000 },
  });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'Be brief.' },
  ];
  let sessionId = '';
  for (let turn = 1; turn <= 30; turn++) {
    messages.push({ role: 'user', content: `Turn ${turn}: ${'tell me about the lighthouse '.repeat(10)}` });
    const { data, response } = await openai.chat.completions
      .create({ model: 'test-model', messages })
      .withResponse();
    messages.push(data.choices[0]?.message as OpenAI.Chat.Completions.ChatCompletionMessageParam);
    sessionId = response.headers.get('x-chatfold-session') as string;
  }

  const webStore = sqliteStore(file);
  web = await startWebServer({
    port: 0,
    store: webStore,
    agent: {
      name: 'viewer',
      model: {
        provider: 'openai-compatible',
        name: 'test-model',
        baseURL: `${upstream.url}/v1`,
        apiKey: 'x',
        maxInputTokens: 2_000,
      },
    },
    createAgent,
    modelId: 'test-model',
    modelLabel: 'openai-compatible:test-model',
    clientDir: undefined,
    redact: createRedactor([]),
    version: '0.0.0-test',
  });
  const api = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${web?.url}/api${path}`);
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  };
  const { sessions } = await api<{ sessions: { id: string }[] }>('/sessions');
  expect(sessions.map((session) => session.id)).toContain(sessionId);
  const history = await api<{ total: number; messages: unknown[] }>(
    `/sessions/${encodeURIComponent(sessionId)}/history?limit=200`,
  );
  expect(history.total).toBe(messages.length);
  expect(history.messages).toHaveLength(messages.length);
  const compactions = await api<{ compactions: unknown[] }>(
    `/sessions/${encodeURIComponent(sessionId)}/compactions`,
  );
  expect(compactions.compactions.length).toBeGreaterThan(0);
});
