import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type FakeProviderServer,
  geminiCountTokens,
  startFakeProvider,
} from '../../src/fake-provider/index.ts';
import {
  createGeminiTokenCounter,
  type GeminiCountClient,
} from '../../src/integrations/count-tokens/gemini.ts';
import type { CountFallback } from '../../src/integrations/count-tokens/provider-counter.ts';
import { counterFor } from '../../src/tokens/count-tokens.ts';
import { messages, tools } from './conversation.ts';

let server: FakeProviderServer;
beforeAll(async () => {
  server = await startFakeProvider({ routes: [geminiCountTokens] });
});
beforeEach(() => server.reset());
afterAll(() => server.close());

function counterWith(extra: { timeoutMs?: number; onFallback?: (f: CountFallback) => void } = {}) {
  return createGeminiTokenCounter({
    model: 'gemini-2.5-pro',
    apiKey: 'g-key',
    baseURL: server.url,
    // Counts that must succeed get a timeout no loaded machine reaches; the timeout test sets its own.
    timeoutMs: 60_000,
    ...extra,
  });
}

describe('Gemini countTokens through @google/genai over HTTP (TOK-4)', () => {
  it('posts contents to /v1(beta)/models/{model}:countTokens and reports totalTokens as exact', async () => {
    server.configure({ countTokens: () => 210 });
    const counter = await counterWith();
    const result = await counter.countExact?.(messages);
    expect(result).toMatchObject({ total: 210, accuracy: 'exact', tokenizer: 'google:count_tokens' });
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    // @google/genai 3.x calls the stable `v1` surface; 1.x–2.x called `v1beta`. Both exist.
    expect(request?.method).toBe('POST');
    expect(request?.path).toMatch(/^\/v1(beta)?\/models\/gemini-2\.5-pro:countTokens$/);
    expect(request?.headers['x-goog-api-key']).toBe('g-key');
    const { contents } = (request?.body ?? {}) as {
      contents: { role: string; parts: Record<string, unknown>[] }[];
    };
    // The Developer API takes no systemInstruction in countTokens: it leads the first user turn.
    expect(contents[0]).toEqual({
      role: 'user',
      parts: [{ text: 'You are terse.' }, { text: 'Read the config' }],
    });
    expect(contents[1]?.parts[0]).toMatchObject({
      functionCall: { name: 'read_file', args: { path: 'config.json' } },
    });
    expect(contents[2]?.parts[0]).toMatchObject({ functionResponse: { name: 'read_file' } });
    expect(contents.map((c) => c.role)).toEqual(['user', 'model', 'user', 'model']);
  });

  it('adds locally counted tool definitions (the Developer API cannot count them)', async () => {
    server.configure({ countTokens: () => 100 });
    const counter = await counterWith();
    const result = await counter.countExact?.(messages, { tools });
    expect(result?.total).toBe(100 + counterFor('google:gemini').count([], { tools }).tools);
  });

  it('answers a repeated count from the cache without a request', async () => {
    const counter = await counterWith();
    await counter.countExact?.(messages);
    await counter.countExact?.(structuredClone(messages));
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    [503, 'UNAVAILABLE'],
    [500, 'INTERNAL'],
    [429, 'RESOURCE_EXHAUSTED'],
  ])('falls back on %i with the real Google error body (%s)', async (status, code) => {
    server.configure({ failures: [{ status, message: 'fake failure' }] });
    const fallbacks: CountFallback[] = [];
    const counter = await counterWith({ onFallback: (f) => fallbacks.push(f) });
    expect((await counter.countExact?.(messages))?.accuracy).toBe('calibrated');
    expect(fallbacks[0]?.reason).toContain(code);
    expect(server.requests).toHaveLength(1);
    // The failure was one-off: the next count is exact.
    expect((await counter.countExact?.(messages))?.accuracy).toBe('exact');
  });

  it('falls back when the endpoint is slower than the timeout', async () => {
    // An answer 60 s away: if the timeout did not cut the request, the test itself would time out.
    server.configure({ latencyMs: 60_000 });
    const fallbacks: CountFallback[] = [];
    const counter = await counterWith({ timeoutMs: 50, onFallback: (f) => fallbacks.push(f) });
    expect((await counter.countExact?.(messages))?.accuracy).toBe('calibrated');
    expect(fallbacks.map((f) => f.reason)).toEqual(['timed out after 50 ms']);
  });

  it('gives a Vertex AI client the system instruction and tools natively', async () => {
    const calls: Parameters<GeminiCountClient['models']['countTokens']>[0][] = [];
    const client: GeminiCountClient = {
      vertexai: true,
      models: {
        countTokens: async (params) => {
          calls.push(params);
          return { totalTokens: 77 };
        },
      },
    };
    const counter = await createGeminiTokenCounter({ client, model: 'gemini-2.5-flash' });
    expect((await counter.countExact?.(messages, { tools }))?.total).toBe(77);
    expect(calls[0]?.config).toMatchObject({
      systemInstruction: expect.anything(),
      tools: [{ functionDeclarations: [{ name: 'read_file', description: 'Read a file' }] }],
    });
    expect(((calls[0]?.contents ?? []) as { role: string }[])[0]).toMatchObject({ role: 'user' });
  });
});
