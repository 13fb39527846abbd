// Issue 23 item 1, FR-5.1.1, FR-5.1.2, FR-2.3.3: a manual summary that fails is reported as a
// failure — never "Done", never an extractive text shown as the model's — with nothing changed;
// it has a deadline, a bounded output and a Cancel that really stops the request at the model
// server; every failure is logged as one structured line. Against an OpenAI-compatible server
// written here (not chatfold's fake provider) that fails summary requests.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CompactionPreview, SessionView, StreamEvent, WireCompaction } from '../../src/web/api-types.ts';
import { filler, parseEventStream, startWebHarness, type WebHarness } from './harness.ts';
import { type OpenAiCompatibleStub, startOpenAiCompatibleStub } from './openai-compatible-stub.ts';

let stub: OpenAiCompatibleStub;
let web: WebHarness;
const logLines: string[] = [];

beforeAll(async () => {
  stub = await startOpenAiCompatibleStub();
  web = await startWebHarness({
    agent: {
      model: {
        provider: 'openai-compatible',
        name: 'stub-model',
        baseURL: `${stub.url}/v1`,
        apiKey: 'sk-stub-key-0123456789abcdef',
        maxInputTokens: 6000,
        maxOutputTokens: 1024,
      },
    },
    app: {
      // A stall never answers, so this deadline always fires first: no race.
      summaryTimeoutMs: 400,
      maxSummaryChars: 3000,
      log: (line) => logLines.push(line),
    },
  });
});
afterAll(async () => {
  await web.close();
  await stub.close();
});
afterEach(() => {
  stub.summary = 'ok';
  stub.turn = 'echo';
});

const json = async <T>(response: Response): Promise<T> => (await response.json()) as T;

async function sessionWithTurns(turns: number): Promise<string> {
  const session = await web.createSession();
  for (let turn = 1; turn <= turns; turn++) {
    const events = await web.stream(`/api/sessions/${session.id}/turns`, {
      text: filler(`turn-${turn}`, 250),
    });
    expect(events.at(-1)).toEqual({ type: 'done', reason: 'stop' });
  }
  return session.id;
}

/** What a failed attempt must leave alone: messages, summary, compactions. */
async function snapshot(id: string): Promise<unknown> {
  const view = await json<SessionView>(await web.request(`/api/sessions/${id}`));
  const list = await json<{ compactions: WireCompaction[] }>(
    await web.request(`/api/sessions/${id}/compactions`),
  );
  return { messages: view.messages.map((m) => m.id), summary: view.summary, compactions: list.compactions };
}

/** Reads an event stream as it arrives; `onEvent` may act while it is open (press Stop). */
async function readStream(
  path: string,
  body: unknown,
  onEvent: (event: StreamEvent) => Promise<void> | void,
): Promise<StreamEvent[]> {
  const response = await web.request(path, { body });
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array<ArrayBuffer>>)
    .pipeThrough(new TextDecoderStream())
    .getReader();
  const events: StreamEvent[] = [];
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    const cut = buffer.lastIndexOf('\n\n');
    if (cut < 0) continue;
    for (const event of parseEventStream(buffer.slice(0, cut + 2))) {
      events.push(event);
      await onEvent(event);
    }
    buffer = buffer.slice(cut + 2);
  }
  return events;
}

const logged = (event: string) =>
  logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.event === event);

const failureOf = (events: readonly StreamEvent[]) => {
  expect(events.some((event) => event.type === 'compaction-end')).toBe(false); // never "Done"
  expect(events.at(-1)).toEqual({ type: 'done', reason: 'error' });
  const error = events.find((event) => event.type === 'error');
  if (error?.type !== 'error') throw new Error(`no error event in ${events.map((e) => e.type).join(', ')}`);
  return error;
};

describe('a failing manual summary (FR-5.1.2)', () => {
  it('a 500 from the summarizer is a failure with nothing changed and one log line; Retry calls the model again and succeeds', async () => {
    const id = await sessionWithTurns(6);
    const preview = await json<CompactionPreview>(
      await web.request(`/api/sessions/${id}/compactions/preview`, { body: {} }),
    );
    const before = await snapshot(id);
    stub.summary = 'error-500';
    const summaryCalls = () => stub.requests.filter((request) => request.kind === 'summary').length;
    const calls = summaryCalls();
    const error = failureOf(await web.stream(`/api/sessions/${id}/compactions`, {}));
    expect(error.code).toBe('E_SUMMARY_FAILED');
    expect(summaryCalls()).toBe(calls + 1);
    expect(await snapshot(id)).toEqual(before);
    const lines = logged('summary-failed').filter((line) => line.sessionId === id);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', mode: 'summarize', code: 'E_SUMMARY_FAILED' });
    expect(String(lines[0]?.cause)).not.toBe('');
    expect(logLines.join('\n')).not.toContain('sk-stub-key'); // redacted (WEB-8)

    // Retry at once: a manual summary ignores the automatic back-off and reaches the model.
    stub.summary = 'ok';
    const events = await web.stream(`/api/sessions/${id}/compactions`, {});
    expect(summaryCalls()).toBe(calls + 2);
    const end = events.find((event) => event.type === 'compaction-end');
    if (end?.type !== 'compaction-end') throw new Error('no compaction-end');
    expect(end.result.compacted).toBe(true);
    expect(end.result.summarySource).toBe('llm');
    // The dialog's "to summarize" and the result's count are the same number (not cumulative).
    expect(end.result.messagesAdded).toBe(preview.messagesToSummarize);
  });

  it('a summarizer that never answers times out, the request to it is closed, and nothing changes', async () => {
    const id = await sessionWithTurns(6);
    const before = await snapshot(id);
    stub.summary = 'stall';
    const closedBefore = stub.requests.filter((r) => r.kind === 'summary' && r.closedEarly).length;
    const error = failureOf(await web.stream(`/api/sessions/${id}/compactions`, {}));
    expect(error.code).toBe('E_SUMMARY_TIMEOUT');
    expect(error.message).toMatch(/did not finish within/);
    await stub.closed('summary', closedBefore + 1);
    expect(await snapshot(id)).toEqual(before);
    expect(logged('summary-failed').filter((line) => line.sessionId === id)).toEqual([
      expect.objectContaining({ mode: 'summarize', code: 'E_SUMMARY_TIMEOUT' }),
    ]);
  });

  it('a summarizer that writes without end is stopped at the output bound', async () => {
    const id = await sessionWithTurns(6);
    const before = await snapshot(id);
    stub.summary = 'endless';
    const closedBefore = stub.requests.filter((r) => r.kind === 'summary' && r.closedEarly).length;
    const error = failureOf(await web.stream(`/api/sessions/${id}/compactions`, {}));
    expect(error.code).toBe('E_SUMMARY_TOO_LONG');
    await stub.closed('summary', closedBefore + 1);
    expect(await snapshot(id)).toEqual(before);
  });

  it('Regenerate fails the same way and keeps the current summary', async () => {
    const id = await sessionWithTurns(6);
    await web.stream(`/api/sessions/${id}/compactions`, {});
    const before = await snapshot(id);
    stub.summary = 'error-500';
    const error = failureOf(await web.stream(`/api/sessions/${id}/compactions/regenerate`, {}));
    expect(error.code).toBe('E_SUMMARY_FAILED');
    expect(await snapshot(id)).toEqual(before);
    expect(logged('summary-failed').filter((line) => line.sessionId === id)).toEqual([
      expect.objectContaining({ mode: 'regenerate' }),
    ]);
  });
});

describe('Stop and Cancel (FR-2.3.3)', () => {
  it('Cancel stops a running summary at the model server; the stream ends aborted with nothing changed', async () => {
    const id = await sessionWithTurns(6);
    const before = await snapshot(id);
    stub.summary = 'stall';
    const closedBefore = stub.requests.filter((r) => r.kind === 'summary' && r.closedEarly).length;
    const sent = stub.requests.filter((r) => r.kind === 'summary').length;
    const events = await readStream(`/api/sessions/${id}/compactions`, {}, async (event) => {
      if (event.type === 'compaction-start') {
        await stub.received('summary', sent + 1); // the request is at the model server
        const stopped = await json<{ stopped: boolean }>(
          await web.request(`/api/sessions/${id}/stop`, { body: {} }),
        );
        expect(stopped).toEqual({ stopped: true });
      }
    });
    expect(events.at(-1)).toEqual({ type: 'done', reason: 'aborted' });
    expect(events.some((event) => event.type === 'error' || event.type === 'compaction-end')).toBe(false);
    await stub.closed('summary', closedBefore + 1);
    expect(await snapshot(id)).toEqual(before);
    expect(logged('summary-cancelled').filter((line) => line.sessionId === id)).toHaveLength(1);
    // Nothing is left running: the session takes the next request.
    stub.summary = 'ok';
    const again = await web.stream(`/api/sessions/${id}/compactions`, {});
    expect(again.some((event) => event.type === 'compaction-end')).toBe(true);
  });

  it('Stop keeps the partial answer: it is stored before the stream ends', async () => {
    const session = await web.createSession();
    stub.turn = 'partial-then-stall';
    let stopped = false;
    const streamed = await readStream(
      `/api/sessions/${session.id}/turns`,
      { text: 'tell me a story' },
      async (event) => {
        if (event.type === 'text-delta' && !stopped) {
          stopped = true;
          await web.request(`/api/sessions/${session.id}/stop`, { body: {} });
        }
      },
    );
    expect(streamed.at(-1)).toEqual({ type: 'done', reason: 'aborted' });
    expect(streamed.some((event) => event.type === 'gauge')).toBe(true);
    const view = await json<SessionView>(await web.request(`/api/sessions/${session.id}`));
    const last = view.messages.at(-1);
    expect(last?.role).toBe('assistant');
    expect(JSON.stringify(last?.parts)).toContain('A partial answer');
  });

  it('stop answers false when nothing runs and 404 for an unknown session', async () => {
    const session = await web.createSession();
    await expect(json(await web.request(`/api/sessions/${session.id}/stop`, { body: {} }))).resolves.toEqual({
      stopped: false,
    });
    expect((await web.request('/api/sessions/s-nope/stop', { body: {} })).status).toBe(404);
  });
});
