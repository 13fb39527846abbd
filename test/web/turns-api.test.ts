// WEB-1: one turn streams as server-sent events through the agent runtime (AG-3); bad bodies,
// busy sessions, aborts and provider failures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HistoryPage, SessionView, StreamEvent } from '../../src/web/api-types.ts';
import { FAKE_API_KEY, parseEventStream, startWebHarness, type WebHarness } from './harness.ts';

let web: WebHarness;
beforeAll(async () => {
  web = await startWebHarness({
    script: {
      rules: [
        { match: { lastUserIncludes: '[slow]' }, reply: { chunkDelayMs: 40 } },
        {
          match: { lastUserIncludes: '[fail]' },
          reply: { error: { status: 500, message: `upstream broke, key ${FAKE_API_KEY}` } },
        },
      ],
    },
  });
});
afterAll(async () => {
  await web.close();
});

const types = (events: readonly StreamEvent[]): string[] => events.map((event) => event.type);

describe('turns API (WEB-1)', () => {
  it('streams text deltas, usage, the gauge and done; the turn is stored', async () => {
    const session = await web.createSession();
    const events = await web.stream(`/api/sessions/${session.id}/turns`, {
      text: 'Hello **world**, tell me more',
    });
    const deltas = events.filter((event) => event.type === 'text-delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((event) => (event.type === 'text-delta' ? event.text : '')).join('')).toContain(
      'Hello **world**',
    );
    expect(types(events)).toContain('step-start');
    expect(types(events)).toContain('usage');
    expect(types(events).slice(-2)).toEqual(['gauge', 'done']);
    const done = events.at(-1);
    expect(done).toEqual({ type: 'done', reason: 'stop' });

    const view = (await (await web.request(`/api/sessions/${session.id}`)).json()) as SessionView;
    expect(view.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(view.messages.every((message) => message.state === 'in-context')).toBe(true);
    // The first message names an untitled session, without its markdown marks.
    expect(view.session.title).toBe('Hello world, tell me more');
    expect(view.gauge.messagesInHistory).toBe(3); // system prompt, user, assistant
    expect(view.gauge.breakdown.find((item) => item.key === 'system')?.tokens).toBeGreaterThan(0);
    // The breakdown covers the whole window (WEB-2).
    expect(view.gauge.breakdown.reduce((sum, item) => sum + item.tokens, 0)).toBe(view.gauge.window);
  });

  it('refuses empty, oversized and malformed turns with 400', async () => {
    const session = await web.createSession();
    for (const body of [
      {},
      { text: '' },
      { text: '   ' },
      { text: 5 },
      { text: 'x'.repeat(100_001) },
      { text: 'hi', role: 'system' },
    ]) {
      const response = await web.request(`/api/sessions/${session.id}/turns`, { body });
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('E_INVALID_BODY');
    }
    expect((await web.store.getSession(session.id))?.messageCount).toBe(0);
  });

  it('refuses a second turn while one runs (409 E_BUSY), and a closed stream stops the turn', async () => {
    const session = await web.createSession();
    const controller = new AbortController();
    const first = await web.app.request(`/api/sessions/${session.id}/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://127.0.0.1:8080' },
      body: JSON.stringify({ text: `[slow] ${'word '.repeat(200)}` }),
      signal: controller.signal,
    });
    expect(first.status).toBe(200);
    const reader = (first.body as ReadableStream<Uint8Array>).getReader();
    let seen = '';
    while (!seen.includes('text-delta')) {
      const { value } = await reader.read();
      seen += new TextDecoder().decode(value);
    }
    const second = await web.request(`/api/sessions/${session.id}/turns`, { body: { text: 'me too' } });
    expect(second.status).toBe(409);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe('E_BUSY');

    controller.abort();
    await reader.cancel().catch(() => undefined);
    // The session frees up once the run has stopped; the user's message stays (AG-3).
    let after: Response | undefined;
    for (let attempt = 0; attempt < 400; attempt++) {
      after = await web.request(`/api/sessions/${session.id}/turns`, { body: { text: 'after the stop' } });
      if (after.status !== 409) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(after?.status).toBe(200);
    const events = parseEventStream(await (after as Response).text());
    expect(events.at(-1)).toEqual({ type: 'done', reason: 'stop' });
    const history = (await (await web.request(`/api/sessions/${session.id}/history`)).json()) as HistoryPage;
    const texts = history.messages.map((message) =>
      message.parts.map((part) => ('text' in part ? part.text : '')).join(''),
    );
    expect(texts.some((text) => text.startsWith('[slow]'))).toBe(true);
    expect(texts).toContain('after the stop');
  });

  it('streams a provider failure as an error event without the API key (WEB-8)', async () => {
    const session = await web.createSession();
    const response = await web.request(`/api/sessions/${session.id}/turns`, {
      body: { text: 'please [fail]' },
    });
    const text = await response.text();
    expect(text).not.toContain(FAKE_API_KEY);
    const events = parseEventStream(text);
    const error = events.find((event) => event.type === 'error');
    expect(error).toBeDefined();
    expect(events.at(-1)).toEqual({ type: 'done', reason: 'error' });
  });
});
