import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type FakeProviderServer,
  type FakeRoute,
  startFakeProvider,
  vllmTokenize,
} from '../src/fake-provider/index.ts';
import { fakePieces, renderFakeChatML } from '../src/fake-provider/local-server/fake-tokenizer.ts';
import {
  createLlamaCppTokenCounter,
  createVllmTokenCounter,
} from '../src/integrations/count-tokens/index.ts';
import type { CountFallback } from '../src/integrations/count-tokens/provider-counter.ts';
import { toOpenAI } from '../src/messages/to-openai.ts';
import { buildConversation } from '../src/test/build-conversation.ts';
import { counterFor } from '../src/tokens/count-tokens.ts';

let server: FakeProviderServer;
let vllm: FakeProviderServer;
beforeAll(async () => {
  server = await startFakeProvider();
  vllm = await startFakeProvider({ routes: [vllmTokenize] });
});
beforeEach(() => {
  server.reset();
  vllm.reset();
});
afterAll(async () => {
  await server.close();
  await vllm.close();
});

const messages = buildConversation()
  .system('You are a careful assistant.')
  .user('What is the weather in Paris, in one word?')
  .build();
const tools = [
  {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
];
/** What the fake server's template and tokenizer make of a prompt (ChatML, word pieces). */
const served = (withTools: boolean) =>
  fakePieces(
    renderFakeChatML(
      toOpenAI(messages),
      withTools ? tools.map((tool) => ({ type: 'function', function: tool })) : undefined,
      true,
    ),
  ).length;

function recordFallbacks() {
  const fallbacks: CountFallback[] = [];
  return { fallbacks, onFallback: (fallback: CountFallback) => fallbacks.push(fallback) };
}

describe('llama.cpp server token counts over HTTP (TOK-3)', () => {
  it('renders with /apply-template, tokenizes with /tokenize (begin-of-text added) and reports exact', async () => {
    const counter = createLlamaCppTokenCounter({ baseURL: server.url, model: 'qwen3-8b' });
    const result = await counter.countExact(messages, { tools });
    expect(result).toMatchObject({
      total: served(true) + 1,
      accuracy: 'exact',
      tokenizer: 'llama.cpp:tokenize',
    });
    expect(server.requests.map((r) => r.path)).toEqual(['/apply-template', '/tokenize']);
    expect(server.requests[0]?.body).toMatchObject({
      model: 'qwen3-8b',
      messages: toOpenAI(messages),
      tools: [{ type: 'function', function: { name: 'get_weather' } }],
    });
    expect(server.requests[1]?.body).toMatchObject({ add_special: true, parse_special: true });
  });

  it('caches by content: the same conversation rebuilt asks the server once', async () => {
    const counter = createLlamaCppTokenCounter({ baseURL: `${server.url}/v1` });
    const first = await counter.countExact(messages);
    const again = await counter.countExact(structuredClone(messages));
    expect(again.total).toBe(first.total);
    expect(first.total).toBe(served(false) + 1);
    expect(server.requests).toHaveLength(2);
  });

  // No race against the clock: the 503 is answered to a counter whose timeout no loaded machine
  // reaches, and the timeout is tested against a server that never answers while the test runs.
  it('falls back to the local estimate with the reason: a server error', async () => {
    const { fallbacks, onFallback } = recordFallbacks();
    const fallback = counterFor('estimate:cl100k_base');
    const counter = createLlamaCppTokenCounter({
      baseURL: server.url,
      fallback,
      onFallback,
      timeoutMs: 60_000,
    });
    server.configure({ failures: [{ status: 503, message: 'Loading model' }] });
    expect(await counter.countExact(messages)).toEqual(fallback.count(messages));
    expect(fallbacks.map(({ reason, model, accuracy }) => ({ reason, model, accuracy }))).toEqual([
      {
        reason: '503 {"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}',
        model: 'llama.cpp',
        accuracy: 'calibrated',
      },
    ]);
    // A fallback is not remembered: once the model has loaded, the next count is exact.
    expect((await counter.countExact(messages)).accuracy).toBe('exact');
  });

  it('falls back to the local estimate with the reason: a server that does not answer in time', async () => {
    const { fallbacks, onFallback } = recordFallbacks();
    const counter = createLlamaCppTokenCounter({
      baseURL: server.url,
      fallback: counterFor('estimate:cl100k_base'),
      onFallback,
      timeoutMs: 100,
    });
    // Later than the test's own timeout: only the counter's timeout can end this count.
    server.configure({ latencyMs: 600_000 });
    expect((await counter.countExact(messages)).accuracy).toBe('calibrated');
    expect(fallbacks.map(({ reason, model, accuracy }) => ({ reason, model, accuracy }))).toEqual([
      { reason: 'timed out after 100 ms', model: 'llama.cpp', accuracy: 'calibrated' },
    ]);
  });

  it('refuses an answer of the wrong shape instead of counting it', async () => {
    const broken: FakeRoute[] = [
      {
        method: 'POST',
        path: /^\/apply-template$/,
        error: () => ({ status: 500, body: {} }),
        handle: () => ({ status: 200, body: { prompt: 'x' } }),
      },
      {
        method: 'POST',
        path: /^\/tokenize$/,
        error: () => ({ status: 500, body: {} }),
        handle: () => ({ status: 200, body: { tokens: 'many' } }),
      },
    ];
    const odd = await startFakeProvider({ routes: broken });
    try {
      const { fallbacks, onFallback } = recordFallbacks();
      const counter = createLlamaCppTokenCounter({ baseURL: odd.url, onFallback });
      // Without a model the default fallback is the approximate chars/4.
      expect((await counter.countExact(messages)).accuracy).toBe('approximate');
      expect(fallbacks[0]?.reason).toMatch(/^\/tokenize answered an unexpected shape: tokens: /);
    } finally {
      await odd.close();
    }
  });
});

describe('vLLM token counts over HTTP (TOK-3)', () => {
  it('asks POST /tokenize with the chat and the tools and reports its count as exact', async () => {
    const counter = createVllmTokenCounter({ baseURL: server.url, model: 'Qwen/Qwen3-8B' });
    expect(await counter.countExact(messages, { tools })).toMatchObject({
      total: served(true),
      accuracy: 'exact',
      tokenizer: 'vllm:tokenize',
    });
    expect(server.requests[0]).toMatchObject({
      path: '/tokenize',
      body: { model: 'Qwen/Qwen3-8B', add_generation_prompt: true, messages: toOpenAI(messages) },
    });
    // The synchronous methods are the model family's local counter (Qwen 3's calibrated stand-in).
    expect(counter.accuracy).toBe('calibrated');
  });

  it('falls back when the server does not serve the model (404 in vLLM’s shape), and sends the key', async () => {
    vllm.configure({ contextLimit: { 'Qwen/Qwen3-8B': 40_960 } });
    const { fallbacks, onFallback } = recordFallbacks();
    const counter = createVllmTokenCounter({
      baseURL: vllm.url,
      model: 'llama-3.1-8b',
      apiKey: 'sk-local',
      onFallback,
    });
    const result = await counter.countExact(messages);
    expect(result.accuracy).toBe('calibrated');
    expect(fallbacks[0]?.reason).toBe(
      '404 {"error":{"message":"The model `llama-3.1-8b` does not exist.","type":"NotFoundError","param":"model","code":404}}',
    );
    expect(vllm.requests[0]?.headers.authorization).toBe('Bearer sk-local');
  });

  it("rejects when the caller's own signal aborts (no silent fallback)", async () => {
    vllm.configure({ latencyMs: 1000 });
    const { fallbacks, onFallback } = recordFallbacks();
    const counter = createVllmTokenCounter({ baseURL: vllm.url, onFallback });
    const controller = new AbortController();
    const pending = counter.countExact(messages, { signal: controller.signal });
    controller.abort(new Error('user cancelled'));
    await expect(pending).rejects.toThrow('user cancelled');
    expect(fallbacks).toEqual([]);
  });
});
