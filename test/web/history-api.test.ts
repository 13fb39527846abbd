// WEB-6, FR-6.3: the full history, paged and searchable, each message marked in context /
// summarized; bad query parameters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HistoryPage } from '../../src/web/api-types.ts';
import { filler, startWebHarness, type WebHarness } from './harness.ts';

let web: WebHarness;
let id: string;
beforeAll(async () => {
  web = await startWebHarness();
  id = (await web.createSession()).id;
  for (let turn = 1; turn <= 6; turn++) {
    await web.stream(`/api/sessions/${id}/turns`, {
      text: filler(turn === 1 ? 'needle-zebra' : `turn-${turn}`, 250),
    });
  }
  await web.stream(`/api/sessions/${id}/compactions`, {});
});
afterAll(async () => {
  await web.close();
});

const page = async (query: string): Promise<HistoryPage> => {
  const response = await web.request(`/api/sessions/${id}/history${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as HistoryPage;
};

describe('history API (WEB-6)', () => {
  it('lists every original message oldest first, marked in context or summarized', async () => {
    const all = await page('');
    expect(all.total).toBe(13);
    expect(all.messages.map((message) => message.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    // The chat-app policy: a manual summary folds every message but the system prompt
    // (FR-2.2.1: all messages by default; no goal pinning).
    expect(all.messages[0]?.state).toBe('in-context');
    expect(all.messages.slice(1).every((message) => message.state === 'summarized')).toBe(true);
    expect(all.nextBefore).toBeUndefined();
  });

  it('finds a summarized message by search (FR-6.3.2), case-insensitively', async () => {
    const found = await page('?query=NEEDLE-zebra');
    expect(found.query).toBe('NEEDLE-zebra');
    expect(found.messages.length).toBeGreaterThanOrEqual(1);
    expect(
      found.messages.every((message) => JSON.stringify(message.parts).toLowerCase().includes('needle-zebra')),
    ).toBe(true);
    expect(found.messages.some((message) => message.state === 'summarized')).toBe(true);
    expect((await page('?query=no-such-words-here')).messages).toEqual([]);
  });

  it('pages backwards with limit and before', async () => {
    const newest = await page('?limit=5');
    expect(newest.messages.map((message) => message.seq)).toEqual([9, 10, 11, 12, 13]);
    expect(newest.nextBefore).toBe(9);
    const older = await page(`?limit=5&before=${newest.nextBefore}`);
    expect(older.messages.map((message) => message.seq)).toEqual([4, 5, 6, 7, 8]);
  });

  it('refuses bad query parameters with 400 E_INVALID_QUERY', async () => {
    for (const query of [
      '?limit=0',
      '?limit=-3',
      '?limit=abc',
      '?limit=501',
      '?before=1.5',
      `?query=${'q'.repeat(501)}`,
    ]) {
      const response = await web.request(`/api/sessions/${id}/history${query}`);
      expect(response.status, query).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('E_INVALID_QUERY');
    }
  });
});
