import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  anthropicCountTokens,
  type FakeProviderServer,
  geminiCountTokens,
  startFakeProvider,
} from './index.ts';

let server: FakeProviderServer;
beforeAll(async () => {
  server = await startFakeProvider({ routes: [anthropicCountTokens, geminiCountTokens] });
});
beforeEach(() => server.reset());
afterAll(() => server.close());

const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as unknown };
};
const anthropicHeaders = { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' };
const countBody = { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hello' }] };

describe('fake provider server', () => {
  it('listens on 127.0.0.1 and records every request', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    server.configure({
      countTokens: (request) => (request.body as { messages: unknown[] }).messages.length * 10,
    });
    expect(await post('/v1/messages/count_tokens', countBody, anthropicHeaders)).toMatchObject({
      status: 200,
      body: { input_tokens: 10 },
    });
    expect(server.requests).toEqual([
      expect.objectContaining({ method: 'POST', path: '/v1/messages/count_tokens', body: countBody }),
    ]);
  });

  it('answers invalid Anthropic requests as the API does', async () => {
    expect(
      await post('/v1/messages/count_tokens', countBody, { 'anthropic-version': '2023-06-01' }),
    ).toMatchObject({
      status: 401,
      body: {
        type: 'error',
        error: { type: 'authentication_error' },
        request_id: expect.stringMatching(/^req_/),
      },
    });
    expect(
      await post('/v1/messages/count_tokens', { model: 'm', messages: [] }, anthropicHeaders),
    ).toMatchObject({
      status: 400,
      body: {
        type: 'error',
        error: { type: 'invalid_request_error', message: expect.stringMatching(/messages/) },
      },
    });
    const system = { model: 'm', messages: [{ role: 'system', content: 'x' }] };
    expect((await post('/v1/messages/count_tokens', system, anthropicHeaders)).body).toMatchObject({
      error: { message: "messages.0.role: Input should be 'user' or 'assistant'" },
    });
  });

  it('answers invalid Gemini requests as the API does', async () => {
    const path = '/v1beta/models/gemini-2.5-pro:countTokens';
    expect(await post(path, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] })).toMatchObject({
      status: 403,
      body: { error: { code: 403, status: 'PERMISSION_DENIED' } },
    });
    expect(await post(`${path}?key=k`, { contents: [] })).toMatchObject({
      status: 400,
      body: { error: { code: 400, status: 'INVALID_ARGUMENT' } },
    });
    expect(
      await post(`${path}?key=k`, { contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }),
    ).toMatchObject({ status: 400 });
    expect(
      await post(`${path}?key=k`, { contents: [{ role: 'user', parts: [{ text: 'x' }] }] }),
    ).toMatchObject({
      status: 200,
      body: { totalTokens: expect.any(Number) },
    });
  });

  it('fails scheduled requests in order with the route provider’s error body and retry-after', async () => {
    server.configure({ failures: [{ status: 429, retryAfter: 7 }, { status: 503 }] });
    const path = '/v1/models/gemini-2.5-pro:countTokens';
    const body = { contents: [{ parts: [{ text: 'x' }] }] };
    const first = await post(path, body, { 'x-goog-api-key': 'k' });
    expect(first).toMatchObject({ status: 429, body: { error: { status: 'RESOURCE_EXHAUSTED' } } });
    expect(first.headers.get('retry-after')).toBe('7');
    expect((await post(path, body, { 'x-goog-api-key': 'k' })).body).toMatchObject({
      error: { status: 'UNAVAILABLE' },
    });
    expect((await post(path, body, { 'x-goog-api-key': 'k' })).status).toBe(200);
  });

  it('answers unknown routes with 404', async () => {
    expect((await post('/v1/chat/completions', {})).status).toBe(404);
  });
});
