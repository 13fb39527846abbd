import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../defaults.ts';
import type { Message } from '../messages/types.ts';
import { validate } from '../messages/validate.ts';
import { memoryStore } from '../stores/memory/index.ts';
import {
  hasSearch,
  hasSessionCatalog,
  hasSettings,
  hasSnapshotHistory,
  type Store,
} from '../stores/types.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { createMockTokenCounter } from '../test/mock-token-counter.ts';
import { createChatfold } from './create-chatfold.ts';
import type { SessionEvent } from './types.ts';

function agentRun(steps: number, prefix = ''): Message[] {
  const builder = buildConversation()
    .system('You are a coding agent.')
    .user('Fix the failing test in src/app.ts');
  for (let i = 0; i < steps; i++) {
    builder.assistant(`Step ${i}: reading file ${i}.`).toolRound([
      {
        name: 'Read',
        args: { file_path: `src/${prefix}file${i}.ts` },
        result: `// file ${i}\n${'const value = compute();\n'.repeat(60)}`,
      },
    ]);
  }
  return builder.user('Now run the suite').build();
}

const WINDOW = 12_000;

/** A summarizer that only answers when aborted, or after a minute. */
function hangingSummarizer(seen: AbortSignal[]) {
  return (request: { signal: AbortSignal }) => {
    seen.push(request.signal);
    return new Promise<string>((_, reject) => {
      const timer = setTimeout(() => reject(new Error('never')), 60_000);
      request.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(request.signal.reason);
      });
    });
  };
}

describe('session state is per session (HK-1, engine 1.0)', () => {
  it('beforeCompact cancels in other sessions do not force a compaction in this one', async () => {
    const hooks = { beforeCompact: () => ({ cancel: true }) };
    const chatfold = createChatfold({ window: 100_000, hooks });
    for (const id of ['x', 'y', 'z']) {
      const session = await chatfold.session(id);
      await session.append(agentRun(4));
      expect((await session.compact()).cancelled).toBe(true);
    }
    const w = await chatfold.session('w');
    await w.append(agentRun(4));
    expect((await w.compact()).cancelled).toBe(true); // w's first cancel is honoured
    for (let i = 1; i < DEFAULTS.maxConsecutiveCancels; i++) expect((await w.compact()).cancelled).toBe(true);
    expect((await w.compact()).cancelled).toBe(false); // only w's own cancels count
  });

  it('remembers the summarizer back-off across a restart; a manual request still calls the model', async () => {
    const store = memoryStore();
    let calls = 0;
    const now = Date.UTC(2026, 10, 1);
    const options = {
      window: WINDOW,
      store,
      now: () => new Date(now),
      summarizer: async () => {
        calls++;
        throw new Error('503');
      },
    };
    const first = await createChatfold(options).session('s');
    await first.append(agentRun(40));
    const { report } = await first.prepare();
    expect(calls).toBe(1);
    // The automatic compaction fell back, and says so (never shown as success).
    expect(report.fallbacks).toEqual([
      expect.objectContaining({ source: 'summarizer', fallback: 'extractive' }),
    ]);
    const resumed = await createChatfold(options).session('s');
    await resumed.append(agentRun(40, 'more-').map((message) => ({ ...message, id: `more_${message.id}` })));
    const again = await resumed.prepare();
    expect(calls).toBe(1); // still backing off after the restart
    expect(again.report.fallbacks.map((fallback) => fallback.reason).join()).toMatch(/tries it again after/);
    // A manual request ignores the back-off: it calls the model, and its failure is an error (default policy).
    await expect(resumed.compact()).rejects.toMatchObject({ code: 'E_SUMMARY_FAILED' });
    expect(calls).toBe(2);
  });
});

describe('aborting (engine 1.0)', () => {
  it('prepare({ signal }) with an aborted signal rejects with an AbortError', async () => {
    const session = await createChatfold({ window: WINDOW }).session('a');
    await session.append(agentRun(2));
    const controller = new AbortController();
    controller.abort();
    await expect(session.prepare({ signal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
  });

  it('an abort mid-summary cancels the model call, keeps history, and the next prepare works', async () => {
    const seen: AbortSignal[] = [];
    const chatfold = createChatfold({ window: WINDOW, summarizer: hangingSummarizer(seen) });
    const session = await chatfold.session('b');
    const messages = agentRun(40);
    await session.append(messages);
    const controller = new AbortController();
    const pending = session.prepare({ signal: controller.signal });
    while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen[0]?.aborted).toBe(true);
    expect((await session.history()).length).toBe(messages.length);
    expect(await chatfold.store.snapshots('b')).toHaveLength(0);
  });
});

describe('session.compact({ dryRun }) (WEB-5, CLI /summarize preview)', () => {
  it('returns what a manual compaction would do without a model call, a snapshot or an event', async () => {
    let calls = 0;
    const chatfold = createChatfold({
      window: WINDOW,
      summarizer: async () => {
        calls++;
        return 'A summary long enough to be accepted as the LLM summary of this conversation.';
      },
    });
    const session = await chatfold.session('d');
    await session.append(agentRun(6));
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const before = await session.prepare();
    const preview = await session.compact({ dryRun: true });
    expect(preview.compacted).toBe(true);
    expect(preview.summary?.covers.count).toBeGreaterThan(0);
    expect(preview.tokensAfter).toBeLessThan(preview.tokensBefore);
    expect(calls).toBe(0);
    expect(events).toEqual([]);
    expect(await chatfold.store.snapshots('d')).toHaveLength(0);
    expect((await session.prepare()).messages).toEqual(before.messages);
    const real = await session.compact({ mode: 'manual' });
    expect(real.summary?.covers.count).toBe(preview.summary?.covers.count);
    expect(calls).toBe(1);
  });
});

describe('createChatfold options (E_INVALID_OPTIONS at construction)', () => {
  it('throws for bad options when built, not on the first call', () => {
    const bad: [unknown, RegExp][] = [
      [{ window: WINDOW, target: 5 }, /target/],
      [{ window: WINDOW, strategy: 'nope' }, /unknown strategy/],
      [{ window: WINDOW, triggers: [{}] }, /triggers/],
      [{ window: WINDOW, policy: 'chat-ap' }, /unknown policy/],
      [{ window: WINDOW, policy: { retention: { tokns: 5 } } }, /tokns/],
      [{ window: WINDOW, summarizer: 42 }, /summarizer/],
      [{ window: WINDOW, hooks: { beforeCompaction: () => undefined } }, /beforeCompaction/],
      [{ window: -5 }, /window/],
    ];
    for (const [options, message] of bad) {
      expect(() => createChatfold(options as never), String(message)).toThrow(message);
    }
  });
});

describe('history marks (WEB-6, CLI /history)', () => {
  it('marks each stored message in context, summarized, or masked/superseded', async () => {
    const chatfold = createChatfold({ window: 40_000 });
    const session = await chatfold.session('h');
    const chat = buildConversation().system('You are helpful.').user('Plan a trip to Lisbon');
    for (let i = 0; i < 40; i++) {
      chat.assistant(`Day ${i}: ${'visit the old town, eat pastries, walk by the river. '.repeat(8)}`);
      chat.user(`And day ${i + 1}?`);
    }
    await session.append(chat.build());
    await session.compact();
    const history = await session.history();
    const statuses = new Set(history.map((entry) => entry.status));
    expect(statuses.has('summarized')).toBe(true);
    expect(statuses.has('in-context')).toBe(true);
    const compactions = await session.compactions();
    expect(compactions).toHaveLength(1);
    expect(compactions[0]).toMatchObject({ mode: 'manual' });
    expect(compactions[0]?.tokensAfter).toBeLessThan(compactions[0]?.tokensBefore ?? 0);
    const status = await session.status();
    const { breakdown } = status;
    expect(
      breakdown.systemPrompt +
        breakdown.tools +
        breakdown.summary +
        breakdown.messages +
        breakdown.reservedOutput +
        breakdown.safetyMargin +
        breakdown.free,
    ).toBe(status.window);
    expect(breakdown.summary).toBeGreaterThan(0);
  });
});

describe('a store with only the core interface (ST-1 capabilities)', () => {
  it('runs sessions: compaction, resume, status and history search without catalog, search or settings', async () => {
    const inner = memoryStore();
    const core: Store = {
      kind: 'core-only',
      append: (...args) => inner.append(...args),
      messages: (...args) => inner.messages(...args),
      recordUsage: (...args) => inner.recordUsage(...args),
      latestSnapshot: (...args) => inner.latestSnapshot(...args),
      writeSnapshot: (...args) => inner.writeSnapshot(...args),
      context: (...args) => inner.context(...args),
      close: () => inner.close(),
    };
    expect([hasSearch(core), hasSettings(core), hasSessionCatalog(core), hasSnapshotHistory(core)]).toEqual([
      false,
      false,
      false,
      false,
    ]);
    const chatfold = createChatfold({ window: 40_000, store: core });
    const session = await chatfold.session('core');
    await session.append(agentRun(30));
    await session.compact();
    const found = await session.history({ text: 'src/file3.ts' });
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((entry) => JSON.stringify(entry.message).includes('src/file3.ts'))).toBe(true);
    expect((await session.status()).compactions).toBe(1);
    expect(await session.compactions()).toHaveLength(1);
    const resumed = await createChatfold({ window: 40_000, store: core }).session('core');
    expect((await resumed.prepare()).messages).toEqual((await session.prepare()).messages);
  });
});

describe('a counter with an exact endpoint (TOK-4)', () => {
  it('is asked near the trigger, and its count decides', async () => {
    const local = createMockTokenCounter();
    const calls: number[] = [];
    // The provider counts 40 % more than the local estimate (a calibrated estimate drifting low).
    const counter = {
      ...local,
      countText: (text: string) => local.countText(text),
      countMessage: (message: Message) => local.countMessage(message),
      count: (messages: readonly Message[], options?: Parameters<typeof local.count>[1]) =>
        local.count(messages, options),
      countExact: async (messages: readonly Message[]) => {
        const estimate = local.count(messages);
        calls.push(estimate.total);
        return { ...estimate, total: Math.round(estimate.total * 1.4), accuracy: 'exact' as const };
      },
    };
    const chatfold = createChatfold({ window: 16_000, counter, triggers: [{ fraction: 0.5 }] });
    const session = await chatfold.session('exact');
    const messages = agentRun(30);
    let appended = 0;
    let compacted = false;
    while (!compacted && appended < messages.length) {
      await session.append(messages.slice(appended, appended + 4));
      appended += 4;
      const { report } = await session.prepare();
      compacted = report.compacted;
      if (compacted) {
        // The local estimate alone was below the 50 % trigger; the exact count was above it.
        expect(report.tokensBefore).toBeGreaterThanOrEqual(0.5 * report.budget.window);
        expect(local.count(messages.slice(0, appended)).total).toBeLessThan(0.5 * report.budget.window);
      }
    }
    expect(calls.length).toBeGreaterThan(0);
    expect(compacted).toBe(true);
  });
});

describe('seed 004 triggers: N messages / K tokens below the target', () => {
  it('a messages trigger compacts even when the prompt is far below the target, and resume counts from the compaction', async () => {
    const store = memoryStore();
    const options = { window: 200_000, store, triggers: [{ messages: 12 }], floor: 0 };
    const session = await createChatfold(options).session('n');
    const chat = buildConversation().system('You are helpful.').user('Plan a trip');
    for (let i = 0; i < 8; i++) {
      chat.assistant(`Day ${i}: ${'see the old town and the river, then eat well. '.repeat(6)}`);
      chat.user(`And day ${i + 1}?`);
    }
    await session.append(chat.build());
    const { report } = await session.prepare();
    expect(report.compacted).toBe(true);
    expect(report.reason).toMatch(/messages since the last compaction ≥ 12/);
    expect((await session.status()).messagesSinceCompaction).toBe(0);
    const resumed = await createChatfold(options).session('n');
    expect((await resumed.status()).messagesSinceCompaction).toBe(0);
  });

  it('an automatic compaction that would not reduce the prompt is not applied — unless a messages trigger asked for the summary', async () => {
    const tiny = buildConversation()
      .user('hi')
      .assistant('hello')
      .user('ok')
      .assistant('sure')
      .user('go')
      .build();
    // A token trigger above the target: the summary of five short messages is bigger than they are.
    const byTokens = createChatfold({
      window: 200_000,
      policy: {
        triggers: [{ tokens: 10 }],
        floor: { tokens: 0 },
        target: { tokens: 20 },
        pipeline: ['summarize'],
      },
    });
    const session = await byTokens.session('tiny');
    await session.append(tiny);
    const { report } = await session.prepare();
    expect(report.compacted).toBe(false);
    expect(report.reason).toMatch(/would not reduce the prompt/);
    expect(await byTokens.store.snapshots('tiny')).toHaveLength(0);
    // "Summarize after N messages" is a request for a summary: it is made, with a warning.
    const byMessages = createChatfold({
      window: 200_000,
      policy: {
        triggers: [{ messages: 4 }],
        floor: { tokens: 0 },
        retention: { messages: 1 },
        protect: { recentMessages: 0 },
      },
    });
    const other = await byMessages.session('tiny');
    await other.append(tiny);
    const rolled = await other.prepare();
    expect(rolled.report.compacted).toBe(true);
    expect(rolled.report.warnings.join()).toMatch(/not smaller/);
    const manual = await session.compact({ dryRun: true });
    if (manual.compacted) expect(manual.warnings.join()).toMatch(/not smaller/);
  });
});

describe('regenerate a summary from the originals (WEB-4)', () => {
  it('summarizes the stored original messages again; the new summary replaces the old one', async () => {
    const texts = [
      'First summary: the user planned a trip to Lisbon day by day, old town and river.',
      'Second summary, written again from the original messages of the Lisbon trip plan.',
    ];
    const requests: string[] = [];
    const chatfold = createChatfold({
      window: 40_000,
      summarizer: async (request) => {
        requests.push(request.prompt.user);
        return texts[requests.length - 1] ?? 'unexpected';
      },
    });
    const session = await chatfold.session('r');
    const chat = buildConversation().system('You are helpful.').user('Plan a trip to Lisbon');
    for (let i = 0; i < 30; i++) {
      chat.assistant(`Day ${i}: ${'visit the old town, eat pastries, walk by the river. '.repeat(8)}`);
      chat.user(`And day ${i + 1}?`);
    }
    await session.append(chat.build());
    const first = await session.compact();
    expect(first.summary?.text).toBe(texts[0]);
    const again = await session.compact({ from: 'originals' });
    expect(again.summary?.text).toBe(texts[1]);
    expect(again.summary?.covers.count).toBeGreaterThanOrEqual(first.summary?.covers.count ?? 0);
    // The second request saw the original messages, not the first summary.
    expect(requests[1]).not.toContain(texts[0]);
    expect(requests[1]).toContain('Day 3');
    const { messages } = await session.prepare();
    const summaries = messages.filter((message) => JSON.stringify(message).includes('summary'));
    expect(messages.filter((message) => JSON.stringify(message).includes(texts[0] as string))).toHaveLength(
      0,
    );
    expect(summaries.some((message) => JSON.stringify(message).includes(texts[1] as string))).toBe(true);
    expect(await chatfold.store.snapshots('r')).toHaveLength(2);
    const resumed = await createChatfold({ window: 40_000, store: chatfold.store }).session('r');
    expect((await resumed.prepare()).messages).toEqual(messages);
  });
});

describe('a stored history with another turn interleaved (issue 24)', () => {
  it('is repaired for sending, with an event; the store keeps what was written', async () => {
    const chatfold = createChatfold({ window: 40_000 });
    const session = await chatfold.session('interleaved');
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    await session.append([
      { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'read a.ts' }] },
      {
        id: 'a1',
        role: 'assistant',
        parts: [{ type: 'tool-call', id: 'c1', name: 'read_file', arguments: '{"path":"a.ts"}' }],
      },
      // A second turn written by another server before the first one's result:
      { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'and b.ts?' }] },
      {
        id: 'r1',
        role: 'tool',
        parts: [
          { type: 'tool-result', callId: 'c1', content: [{ type: 'text', text: 'export const a = 1;' }] },
        ],
      },
    ]);
    const { messages } = await session.prepare({ provider: 'openai' });
    expect(validate(messages, { provider: 'openai' })).toEqual([]);
    expect(events.find((event) => event.type === 'history-repaired')).toMatchObject({ moved: 1 });
    expect((await chatfold.store.messages('interleaved')).map((row) => row.message.id)).toEqual([
      'u1',
      'a1',
      'u2',
      'r1',
    ]);
  });
});
