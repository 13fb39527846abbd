// WEB-1: sessions over the JSON API (list, new, rename, switch), bad bodies and unknown sessions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../src/stores/memory/index.ts';
import type { Store } from '../../src/stores/types.ts';
import type { SessionView, WireSession } from '../../src/web/api-types.ts';
import { asWebStore } from '../../src/web/server/web-store.ts';
import { startWebHarness, type WebHarness } from './harness.ts';

let web: WebHarness;
beforeAll(async () => {
  web = await startWebHarness();
});
afterAll(async () => {
  await web.close();
});

const json = async <T>(response: Response): Promise<T> => (await response.json()) as T;

describe('sessions API (WEB-1)', () => {
  it('creates, lists, renames and opens sessions', async () => {
    const first = await web.createSession('First chat');
    const second = await web.createSession();
    expect(first.title).toBe('First chat');
    expect(second.title).toBe('New chat');
    expect(second.autoCompaction).toBe('inherit');

    const list = await json<{ sessions: WireSession[] }>(await web.request('/api/sessions'));
    expect(list.sessions.map((session) => session.id)).toEqual(expect.arrayContaining([first.id, second.id]));

    const renamed = await web.request(`/api/sessions/${second.id}`, {
      method: 'PATCH',
      body: { title: 'Renamed' },
    });
    expect(renamed.status).toBe(200);
    expect((await json<{ session: WireSession }>(renamed)).session.title).toBe('Renamed');

    const view = await json<SessionView>(await web.request(`/api/sessions/${second.id}`));
    expect(view.session.title).toBe('Renamed');
    expect(view.messages).toEqual([]);
    expect(view.summary).toBeUndefined();
    expect(view.gauge.messagesInHistory).toBe(0);
    expect(view.gauge.percent).toBeLessThan(1);
    expect(view.gauge.level).toBe('ok');
  });

  it('sets the per-session auto-compaction override (FR-3.1.1)', async () => {
    const session = await web.createSession();
    const off = await web.request(`/api/sessions/${session.id}`, {
      method: 'PATCH',
      body: { autoCompaction: 'off' },
    });
    expect((await json<{ session: WireSession }>(off)).session.autoCompaction).toBe('off');
    const view = await json<SessionView>(await web.request(`/api/sessions/${session.id}`));
    expect(view.session.autoCompaction).toBe('off');
  });

  it('answers 404 E_SESSION_NOT_FOUND for unknown or malformed session ids', async () => {
    for (const [method, path, body] of [
      ['GET', '/api/sessions/nope', undefined],
      ['PATCH', '/api/sessions/nope', { title: 'x' }],
      ['GET', '/api/sessions/nope/gauge', undefined],
      ['GET', '/api/sessions/nope/history', undefined],
      ['GET', '/api/sessions/nope/compactions', undefined],
      ['POST', '/api/sessions/nope/turns', { text: 'hi' }],
      ['POST', '/api/sessions/nope/compactions', {}],
      ['POST', '/api/sessions/nope/compactions/preview', {}],
      ['POST', '/api/sessions/nope/compactions/regenerate', {}],
      ['GET', `/api/sessions/${encodeURIComponent('bad id with spaces')}`, undefined],
      ['GET', `/api/sessions/${'x'.repeat(200)}`, undefined],
    ] as const) {
      const response = await web.request(path, { method, ...(body === undefined ? {} : { body }) });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect((await json<{ error: { code: string } }>(response)).error.code).toBe('E_SESSION_NOT_FOUND');
    }
    // Nothing was created by asking.
    expect(await web.store.getSession('nope')).toBeUndefined();
  });

  it('refuses bad bodies with 400 E_INVALID_BODY naming the field', async () => {
    const session = await web.createSession();
    const cases: [string, string, unknown, RegExp][] = [
      ['POST', '/api/sessions', { title: 42 }, /title/],
      ['POST', '/api/sessions', { title: '' }, /title: a title must not be empty/],
      ['POST', '/api/sessions', { title: 'x'.repeat(201) }, /at most 200/],
      ['POST', '/api/sessions', { title: 'ok', extra: true }, /extra/],
      ['POST', '/api/sessions', [1, 2], /expected object/],
      ['PATCH', `/api/sessions/${session.id}`, {}, /expected title or autoCompaction/],
      ['PATCH', `/api/sessions/${session.id}`, { autoCompaction: 'sometimes' }, /autoCompaction/],
      ['POST', '/api/sessions', '{not json', /not valid JSON/],
    ];
    for (const [method, path, body, message] of cases) {
      const response = await web.request(path, { method, body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      const error = (await json<{ error: { code: string; message: string } }>(response)).error;
      expect(error.code).toBe('E_INVALID_BODY');
      expect(error.message).toMatch(message);
    }
    const form = await web.request('/api/sessions', {
      body: 'title=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(400);
    expect((await json<{ error: { message: string } }>(form)).error.message).toMatch(
      /Content-Type: application\/json/,
    );
  });

  it('answers unknown API routes with a JSON 404', async () => {
    const response = await web.request('/api/nothing-here');
    expect(response.status).toBe(404);
    expect((await json<{ error: { code: string } }>(response)).error.code).toBe('E_NOT_FOUND');
  });

  it('keeps titles as plain text, payloads and all (WEB-8: the client renders them as text)', async () => {
    const payload = '<img src=x onerror="window.__xss=1"><script>alert(1)</script>';
    const session = await web.createSession(payload);
    expect(session.title).toBe(payload);
    const response = await web.request(`/api/sessions/${session.id}`);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('refuses, at start-up, a store without a session catalog or settings', () => {
    const full = memoryStore();
    const core: Store = {
      kind: 'core-only',
      append: full.append.bind(full),
      messages: full.messages.bind(full),
      recordUsage: full.recordUsage.bind(full),
      latestSnapshot: full.latestSnapshot.bind(full),
      writeSnapshot: full.writeSnapshot.bind(full),
      context: full.context.bind(full),
      close: full.close.bind(full),
    } as Store;
    expect(() => asWebStore(core)).toThrow(/core-only store lacks a session catalog .* and settings/);
    expect(asWebStore(full)).toBe(full);
  });

  it('deletes a chat softly: gone from the list and the API, its messages kept in the store with the time', async () => {
    const session = await web.createSession('to delete');
    await web.stream(`/api/sessions/${session.id}/turns`, { text: 'remember me' });
    const deleted = await web.request(`/api/sessions/${session.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    await expect(deleted.json()).resolves.toEqual({ deleted: true });
    const list = (await (await web.request('/api/sessions')).json()) as { sessions: WireSession[] };
    expect(list.sessions.some((other) => other.id === session.id)).toBe(false);
    for (const path of ['', '/history', '/compactions', '/gauge']) {
      expect((await web.request(`/api/sessions/${session.id}${path}`)).status, path).toBe(404);
    }
    expect((await web.request(`/api/sessions/${session.id}/turns`, { body: { text: 'hi' } })).status).toBe(
      404,
    );
    expect((await web.request(`/api/sessions/${session.id}`, { method: 'DELETE' })).status).toBe(404);
    // The audit: the messages and the time of deletion stay in the store.
    expect((await web.store.messages(session.id)).length).toBe(3);
    expect(typeof (await web.store.getSession(session.id))?.metadata?.deletedAt).toBe('string');
  });
});
