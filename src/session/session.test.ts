import { describe, expect, it } from 'vitest';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { parseContextOverflow } from '../integrations/overflow.ts';
import { fromOpenAI } from '../messages/openai.ts';
import type { Message } from '../messages/types.ts';
import { validate } from '../messages/validate.ts';
import { memoryStore } from '../stores/memory/index.ts';
import type { FullStore, Snapshot, Store } from '../stores/types.ts';
import { summarize } from '../strategies/summarize.ts';
import type { Strategy } from '../strategies/types.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { createMockStore } from '../test/mock-store.ts';
import { createMockSummarizer } from '../test/mock-summarizer.ts';
import { createChatfold } from './create-chatfold.ts';
import type { SessionEvent } from './types.ts';

/** An agent-style conversation: each step is a request, a file read and an answer. */
function agentRun(steps: number, resultChars = 1_500): Message[] {
  const builder = buildConversation()
    .system('You are a careful coding agent.')
    .user('Goal: fix the parser bug');
  for (let i = 0; i < steps; i++) {
    builder
      .toolRound([
        {
          name: 'Read',
          args: { file_path: `/repo/src/file${i}.ts` },
          result: `// file ${i}\n${'const value = compute();\n'.repeat(Math.ceil(resultChars / 25))}`,
        },
      ])
      .assistant(`Step ${i}: read src/file${i}.ts and ran \`npm test -- file${i}\`; 3 tests pass.`)
      .user(`Continue with step ${i + 1}.`);
  }
  return builder.build();
}

const WINDOW = 12_000;

describe('createChatfold sessions (RT-1, ST-3, ST-6)', () => {
  it('prepares the appended messages unchanged while under the triggers', async () => {
    const chatfold = createChatfold({ window: WINDOW });
    const session = await chatfold.session('s1');
    const messages = agentRun(1);
    await session.append(messages);
    const prepared = await session.prepare();
    expect(prepared.report.compacted).toBe(false);
    expect(prepared.messages.map((m) => m.id)).toEqual(messages.map((m) => m.id));
    expect(prepared.tokens).toBeGreaterThan(0);
    const status = await session.status();
    expect(status.text).toBe(`${messages.length} messages in history (0 summarized)`);
  });

  it('compacts when a trigger fires, persists a snapshot, and never deletes a message', async () => {
    const store = memoryStore();
    const chatfold = createChatfold({ window: WINDOW, store });
    const session = await chatfold.session('agent');
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const ends: Extract<SessionEvent, { type: 'compaction-end' }>[] = [];
    const stop = session.on('compaction-end', (event) => ends.push(event));
    const messages = agentRun(30);
    let compactions = 0;
    // Append turn by turn, preparing before every model call, as an agent loop does.
    for (let i = 0; i < messages.length; i++) {
      await session.append(messages[i] as Message);
      if ((messages[i] as Message).role === 'assistant') continue;
      const prepared = await session.prepare();
      if (prepared.report.compacted) compactions++;
      expect(prepared.report.tokensAfter).toBeLessThanOrEqual(prepared.report.budget.messages);
      expect(validate(prepared.messages, { allowPendingToolCalls: true })).toEqual([]);
      if (i >= 1) expect(prepared.messages.some((m) => m.id === 'm1')).toBe(true); // the goal
    }
    expect(compactions).toBeGreaterThan(0);
    expect(events.some((e) => e.type === 'snapshot-written')).toBe(true);
    expect(ends.length).toBe(compactions);
    expect(ends.every((end) => end.report.compacted && end.durationMs >= 0)).toBe(true);
    stop();
    expect(events.some((e) => e.type === 'compaction-end')).toBe(true);
    const stored = await store.messages('agent');
    expect(stored.map((row) => row.message.id)).toEqual(messages.map((m) => m.id));
    expect(stored.map((row) => row.seq)).toEqual(messages.map((_, i) => i + 1));
    const snapshots = await store.snapshots('agent', 'summary');
    expect(snapshots.length).toBeGreaterThan(0);
    const content = snapshots.at(-1)?.content as Record<string, unknown>;
    expect(Object.keys(content)).toEqual(
      expect.arrayContaining([
        'summaryText',
        'messageRange',
        'compressionTimestamp',
        'compressionType',
        'originalTokenCount',
        'summaryTokenCount',
        'messagesIncluded',
        'ledger',
      ]),
    );
    const status = await session.status();
    expect(status.messagesInHistory).toBe(messages.length);
    expect(status.messagesSummarized).toBeGreaterThan(0);
    expect(status.compactions).toBe(snapshots.length);
    expect(status.text).toMatch(/^\d+ messages in history \(\d+ summarized\)$/);
  });

  it('resumes with the latest summary and the same prompt after a restart (ST-6, RT-5)', async () => {
    const store = memoryStore();
    const first = createChatfold({ window: WINDOW, store });
    const session = await first.session('resume');
    await session.append(agentRun(30));
    const before = await session.prepare();
    expect(before.report.compacted).toBe(true);
    const beforeStatus = await session.status();

    const second = createChatfold({ window: WINDOW, store });
    const resumed = await second.session('resume');
    const after = await resumed.prepare();
    expect(after.report.compacted).toBe(false);
    expect(JSON.stringify(after.messages)).toBe(JSON.stringify(before.messages));
    const status = await resumed.status();
    expect(status.text).toBe(beforeStatus.text);
    expect(status.summary?.messagesSummarized).toBe(beforeStatus.messagesSummarized);
  });

  it('keeps every prompt a prefix of the next between compactions (RT-5)', async () => {
    const chatfold = createChatfold({ window: 200_000 });
    const session = await chatfold.session('prefix');
    const messages = agentRun(5);
    let previous: readonly Message[] = [];
    for (const message of messages) {
      await session.append(message);
      const prepared = await session.prepare();
      expect(prepared.messages.slice(0, previous.length)).toEqual(previous);
      if (previous.length > 0) expect(prepared.cachedPrefixTokens).toBeGreaterThan(0);
      previous = prepared.messages;
    }
  });

  it('stores two identical turns without ids as two messages', async () => {
    const chatfold = createChatfold({ window: WINDOW });
    const session = await chatfold.session('twice');
    const yes = { role: 'user', parts: [{ type: 'text', text: 'yes' }] } as const;
    await session.append(yes);
    await session.append(yes);
    const history = await session.history();
    expect(history.map((row) => row.seq)).toEqual([1, 2]);
    expect(new Set(history.map((row) => row.message.id)).size).toBe(2);
  });

  it('gives converter-derived ids their own ids, so identical replies stay two messages', async () => {
    const chatfold = createChatfold({ window: WINDOW });
    const session = await chatfold.session('converted');
    const reply = () => fromOpenAI([{ role: 'assistant', content: 'ok' }]);
    expect(reply()[0]?.id).toBe(reply()[0]?.id); // the converter's id is the content's
    await session.append(reply());
    await session.append(reply());
    const history = await session.history();
    expect(history.map((row) => row.message.parts)).toEqual([
      [{ type: 'text', text: 'ok' }],
      [{ type: 'text', text: 'ok' }],
    ]);
    expect(new Set(history.map((row) => row.message.id)).size).toBe(2);
  });

  it('re-appending messages with the same ids is idempotent', async () => {
    const chatfold = createChatfold({ window: WINDOW });
    const session = await chatfold.session('retry');
    const messages = agentRun(2);
    await session.append(messages);
    await session.append(messages);
    expect((await session.history()).length).toBe(messages.length);
    expect((await session.prepare()).messages.length).toBe(messages.length);
  });

  it('searches and pages the full history, summarized messages included (ST-3)', async () => {
    const chatfold = createChatfold({ window: WINDOW });
    const session = await chatfold.session('search');
    await session.append(agentRun(30));
    await session.compact();
    const hits = await session.history({ text: 'SRC/FILE3.TS' });
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((row) => JSON.stringify(row.message).toLowerCase().includes('src/file3.ts'))).toBe(
      true,
    );
    const page = await session.history({ limit: 5, beforeSeq: 20 });
    expect(page.map((row) => row.seq)).toEqual([15, 16, 17, 18, 19]);
  });

  it('picks up messages and compactions written by another instance (ST-5)', async () => {
    const store = memoryStore();
    const a = await createChatfold({ window: WINDOW, store }).session('shared');
    const b = await createChatfold({ window: WINDOW, store }).session('shared');
    const messages = agentRun(30);
    const half = Math.floor(messages.length / 2);
    await Promise.all([a.append(messages.slice(0, half)), b.append(messages.slice(half))]);
    const rows = await store.messages('shared');
    expect(rows.map((row) => row.seq)).toEqual(messages.map((_, i) => i + 1));
    await a.compact();
    const snapshots = (await store.snapshots('shared', 'summary')).length;
    const report = await b.compact();
    // b saw a's snapshot before compacting: it builds on it instead of writing a rival.
    expect((await store.snapshots('shared', 'summary')).length).toBeGreaterThanOrEqual(snapshots);
    expect(report.reason).not.toMatch(/another writer/);
    const fromA = await a.prepare();
    const fromB = await b.prepare();
    expect(fromA.messages.map((m) => m.id)).toEqual(fromB.messages.map((m) => m.id));
  });

  it('of two racing compactions, one writes and the other loads its snapshot (ST-5)', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Both sessions read the same latest snapshot, then write at the same time.
    const store = createMockStore({
      fail: {
        writeSnapshot: async () => {
          if (store.calls.writeSnapshot.length === 2) release();
          await gate;
          return undefined;
        },
      },
    });
    const a = await createChatfold({ window: WINDOW, store }).session('race');
    const b = await createChatfold({ window: WINDOW, store }).session('race');
    await a.append(agentRun(30));
    const conflicts: SessionEvent[] = [];
    a.on((e) => e.type === 'snapshot-conflict' && conflicts.push(e));
    b.on((e) => e.type === 'snapshot-conflict' && conflicts.push(e));
    const [ra, rb] = await Promise.all([a.compact(), b.compact()]);
    expect(store.calls.writeSnapshot).toHaveLength(2);
    expect((await store.snapshots('race', 'summary')).length).toBe(1);
    expect(conflicts.length).toBe(1);
    expect([ra.reason, rb.reason].filter((r) => /another writer/.test(r)).length).toBe(1);
    const [pa, pb] = await Promise.all([a.prepare(), b.prepare()]);
    expect(JSON.stringify(pa.messages)).toBe(JSON.stringify(pb.messages));
  });

  it('still sends a prompt within budget when it loses the snapshot race twice (ST-5)', async () => {
    const inner = memoryStore();
    const rival: Snapshot = {
      id: 'rival',
      sessionId: 'lost',
      kind: 'summary',
      content: null,
      messageCutoffId: 'm0',
      cutoffSeq: 1,
      tokenCount: 0,
      createdAt: '',
    };
    let attempts = 0;
    const store: FullStore = new Proxy(inner, {
      get(target, key, receiver) {
        if (key === 'writeSnapshot') {
          return async () => {
            attempts++;
            return { written: false, latest: rival };
          };
        }
        const value = Reflect.get(target, key, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const session = await createChatfold({ window: WINDOW, store }).session('lost');
    await session.append(agentRun(30));
    const prepared = await session.prepare();
    expect(attempts).toBe(2);
    expect(prepared.report.compacted).toBe(true);
    // What is sent is the compacted projection the report describes, not the stored history.
    expect(prepared.messages.length).toBe(prepared.report.messagesAfter);
    expect(prepared.messages.length).toBeLessThan(prepared.report.messagesBefore);
    expect(prepared.report.tokensAfter).toBeLessThanOrEqual(prepared.report.budget.messages);
    expect(validate(prepared.messages, { allowPendingToolCalls: true })).toEqual([]);
    expect(await inner.snapshots('lost')).toEqual([]);
  });

  it('learns the limit from an overflow error, compacts under it and remembers it (RT-3)', async () => {
    const store = memoryStore();
    const chatfold = createChatfold({ window: 100_000, store });
    const session = await chatfold.session('overflow');
    await session.append(agentRun(30));
    const normal = await session.prepare();
    expect(normal.report.compacted).toBe(false);
    const error = {
      status: 400,
      error: {
        message: `This model's maximum context length is 8000 tokens. However, your messages resulted in ${normal.tokens + 500} tokens. Please reduce the length of the messages.`,
        code: 'context_length_exceeded',
      },
    };
    const retry = await session.prepare({ overflow: parseContextOverflow(error) });
    expect(retry.report.compacted).toBe(true);
    expect(retry.report.mode).toBe('overflow');
    expect(retry.report.budget.window).toBe(8_000);
    expect(retry.tokens).toBeLessThanOrEqual(8_000);
    const later = await createChatfold({ window: 100_000, store }).session('other');
    await later.append(agentRun(1));
    expect((await later.prepare()).report.budget.window).toBe(8_000);
  });

  it('falls back to the extractive summary when the summarizer fails, then backs off (RT-4, automatic only)', async () => {
    let now = Date.UTC(2026, 10, 1);
    const summarizer = createMockSummarizer(new Error('503 Service Unavailable'));
    // A messages trigger fires on every prepare() after ten new messages: three automatic compactions.
    const chatfold = createChatfold({
      window: WINDOW,
      now: () => new Date(now),
      summarizer,
      triggers: [{ messages: 10 }],
      floor: 0,
    });
    const session = await chatfold.session('fallback');
    const events: SessionEvent[] = [];
    session.on((e) => events.push(e));
    const messages = agentRun(40);
    await session.append(messages.slice(0, 60));
    const first = await session.prepare();
    expect(first.report.summary?.source).toBe('extractive');
    expect(first.report.fallbacks).toEqual([
      expect.objectContaining({ source: 'summarizer', fallback: 'extractive' }),
    ]);
    expect(summarizer.calls).toHaveLength(1); // one request per compaction, never re-asked
    expect(events.find((e) => e.type === 'summarizer-backoff')).toMatchObject({ retryAfterMs: 30_000 });
    await session.append(messages.slice(60, 100));
    const second = await session.prepare();
    expect(second.report.compacted).toBe(true);
    expect(summarizer.calls).toHaveLength(1); // within the back-off: no call, and the plan says why
    expect(second.report.fallbacks[0]?.reason).toMatch(/failed 1 time\(s\) in a row/);
    now += 31_000;
    await session.append(messages.slice(100));
    await session.prepare();
    expect(summarizer.calls).toHaveLength(2);
  });

  it('calibrates counts from reported usage (TOK-5)', async () => {
    const chatfold = createChatfold({ window: WINDOW });
    const session = await chatfold.session('usage');
    const [message] = await session.append({ role: 'user', parts: [{ type: 'text', text: 'hello there' }] });
    const prepared = await session.prepare();
    await session.recordUsage({ inputTokens: prepared.tokens * 2, outputTokens: 5 });
    const reply = await session.append({ role: 'assistant', parts: [{ type: 'text', text: 'hi' }] });
    await session.recordUsage({ inputTokens: 40, outputTokens: 1, messageId: reply[0]?.id as string });
    expect((await session.status()).accuracy).toBe('calibrated');
    const rows = await session.history();
    expect(rows.find((row) => row.message.id === reply[0]?.id)).toMatchObject({
      inputTokens: 40,
      outputTokens: 1,
    });
    expect(rows[0]?.message.id).toBe(message?.id);
  });

  it('rejects bad options and session ids with typed errors', async () => {
    expect(() => createChatfold({} as never)).toThrow(ChatfoldError);
    expect(() => createChatfold({ window: 1000, store: {} as Store })).toThrow(/expected a store/);
    const chatfold = createChatfold({ window: WINDOW });
    expect(() => chatfold.session('')).toThrow(expect.objectContaining({ code: 'E_INVALID_SESSION_ID' }));
    await expect(
      (await chatfold.session('ok')).append({ role: 'robot', parts: [] } as never),
    ).rejects.toMatchObject({ code: 'E_UNKNOWN_ROLE' });
  });
});

describe('session compactions that transform messages without removing them', () => {
  it('resumes a compaction that only clipped a tool result with the same prompt (ST-6, RT-5)', async () => {
    const store = memoryStore();
    const messages = buildConversation()
      .system('You are a careful coding agent.')
      .user('Goal: fix the parser bug')
      .toolRound([
        { name: 'Read', args: { file_path: '/repo/big.ts' }, result: 'const big = 1;\n'.repeat(1_000) },
      ])
      .assistant('Read big.ts; the bug is on line 3.')
      .user('Fix it.')
      .build();
    // Only the cheap stages: an automatic compaction that clipping alone brings under the target.
    const options = {
      window: WINDOW,
      store,
      policy: { pipeline: ['clip', 'truncate'], triggers: [{ fraction: 0.25 }], target: { fraction: 0.2 } },
    };
    const session = await createChatfold(options).session('clip-only');
    await session.append(messages);
    const report = await session.compact({ mode: 'auto' });
    expect(report.compacted).toBe(true);
    expect(report.messagesAfter).toBe(messages.length); // nothing removed, one message clipped
    const before = await session.prepare();
    expect(before.tokens).toBeLessThan(report.tokensBefore);

    const resumed = await createChatfold(options).session('clip-only');
    const after = await resumed.prepare();
    expect(JSON.stringify(after.messages)).toBe(JSON.stringify(before.messages));
  });
});

describe('overflow retries that lose the snapshot race', () => {
  it('shrinks the window once per reported overflow, also when the compaction is redone (RT-3)', async () => {
    const inner = memoryStore();
    let rivals = 0;
    // Another instance writes its snapshot just before this session's first write.
    const store: FullStore = new Proxy(inner, {
      get(target, key, receiver) {
        if (key === 'writeSnapshot') {
          return async (...args: Parameters<Store['writeSnapshot']>) => {
            if (rivals++ > 0) return target.writeSnapshot(...args);
            const rival = await target.writeSnapshot(
              args[0],
              { kind: 'summary', content: null, messageCutoffId: 'm0', cutoffSeq: 1, tokenCount: 0 },
              { expectedLatestId: null },
            );
            return { written: false, latest: rival.written ? rival.snapshot : undefined };
          };
        }
        const value = Reflect.get(target, key, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const session = await createChatfold({ window: 30_000, store }).session('shrink');
    await session.append(agentRun(30));
    // An overflow error without numbers: the window is assumed 15 % smaller, once.
    const retry = await session.prepare({ overflow: {} });
    expect(rivals).toBe(2);
    expect(retry.report.budget.window).toBe(25_500);
    expect((await inner.getSetting('chatfold.learned-window:window-30000')) ?? 25_500).toBe(25_500);
  });
});

describe('summarizer back-off (RT-4)', () => {
  it('does not count an earlier fallback summary again when a compaction summarizes nothing', async () => {
    let now = Date.UTC(2026, 10, 1);
    const summarizer = createMockSummarizer(new Error('503 Service Unavailable'));
    // The second compaction gets under the target without a new summary.
    let summarizing = true;
    const inner = summarize({ summarizer });
    const gated: Strategy = {
      name: 'summarize',
      apply: (messages, context) =>
        summarizing
          ? inner.apply(messages, context)
          : {
              edits: {},
              effect: { dropped: 0, stubbed: 0, masked: 0, summarized: 0, clipped: 0, notes: [] },
            },
    };
    const chatfold = createChatfold({
      window: WINDOW,
      now: () => new Date(now),
      strategy: ['clip', 'supersede', 'mask', gated, 'truncate'],
      summarizer,
    });
    const session = await chatfold.session('no-new-summary');
    const fallbacks: SessionEvent[] = [];
    session.on('summarizer-backoff', (event) => fallbacks.push(event));
    await session.append(agentRun(30));
    await session.compact({ mode: 'auto' }); // automatic: only these back off
    expect(fallbacks).toHaveLength(1);
    const callsAfterFirst = summarizer.calls.length;
    now += 31_000; // the back-off is over: the summarizer is configured again
    summarizing = false;
    await session.append(
      agentRun(10)
        .slice(2)
        .map((message) => ({ ...message, id: `next_${message.id}` })),
    );
    const report = await session.compact({ mode: 'auto' });
    expect(report.compacted).toBe(true);
    expect(summarizer.calls).toHaveLength(callsAfterFirst); // the summarizer was not called, so it did not fail
    expect(report.summary).toBeUndefined(); // this compaction wrote no summary…
    expect((await session.status()).messagesSummarized).toBeGreaterThan(0); // …the first one is still sent
    expect(fallbacks).toHaveLength(1);
  });
});

describe('createChatfold after a failed store read', () => {
  it('opens the session on the next call when reading the learned limit failed once', async () => {
    const store = createMockStore({ fail: { getSetting: [new Error('connection reset')] } });
    const chatfold = createChatfold({ window: WINDOW, store });
    await expect(chatfold.session('flaky')).rejects.toThrow(/connection reset/);
    const session = await chatfold.session('flaky');
    expect(session.id).toBe('flaky');
  });
});
