import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  anthropicCountTokens,
  type FakeProviderServer,
  startFakeProvider,
} from '../../src/fake-provider/index.ts';
import { createAnthropicTokenCounter } from '../../src/integrations/count-tokens/anthropic.ts';
import type { CountFallback } from '../../src/integrations/count-tokens/provider-counter.ts';
import { buildConversation } from '../../src/test/build-conversation.ts';
import { messages, tools } from './conversation.ts';

let server: FakeProviderServer;
beforeAll(async () => {
  server = await startFakeProvider({ routes: [anthropicCountTokens] });
});
beforeEach(() => server.reset());
afterAll(() => server.close());

function counterWith(extra: { timeoutMs?: number; onFallback?: (f: CountFallback) => void } = {}) {
  return createAnthropicTokenCounter({
    model: 'claude-sonnet-4-6',
    apiKey: 'test-key',
    baseURL: server.url,
    // Counts that must succeed get a timeout no loaded machine reaches; the timeout test sets its own.
    timeoutMs: 60_000,
    ...extra,
  });
}

describe('Anthropic count_tokens through @anthropic-ai/sdk over HTTP (TOK-4)', () => {
  it('posts the real request to /v1/messages/count_tokens and reports input_tokens as exact', async () => {
    server.configure({ countTokens: () => 321 });
    const counter = await counterWith();
    const result = await counter.countExact?.(messages, { tools });
    expect(result).toMatchObject({ total: 321, accuracy: 'exact', tokenizer: 'anthropic:count_tokens' });
    expect(result?.perMessage).toHaveLength(messages.length);
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/messages/count_tokens' });
    expect(request?.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(String(request?.headers['x-api-key'] ?? request?.headers.authorization)).toContain('test-key');
    expect(request?.body).toEqual({
      model: 'claude-sonnet-4-6',
      system: [{ type: 'text', text: 'You are terse.' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Read the config' }] },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'call_0', name: 'read_file', input: { path: 'config.json' } }],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'call_0',
              content: [{ type: 'text', text: '{"port": 5432}' }],
            },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'The port is 5432.' }] },
      ],
      tools: [
        {
          name: 'read_file',
          description: 'Read a file',
          input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
        },
      ],
    });
  });

  it('answers a repeated count from the cache without a request', async () => {
    server.configure({ countTokens: () => 99 });
    const counter = await counterWith();
    await counter.countExact?.(messages);
    const again = await counter.countExact?.(structuredClone(messages));
    expect(again).toMatchObject({ total: 99, accuracy: 'exact' });
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    [529, 'overloaded_error'],
    [500, 'api_error'],
    [429, 'rate_limit_error'],
    [401, 'authentication_error'],
  ])('falls back on %i with the real error body (%s), once, without retries', async (status, type) => {
    server.configure({ failAlways: { status, message: 'fake failure', retryAfter: 1 } });
    const fallbacks: CountFallback[] = [];
    const counter = await counterWith({ onFallback: (f) => fallbacks.push(f) });
    const result = await counter.countExact?.(messages);
    expect(result).toEqual(counter.count(messages));
    expect(result?.accuracy).toBe('calibrated');
    expect(server.requests).toHaveLength(1);
    expect(fallbacks).toHaveLength(1);
    expect(fallbacks[0]?.reason).toContain(String(status));
    expect(fallbacks[0]?.reason).toContain(type);
    expect(fallbacks[0]?.error).toBeInstanceOf(Anthropic.APIError);
  });

  // No race against the clock: the endpoint below never answers while the test runs, so only the
  // counter's timeout can end the count; recovery is shown after a failure, not after a timeout.
  it('falls back when the endpoint does not answer within the timeout', async () => {
    server.configure({ latencyMs: 600_000, countTokens: () => 7 });
    const fallbacks: CountFallback[] = [];
    const counter = await counterWith({ timeoutMs: 50, onFallback: (f) => fallbacks.push(f) });
    expect((await counter.countExact?.(messages))?.accuracy).toBe('calibrated');
    expect(fallbacks.map((f) => f.reason)).toEqual(['timed out after 50 ms']);
  });

  it('does not remember a fallback: once the endpoint recovers the next count is exact', async () => {
    server.configure({ failures: [{ status: 529, message: 'overloaded' }], countTokens: () => 7 });
    const fallbacks: CountFallback[] = [];
    const counter = await counterWith({ onFallback: (f) => fallbacks.push(f) });
    expect((await counter.countExact?.(messages))?.accuracy).toBe('calibrated');
    expect(await counter.countExact?.(messages)).toMatchObject({ total: 7, accuracy: 'exact' });
    expect(fallbacks).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });

  it('a request the API rejects (no messages besides the system prompt) falls back with its message', async () => {
    const fallbacks: CountFallback[] = [];
    const counter = await counterWith({ onFallback: (f) => fallbacks.push(f) });
    const onlySystem = buildConversation().system('Only a system prompt').build();
    expect((await counter.countExact?.(onlySystem))?.accuracy).toBe('calibrated');
    expect(fallbacks[0]?.reason).toMatch(/400.*invalid_request_error.*at least one message/);
  });

  it('accepts a ready client instead of apiKey/baseURL', async () => {
    server.configure({ countTokens: () => 12 });
    const client = new Anthropic({ apiKey: 'another-key', baseURL: server.url });
    const counter = await createAnthropicTokenCounter({ client, model: 'claude-haiku-4-5' });
    expect((await counter.countExact?.(messages))?.total).toBe(12);
    expect(server.requests[0]?.body).toMatchObject({ model: 'claude-haiku-4-5' });
  });
});
