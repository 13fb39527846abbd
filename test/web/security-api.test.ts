// WEB-8: token on every API call, Origin and Host checks, CSP, bounded bodies, bind rules,
// and provider keys that never reach the browser.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, isLoopbackHost } from '../../src/web/server/security.ts';
import { checkBind } from '../../src/web/server/start-web-server.ts';
import { FAKE_API_KEY, startWebHarness, type WebHarness } from './harness.ts';

const TOKEN = 'test-token-0123456789abcdef';

describe('access token (WEB-8)', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWebHarness({ token: TOKEN });
  });
  afterAll(async () => {
    await web.close();
  });

  it('answers every API route 401 without the token or with a wrong one', async () => {
    for (const authorization of [
      undefined,
      'Bearer wrong-token-0123456789abc',
      `Basic ${TOKEN}`,
      `Bearer ${TOKEN}x`,
    ]) {
      for (const [method, path] of [
        ['GET', '/api/info'],
        ['GET', '/api/sessions'],
        ['POST', '/api/sessions'],
        ['GET', '/api/settings'],
        ['PUT', '/api/settings'],
      ] as const) {
        const response = await web.app.request(path, {
          method,
          headers: {
            'content-type': 'application/json',
            ...(authorization === undefined ? {} : { authorization }),
          },
          ...(method === 'GET' ? {} : { body: '{}' }),
        });
        expect(response.status, `${method} ${path} with ${authorization}`).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('E_UNAUTHORIZED');
      }
    }
    expect((await web.store.listSessions()).length).toBe(0);
  });

  it('works with the token, from any Host (a non-loopback bind)', async () => {
    const response = await web.app.request('http://192.0.2.10:8080/api/sessions', {
      headers: { authorization: `Bearer ${TOKEN}`, host: '192.0.2.10:8080' },
    });
    expect(response.status).toBe(200);
  });

  it('serves the page itself without the token (it holds no data); the API refuses', async () => {
    const page = await web.app.request('/');
    expect(page.status).toBe(503); // no client built into this harness: the page says how
    expect(await page.text()).toMatch(/npm run build/);
  });
});

describe('origin and host checks (WEB-8)', () => {
  let web: WebHarness;
  beforeAll(async () => {
    web = await startWebHarness();
  });
  afterAll(async () => {
    await web.close();
  });

  it('refuses state-changing requests from another origin or a cross-site fetch', async () => {
    const foreign = await web.request('/api/sessions', {
      body: {},
      headers: { origin: 'http://evil.example' },
    });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe('E_FORBIDDEN_ORIGIN');
    const crossSite = await web.request('/api/settings', {
      method: 'PUT',
      body: { notifications: false },
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.status).toBe(403);
    expect(
      ((await (await web.request('/api/settings')).json()) as { settings: { notifications: boolean } })
        .settings.notifications,
    ).toBe(true);
    // Same origin and scripts without a browser (no Origin) are fine; reads need no Origin.
    expect((await web.request('/api/sessions', { body: {} })).status).toBe(201);
    const script = await web.app.request('/api/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(script.status).toBe(201);
  });

  it('without a token answers only loopback hosts (DNS rebinding)', async () => {
    const rebound = await web.app.request('http://evil.example:8080/api/sessions', {
      headers: { host: 'evil.example:8080' },
    });
    expect(rebound.status).toBe(403);
    expect(((await rebound.json()) as { error: { code: string } }).error.code).toBe('E_FORBIDDEN_HOST');
    const page = await web.app.request('http://evil.example:8080/', {
      headers: { host: 'evil.example:8080' },
    });
    expect(page.status).toBe(403);
    for (const host of ['127.0.0.1:8080', 'localhost:8080', '[::1]:8080']) {
      const response = await web.app.request(`http://${host}/api/info`, { headers: { host } });
      expect(response.status, host).toBe(200);
    }
  });

  it('sends a strict Content-Security-Policy on API answers, errors and the page', async () => {
    for (const response of [
      await web.request('/api/info'),
      await web.request('/api/nope'),
      await web.app.request('/'),
    ]) {
      expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
    }
    expect(CONTENT_SECURITY_POLICY).toMatch(/script-src 'self'(;|$)/);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval/);
  });

  it('refuses bodies over the limit with 413 before parsing them', async () => {
    const session = await web.createSession();
    const response = await web.request(`/api/sessions/${session.id}/turns`, {
      body: { text: 'x'.repeat(600 * 1024) },
    });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('E_BODY_TOO_LARGE');
    expect((await web.store.getSession(session.id))?.messageCount).toBe(0);
  });

  it('never answers 500 to arbitrary JSON bodies (bad input is the client’s 4xx)', async () => {
    const session = await web.createSession();
    const routes = [
      ['POST', '/api/sessions'],
      ['PATCH', `/api/sessions/${session.id}`],
      ['PUT', '/api/settings'],
      ['POST', `/api/sessions/${session.id}/compactions/preview`],
    ] as const;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), fc.jsonValue(), async ([method, path], body) => {
        const response = await web.request(path, { method, body: JSON.stringify(body) });
        expect(response.status).toBeLessThan(500);
        const text = await response.text();
        expect(() => JSON.parse(text)).not.toThrow();
      }),
      { numRuns: 150 },
    );
  });

  it('never sends the provider key to the browser (info, views, streams)', async () => {
    const session = await web.createSession();
    const stream = await web.request(`/api/sessions/${session.id}/turns`, { body: { text: 'hello' } });
    const bodies = [
      await stream.text(),
      await (await web.request('/api/info')).text(),
      await (await web.request(`/api/sessions/${session.id}`)).text(),
      await (await web.request(`/api/sessions/${session.id}/history`)).text(),
      await (await web.request('/api/settings')).text(),
    ];
    for (const body of bodies) expect(body).not.toContain(FAKE_API_KEY);
    // …although the fake provider did receive it: it is configured, just never sent out.
    expect(JSON.stringify(web.fake.requests.at(-1)?.headers)).toContain(FAKE_API_KEY);
  });
});

describe('bind rules (WEB-8)', () => {
  it('binds loopback without a token; any other host needs a long enough token', () => {
    expect(() => checkBind('127.0.0.1', undefined)).not.toThrow();
    expect(() => checkBind('localhost', undefined)).not.toThrow();
    expect(() => checkBind('::1', undefined)).not.toThrow();
    expect(() => checkBind('0.0.0.0', undefined)).toThrow(
      /refusing to serve on 0\.0\.0\.0 without an access token/,
    );
    expect(() => checkBind('192.168.1.5', undefined)).toThrow(/--token or set CHATFOLD_TOKEN/);
    expect(() => checkBind('0.0.0.0', 'short')).toThrow(/at least 16/);
    expect(() => checkBind('0.0.0.0', TOKEN)).not.toThrow();
  });

  it('knows loopback names and addresses', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', 'localhost', 'app.localhost', '::1', '[::1]'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of [
      '0.0.0.0',
      '192.168.0.1',
      '::',
      'example.com',
      '127.0.0.1.nip.io',
      'localhost.evil.com',
    ]) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });
});
