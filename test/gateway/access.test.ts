/**
 * Who may use a gateway, and how much (issue 21): without a token only loopback Hosts (a
 * DNS-rebinding page is refused); with a token every request carries it — as the client's API
 * key or as x-chatfold-token — and it never reaches the upstream; bodies over the limit are
 * refused in the client's own error format; /healthz needs nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/index.ts';
import { memoryStore } from '../../src/stores/memory/index.ts';
import { type OpenAIUpstream, startOpenAIUpstream } from './openai-upstream.ts';

let upstream: OpenAIUpstream;
beforeEach(async () => {
  upstream = await startOpenAIUpstream();
});
afterEach(async () => {
  await upstream.close();
});

const chat = JSON.stringify({ model: 'test-model', messages: [{ role: 'user', content: 'hi' }] });
const post = (headers: Record<string, string>, body = chat) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body,
});

describe('gateway access', () => {
  it('answers loopback Hosts only when it has no token', async () => {
    const { app } = createGateway({ upstream: `${upstream.url}/v1`, store: memoryStore() });
    const refused = await app.request(
      'http://evil.example/v1/chat/completions',
      post({ host: 'evil.example' }),
    );
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('E_FORBIDDEN_HOST');
    const ok = await app.request(
      'http://127.0.0.1:4000/v1/chat/completions',
      post({ host: '127.0.0.1:4000' }),
    );
    expect(ok.status).toBe(200);
  });

  it('needs the token, as the API key or x-chatfold-token, and never forwards it', async () => {
    const token = 'a-long-gateway-token-123';
    const { app } = createGateway({
      upstream: `${upstream.url}/v1`,
      store: memoryStore(),
      token,
      upstreamAuth: { type: 'passthrough' },
    });
    const url = 'http://gateway.internal/v1/chat/completions';
    const missing = await app.request(url, post({}));
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toContain('Bearer');
    const wrong = await app.request(url, post({ authorization: 'Bearer nope' }));
    expect(wrong.status).toBe(401);
    // As the API key: accepted, and not sent upstream.
    const asKey = await app.request(url, post({ authorization: `Bearer ${token}` }));
    expect(asKey.status).toBe(200);
    expect(upstream.requests.at(-1)?.headers.authorization).toBeUndefined();
    // As x-chatfold-token: the client's own key passes through to the upstream.
    const asHeader = await app.request(
      url,
      post({ 'x-chatfold-token': token, authorization: 'Bearer sk-client' }),
    );
    expect(asHeader.status).toBe(200);
    expect(upstream.requests.at(-1)?.headers.authorization).toBe('Bearer sk-client');
    expect(upstream.requests.at(-1)?.headers['x-chatfold-token']).toBeUndefined();
    const health = await app.request('http://gateway.internal/healthz');
    expect(health.status).toBe(200);
  });

  it('refuses a body over the limit in the client format', async () => {
    const { app } = createGateway({
      upstream: `${upstream.url}/v1`,
      store: memoryStore(),
      maxBodyBytes: 256,
    });
    const big = JSON.stringify({
      model: 'test-model',
      messages: [{ role: 'user', content: 'x'.repeat(1_000) }],
    });
    const openai = await app.request('http://127.0.0.1/v1/chat/completions', post({}, big));
    expect(openai.status).toBe(413);
    expect(((await openai.json()) as { error: { code: string } }).error.code).toBe('E_BODY_TOO_LARGE');
    const anthropic = await app.request('http://127.0.0.1/v1/messages', post({}, big));
    expect(anthropic.status).toBe(413);
    expect(await anthropic.json()).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });
  });
});
