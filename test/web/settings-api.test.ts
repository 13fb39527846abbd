// WEB-7, FR-3.1: settings validated, merged, persisted in the store's settings (survive a new
// app on the same SQLite file), and applied to the agent each session runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteStore } from '../../src/stores/sqlite/index.ts';
import type { SessionView, StreamEvent, WebSettings } from '../../src/web/api-types.ts';
import { WEB_SETTINGS_KEY } from '../../src/web/server/web-settings.ts';
import { filler, startWebHarness, type WebHarness } from './harness.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'chatfold-web-settings-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const settingsOf = async (web: WebHarness): Promise<WebSettings> =>
  ((await (await web.request('/api/settings')).json()) as { settings: WebSettings }).settings;

describe('settings API (WEB-7)', () => {
  it('starts from the engine defaults, merges partial updates and persists them across restarts', async () => {
    const file = join(dir, 'persist.db');
    const first = await startWebHarness({ store: sqliteStore(file) });
    try {
      expect(await settingsOf(first)).toEqual({
        autoCompaction: true,
        thresholds: {},
        retentionTokens: 1000,
        notifications: true,
        summarizerModel: null,
      });
      const saved = await first.request('/api/settings', {
        method: 'PUT',
        body: {
          autoCompaction: false,
          thresholds: { 'chatfold-fake': 0.9, 'gpt-4o': 0.95 },
          notifications: false,
        },
      });
      expect(saved.status).toBe(200);
      const partial = await first.request('/api/settings', {
        method: 'PUT',
        body: { retentionTokens: 2500, summarizerModel: 'openai-compatible:chatfold-fake-small' },
      });
      expect(((await partial.json()) as { settings: WebSettings }).settings).toEqual({
        autoCompaction: false,
        thresholds: { 'chatfold-fake': 0.9, 'gpt-4o': 0.95 },
        retentionTokens: 2500,
        notifications: false,
        summarizerModel: 'openai-compatible:chatfold-fake-small',
      });
    } finally {
      await first.close();
    }
    const second = await startWebHarness({ store: sqliteStore(file) });
    try {
      expect(await settingsOf(second)).toMatchObject({
        autoCompaction: false,
        retentionTokens: 2500,
        notifications: false,
      });
      expect(await second.store.getSetting(WEB_SETTINGS_KEY)).toMatchObject({ retentionTokens: 2500 });
    } finally {
      await second.close();
    }
  });

  it('refuses invalid settings with the field and what it expected', async () => {
    const web = await startWebHarness();
    try {
      const cases: [unknown, RegExp][] = [
        [{ autoCompaction: 'yes' }, /autoCompaction/],
        [{ thresholds: { 'gpt-4o': 1.5 } }, /thresholds\.gpt-4o: at most 1/],
        [{ thresholds: { 'gpt-4o': 0.01 } }, /at least 0\.1/],
        [{ thresholds: { '': 0.5 } }, /thresholds/],
        [{ retentionTokens: -1 }, /retentionTokens/],
        [{ retentionTokens: 1.5 }, /retentionTokens/],
        [{ summarizerModel: 'gpt-4o-mini' }, /expected provider:model/],
        [{ summarizerModel: 'acme:thing' }, /expected provider:model/],
        [{ unknownKey: true }, /unknownKey/],
      ];
      for (const [body, message] of cases) {
        const response = await web.request('/api/settings', { method: 'PUT', body });
        expect(response.status, JSON.stringify(body)).toBe(400);
        expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(message);
      }
      expect((await settingsOf(web)).autoCompaction).toBe(true);
    } finally {
      await web.close();
    }
  });

  it('says how to fix settings another tool stored in a bad shape (never a silent reset)', async () => {
    const web = await startWebHarness();
    try {
      await web.store.setSetting(WEB_SETTINGS_KEY, { retentionTokens: 'lots' });
      const response = await web.request('/api/settings');
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
        /stored web settings .* are invalid: .*retentionTokens.*save the settings page again/s,
      );
    } finally {
      await web.close();
    }
  });

  it('applies auto-compaction (global, then per session), the model threshold and retention to the agent', async () => {
    const web = await startWebHarness();
    try {
      const settings = await settingsOf(web);
      expect(web.pool.contextFor(settings, 'inherit')).toMatchObject({
        autoSummarize: true,
        retentionTokens: 1000,
      });
      const changed = {
        ...settings,
        autoCompaction: false,
        thresholds: { 'chatfold-fake': 0.6 },
        retentionTokens: 300,
      };
      expect(web.pool.contextFor(changed, 'inherit')).toMatchObject({
        autoSummarize: false,
        threshold: 0.6,
        retentionTokens: 300,
      });
      expect(web.pool.contextFor(changed, 'on').autoSummarize).toBe(true);
      expect(web.pool.contextFor(settings, 'off').autoSummarize).toBe(false);

      // End to end: with auto-compaction off for this session, the prompt grows past the
      // threshold without a compaction; switched back on, the next turn compacts (WEB-3).
      const session = await web.createSession();
      await web.request(`/api/sessions/${session.id}`, { method: 'PATCH', body: { autoCompaction: 'off' } });
      let view: SessionView | undefined;
      for (let turn = 1; turn <= 12; turn++) {
        const events = await web.stream(`/api/sessions/${session.id}/turns`, {
          text: filler(`t${turn}`, 200),
        });
        expect(events.some((event) => event.type === 'compaction-start')).toBe(false);
        view = (await (await web.request(`/api/sessions/${session.id}`)).json()) as SessionView;
        if (view.gauge.percent >= 82) break;
      }
      expect(view?.gauge.level).toBe('warning');
      await web.request(`/api/sessions/${session.id}`, {
        method: 'PATCH',
        body: { autoCompaction: 'inherit' },
      });
      // Where automatic compaction starts is the policy's business (chat-app: when the prompt
      // would reach the answer's reserve): turns until one compacts, at most a few.
      let events: StreamEvent[] = [];
      for (let turn = 0; turn < 4 && !events.some((event) => event.type === 'compaction-end'); turn++) {
        events = await web.stream(`/api/sessions/${session.id}/turns`, { text: filler(`more-${turn}`, 150) });
      }
      const end = events.find((event) => event.type === 'compaction-end');
      expect(end?.type === 'compaction-end' && end.result.mode).toBe('auto');
      expect(end?.type === 'compaction-end' && end.result.compacted).toBe(true);
      const gauge = events.find((event) => event.type === 'gauge');
      expect(gauge?.type === 'gauge' && gauge.gauge.percent).toBeLessThan(80);
    } finally {
      await web.close();
    }
  });
});
