// WEB-4, WEB-5, WEB-6: the dry-run preview, manual summarize as a stream, regenerate from the
// originals, and the list of compactions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CompactionPreview,
  HistoryPage,
  SessionView,
  StreamEvent,
  WireCompaction,
} from '../../src/web/api-types.ts';
import { filler, startWebHarness, type WebHarness } from './harness.ts';

let web: WebHarness;
beforeAll(async () => {
  web = await startWebHarness({
    script: {
      rules: [
        // A summarizer that streams slowly, so progress arrives in pieces (FR-2.4.2).
        { match: { isSummary: true }, reply: { chunkDelayMs: 2 } },
      ],
    },
  });
});
afterAll(async () => {
  await web.close();
});

const json = async <T>(response: Response): Promise<T> => (await response.json()) as T;

async function sessionWithTurns(turns: number, tokens = 250): Promise<string> {
  const session = await web.createSession();
  for (let turn = 1; turn <= turns; turn++) {
    const events = await web.stream(`/api/sessions/${session.id}/turns`, {
      text: filler(`turn-${turn}`, tokens),
    });
    expect(events.at(-1)).toEqual({ type: 'done', reason: 'stop' });
  }
  return session.id;
}

const endOf = (events: readonly StreamEvent[]) => {
  const end = events.find((event) => event.type === 'compaction-end');
  if (end?.type !== 'compaction-end')
    throw new Error(`no compaction-end in ${events.map((e) => e.type).join(', ')}`);
  return end.result;
};

describe('compactions API (WEB-4..6)', () => {
  it('previews without a model call, then summarizes with streamed progress; the preview matched', async () => {
    const id = await sessionWithTurns(6);
    const requestsBefore = web.fake.requests.length;
    const preview = await json<CompactionPreview>(
      await web.request(`/api/sessions/${id}/compactions/preview`, {
        body: { instructions: 'keep the turn numbers' },
      }),
    );
    expect(web.fake.requests.length).toBe(requestsBefore); // dry run: no model call (FR-2.3.2)
    expect(preview.totalMessages).toBe(13);
    expect(preview.messagesToSummarize).toBeGreaterThan(0);
    expect(preview.estimatedTokensAfter).toBeLessThan(preview.tokensBefore);

    const events = await web.stream(`/api/sessions/${id}/compactions`, {
      instructions: 'keep the turn numbers',
    });
    expect(events[0]?.type).toBe('compaction-start');
    const progress = events.filter((event) => event.type === 'compaction-progress');
    expect(progress.length).toBeGreaterThan(1);
    const result = endOf(events);
    expect(result.compacted).toBe(true);
    expect(result.mode).toBe('manual');
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
    expect(result.messagesSummarized).toBe(preview.messagesToSummarize);
    expect(result.summaryPreview?.length).toBeLessThanOrEqual(200);
    const streamed = progress
      .map((event) => (event.type === 'compaction-progress' ? event.text : ''))
      .join('');
    expect(streamed.startsWith(result.summaryPreview ?? '∅')).toBe(true);
    // The summarizer got the custom instruction (SUM-3).
    expect(JSON.stringify(web.fake.requests.at(-1)?.body)).toContain('keep the turn numbers');
    const gauge = events.find((event) => event.type === 'gauge');
    expect(gauge?.type === 'gauge' && gauge.gauge.tokens).toBe(result.tokensAfter);

    const view = await json<SessionView>(await web.request(`/api/sessions/${id}`));
    expect(view.summary?.messagesCovered).toBe(result.messagesSummarized);
    expect(view.summary?.mode).toBe('manual');
    expect(view.summary?.text.startsWith(result.summaryPreview ?? '∅')).toBe(true);
    expect(view.gauge.tokens).toBe(result.tokensAfter);
    expect(view.gauge.breakdown.find((item) => item.key === 'summary')?.tokens).toBeGreaterThan(0);
    // The chat shows the active context only; the summarized turns are in the full history.
    expect(view.messages.every((message) => message.state !== 'summarized')).toBe(true);

    const history = await json<HistoryPage>(await web.request(`/api/sessions/${id}/history`));
    expect(history.total).toBe(13);
    expect(history.messages).toHaveLength(13);
    const summarized = history.messages.filter((message) => message.state === 'summarized');
    expect(summarized.length).toBeGreaterThan(0);
    expect(history.messages.filter((message) => message.state === 'in-context').length).toBeGreaterThan(0);

    const list = await json<{ compactions: WireCompaction[] }>(
      await web.request(`/api/sessions/${id}/compactions`),
    );
    expect(list.compactions).toHaveLength(1);
    expect(list.compactions[0]).toMatchObject({
      mode: 'manual',
      tokensBefore: result.tokensBefore,
      tokensAfter: result.tokensAfter,
      messagesCovered: result.messagesSummarized,
    });
  });

  it('regenerates the summary from the original messages, not from the old summary', async () => {
    const id = await sessionWithTurns(6);
    endOf(await web.stream(`/api/sessions/${id}/compactions`, {}));
    // Two more turns, then a second summary would normally fold the first one in (FR-1.4.2).
    for (const turn of [7, 8])
      await web.stream(`/api/sessions/${id}/turns`, { text: filler(`turn-${turn}`, 250) });
    const before = web.fake.requests.length;
    const events = await web.stream(`/api/sessions/${id}/compactions/regenerate`, {});
    const result = endOf(events);
    expect(result.compacted).toBe(true);
    expect(events.filter((event) => event.type === 'compaction-progress').length).toBeGreaterThan(0);
    // The summarizer saw the original turn-1 text, which the first summary had replaced.
    const summaryCalls = web.fake.requests.slice(before).map((request) => JSON.stringify(request.body));
    expect(summaryCalls.some((body) => body.includes('turn-1: alpha bravo'))).toBe(true);
    const list = await json<{ compactions: WireCompaction[] }>(
      await web.request(`/api/sessions/${id}/compactions`),
    );
    expect(list.compactions).toHaveLength(2);
  });

  it('previews a short conversation with a warning (FR-5.4.2) and refuses bad instructions', async () => {
    const id = await sessionWithTurns(1, 20);
    const preview = await json<CompactionPreview>(
      await web.request(`/api/sessions/${id}/compactions/preview`, { body: {} }),
    );
    expect(preview.warning).toBeDefined();
    for (const body of [{ instructions: 7 }, { instructions: 'x'.repeat(4001) }, { other: 1 }]) {
      for (const path of ['/compactions/preview', '/compactions', '/compactions/regenerate']) {
        const response = await web.request(`/api/sessions/${id}${path}`, { body });
        expect(response.status, `${path} ${JSON.stringify(body).slice(0, 40)}`).toBe(400);
      }
    }
  });

  it('a custom retention chosen in the dialog keeps the newest tokens for this summary only (FR-2.2.2)', async () => {
    const id = await sessionWithTurns(6);
    const preview = async (body: object) =>
      json<CompactionPreview>(await web.request(`/api/sessions/${id}/compactions/preview`, { body }));
    const all = await preview({});
    const keepSome = await preview({ retentionTokens: 700 });
    // By default everything is summarized (FR-2.2.1); keeping ~700 tokens leaves the newest turns out of it.
    expect(keepSome.messagesToSummarize).toBeLessThan(all.messagesToSummarize);
    expect(keepSome.messagesToSummarize).toBeGreaterThan(0);
    const result = endOf(await web.stream(`/api/sessions/${id}/compactions`, { retentionTokens: 700 }));
    expect(result.messagesSummarized).toBe(keepSome.messagesToSummarize);
    const bad = await web.request(`/api/sessions/${id}/compactions/preview`, {
      body: { retentionTokens: -5 },
    });
    expect(bad.status).toBe(400);
  });
});
