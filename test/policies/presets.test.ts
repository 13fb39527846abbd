// One test per rule of each preset, against the numbers of the design it reproduces:
// chat-app = seed 001 (FR-*), agent-summarize / agent-truncate = seed 000, rolling-summary =
// seed 004, local-* = seed 003. Counts come from a deterministic counter (⌈chars / 4⌉ per text,
// +3 per message, +3 per prompt), so every number below is exact.
import {
  ChatfoldError,
  compact,
  createChatfold,
  decide,
  type Message,
  memoryStore,
  POLICIES,
  planCompaction,
} from 'chatfold';
import { createMockSummarizer, createMockTokenCounter } from 'chatfold/test';
import { describe, expect, it } from 'vitest';
import { chatfoldMetadata } from '../../src/projection/chatfold-metadata.ts';

const counter = createMockTokenCounter();
let nextId = 0;

/** A text of exactly `tokens` tokens as a message (the +3 per message included). */
function message(role: 'user' | 'assistant' | 'system', tokens: number, label = ''): Message {
  const body = `${label} `.padEnd((tokens - 3) * 4, 'x');
  return {
    id: `m${nextId++}`,
    role,
    parts: [{ type: 'text', text: body }],
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, nextId)).toISOString(),
  };
}

/** `pairs` user/assistant exchanges of `tokens` tokens per message, then a pending input. */
function chat(pairs: number, tokens: number, input = 20): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < pairs; i++)
    out.push(message('user', tokens, `q${i}`), message('assistant', tokens, `a${i}`));
  out.push(message('user', input, 'input'));
  return out;
}

const summary = (messages: readonly Message[]) =>
  messages.find((m) => chatfoldMetadata(m)?.transform === 'summary');

/** The text of a summary message (fails the test when there is none). */
function textOf(message: Message | undefined): string {
  const part = message?.parts[0];
  expect(part?.type).toBe('text');
  return part?.type === 'text' ? part.text : '';
}

const measure = (tokens: number, overrides: Partial<Parameters<typeof decide>[0]> = {}) => ({
  window: 100_000,
  maxOutputTokens: 4000,
  accuracy: 'exact' as const,
  toolTokens: 0,
  tokens,
  messages: 50,
  messagesSinceCompaction: 50,
  ...overrides,
});

describe('chat-app policy (a chat app: 95 %, reserve, retention 1,000 tokens)', () => {
  const policy = POLICIES['chat-app'];

  it('FR-1.2.2/1.2.4: compacts at 95 % of the window, and earlier when the prompt would eat into the max-output reserve + 5 % margin', () => {
    // Reserve 4,000 + margin 5,000: the budget (91,000) is reached before 95 %.
    expect(decide(measure(91_000), policy).compact).toBe(false);
    const early = decide(measure(91_001), policy);
    expect(early).toMatchObject({ compact: true, mode: 'auto', mustFit: true });
    expect(early.budget).toMatchObject({ responseReserve: 4000, safetyMargin: 5000, messages: 91_000 });
    // Without a reserve the 95 % trigger itself fires.
    const noReserve = decide(measure(95_000, { maxOutputTokens: 0 }), policy);
    expect(noReserve).toMatchObject({ compact: true, mode: 'auto', mustFit: false });
    expect(noReserve.reason).toMatch(/95 % of the window 100,000/);
    expect(decide(measure(94_999, { maxOutputTokens: 0 }), policy).compact).toBe(false);
  });

  it('FR-1.3.4: keeps exactly the newest messages that fit 1,000 tokens (3 × 300 = 900 kept, 4 × 300 = 1,200 not), plus the input', async () => {
    const messages = chat(10, 300);
    const { messages: out } = await compact(messages, {
      counter,
      window: 6000,
      maxOutputTokens: 0,
      policy: 'chat-app',
    });
    const kept = out.filter((m) => chatfoldMetadata(m) === undefined);
    expect(kept.map((m) => m.id)).toEqual(messages.slice(-4).map((m) => m.id));
  });

  it('retention 200, 1,000 and 5,000 give different, exact cuts', async () => {
    const messages = chat(20, 300);
    const keptFor = async (tokens: number) => {
      const { messages: out } = await compact(messages, {
        counter,
        window: 12_500,
        maxOutputTokens: 0,
        policy: { preset: 'chat-app', overrides: { retention: { tokens } } },
      });
      return out.filter((m) => chatfoldMetadata(m) === undefined).length - 1; // minus the input
    };
    expect(await keptFor(200)).toBe(0);
    expect(await keptFor(1000)).toBe(3);
    expect(await keptFor(5000)).toBe(16);
  });

  it('FR-1.5.1: context = the summary as the first system message + recent messages + input; the first user message is not pinned', async () => {
    const messages = chat(10, 300);
    const { messages: out } = await compact(messages, {
      counter,
      window: 6000,
      maxOutputTokens: 0,
      policy: 'chat-app',
    });
    expect(out[0]?.role).toBe('system');
    expect(summary(out)).toBe(out[0]);
    expect(out.some((m) => m.id === messages[0]?.id)).toBe(false);
    const withPrompt = [message('system', 50, 'You are helpful.'), ...messages];
    const { messages: out2 } = await compact(withPrompt, {
      counter,
      window: 6000,
      maxOutputTokens: 0,
      policy: 'chat-app',
    });
    expect(out2[0]?.id).toBe(withPrompt[0]?.id);
    expect(summary(out2)).toBe(out2[1]);
  });

  it('FR-2.2.1: a manual summary covers all messages; FR-5.4.2: allowed below the 2,000-token floor, with a warning', async () => {
    const messages = [...chat(3, 100)].slice(0, -1); // ends with the assistant's answer
    const plan = await planCompaction(messages, {
      counter,
      window: 100_000,
      policy: 'chat-app',
      mode: 'manual',
      summarizer: createMockSummarizer('A summary of the three questions and their answers, in order.'),
    });
    expect(plan.summary?.covers.count).toBe(messages.length);
    expect(plan.warnings.join()).toMatch(/below the 2000-token floor/);
  });

  it('FR-5.4.1: no automatic compaction below 2,000 tokens, even when a trigger holds (and it says so)', () => {
    const policy = { ...POLICIES['chat-app'], triggers: [{ messages: 2 }] };
    const small = decide(measure(1500), policy);
    expect(small).toMatchObject({ compact: false, heldByFloor: true });
    expect(small.reason).toMatch(/below the floor of 2,000 tokens/);
    expect(decide(measure(2000), policy).compact).toBe(true);
  });

  it('FR-5.1.1: an automatic summary that fails sends the full history (when it fits) and backs off; FR-5.1.2: a manual one is an error and changes nothing', async () => {
    let now = Date.UTC(2026, 10, 1);
    const summarizer = createMockSummarizer(new Error('503 Service Unavailable'));
    const chatfold = createChatfold({
      counter,
      window: 10_000,
      maxOutputTokens: 0,
      policy: 'chat-app',
      summarizer,
      now: () => new Date(now),
    });
    const session = await chatfold.session('fails');
    const events: string[] = [];
    session.on((event) => events.push(event.type));
    // Exactly 9,500 tokens (30 × 300 + 497 + 3): the 95 % trigger holds, the prompt still fits the budget.
    await session.append([...chat(15, 300).slice(0, -1), message('user', 497, 'more')]);
    expect((await session.status()).tokens).toBe(9500);
    const sent = await session.prepare();
    expect(sent.report.compacted).toBe(false);
    expect(sent.report.fallbacks).toEqual([
      expect.objectContaining({ source: 'summarizer', fallback: 'skipped' }),
    ]);
    expect(events).toContain('compaction-fallback');
    expect(events).toContain('summarizer-backoff');
    const before = (await session.status()).tokens;
    const error = await session.compact().catch((e: unknown) => e);
    expect(ChatfoldError.hasCode(error, 'E_SUMMARY_FAILED')).toBe(true);
    expect((await session.status()).tokens).toBe(before);
    expect(await chatfold.store.snapshots?.('fails')).toEqual([]);
    now += 1;
  });
});

describe('agent-truncate policy (history: truncate — 80 % of max input tokens, down to 70 %)', () => {
  it("fires at 80 %, keeps the first user message and the newest messages up to 70 %, with the document's marker", async () => {
    const messages = chat(20, 250); // 40 × 250 + input
    const window = 12_000; // max_input_tokens: nothing reserved
    expect(decide(measure(9599, { window }), POLICIES['agent-truncate']).compact).toBe(false);
    expect(decide(measure(9600, { window }), POLICIES['agent-truncate']).compact).toBe(true);
    const { messages: out, plan } = await compact(messages, { counter, window, policy: 'agent-truncate' });
    expect(plan.tokensAfter).toBeLessThanOrEqual(8400);
    // The tail fills up to the target: not stopped at some minimum.
    expect(plan.tokensAfter).toBeGreaterThan(8400 - 250 - 30);
    expect(out[0]?.id).toBe(messages[0]?.id);
    const marker = out.find((m) => chatfoldMetadata(m)?.transform === 'marker');
    const omitted = messages.length - (out.length - 1);
    expect(marker?.parts[0]).toEqual({
      type: 'text',
      text: `[${omitted} earlier messages truncated to fit context window]`,
    });
  });
});

describe('agent-summarize policy (history: summarize — goal + summary + the last 10 files)', () => {
  function agentRun(files: number): Message[] {
    const out: Message[] = [message('user', 40, 'Goal: fix the parser')];
    for (let i = 0; i < files; i++) {
      const content = Array.from({ length: 40 }, (_, line) => `line ${line} of file ${i}`).join('\n');
      out.push(
        {
          id: `call${nextId++}`,
          role: 'assistant',
          parts: [
            {
              type: 'tool-call',
              id: `c${i}`,
              name: 'read_file',
              arguments: JSON.stringify({ path: `src/f${i}.ts` }),
            },
          ],
          createdAt: new Date(Date.UTC(2026, 0, 2, 0, i)).toISOString(),
        },
        {
          id: `result${nextId++}`,
          role: 'tool',
          parts: [
            {
              type: 'tool-result',
              callId: `c${i}`,
              toolName: 'read_file',
              content: [{ type: 'text', text: content }],
            },
          ],
          createdAt: new Date(Date.UTC(2026, 0, 2, 0, i, 1)).toISOString(),
        },
        message('assistant', 400, `notes on file ${i}`),
      );
    }
    return out;
  }

  it('fires at 80 % and leaves the goal, one summary and the latest content of the last 10 files, each whole', async () => {
    const messages = agentRun(14);
    const window = Math.floor(counter.count(messages).total / 0.8);
    const { messages: out, plan } = await compact(messages, { counter, window, policy: 'agent-summarize' });
    expect(plan.compacted).toBe(true);
    expect(out[0]?.id).toBe(messages[0]?.id);
    const text = textOf(summary(out));
    const files = text.slice(text.indexOf('## Latest content of recently used files'));
    for (let i = 4; i < 14; i++) {
      // Whole: every one of the 40 lines, nothing clipped.
      for (const line of [0, 20, 39]) expect(files).toContain(`line ${line} of file ${i}`);
    }
    for (let i = 0; i < 4; i++) expect(files).not.toContain(`### src/f${i}.ts`);
    expect(files).not.toMatch(/chatfold clipped/);
    expect(plan.tokensAfter).toBeLessThan(plan.tokensBefore);
    // A second compaction carries the files forward (they are no longer in the messages).
    const more = [
      ...out,
      ...agentRun(0),
      message('assistant', 3000, 'long answer'),
      message('user', 3000, 'long question'),
    ];
    const second = await compact(more, { counter, window, policy: 'agent-summarize', mode: 'manual' });
    const text2 = textOf(summary(second.messages));
    for (let i = 4; i < 14; i++) expect(text2).toContain(`line 39 of file ${i}`);
  });
});

describe('rolling-summary policy (N = 30 messages OR K = 128,000 tokens, 6 recent kept)', () => {
  const policy = POLICIES['rolling-summary'];

  it('triggers after N = 30 messages since the last summary, or at K = 128,000 tokens, whichever comes first', () => {
    const base = { window: 200_000, accuracy: 'exact' as const, toolTokens: 0, messages: 40 };
    expect(decide({ ...base, tokens: 45_000, messagesSinceCompaction: 29 }, policy).compact).toBe(false);
    expect(decide({ ...base, tokens: 45_000, messagesSinceCompaction: 30 }, policy).reason).toMatch(
      /30 messages since the last compaction ≥ 30/,
    );
    expect(decide({ ...base, tokens: 128_000, messagesSinceCompaction: 8 }, policy).reason).toMatch(
      /128,000 tokens/,
    );
    expect(
      decide({ ...base, tokens: 45_000, messagesSinceCompaction: 8 }, policy).budget.responseReserve,
    ).toBe(4096);
  });

  it('nothing to summarize below 10 messages (6 recent + 4), even with a smaller N', () => {
    const quick = { ...policy, triggers: [{ messages: 5 }] };
    const base = { window: 200_000, accuracy: 'exact' as const, toolTokens: 0, tokens: 500 };
    expect(decide({ ...base, messages: 9, messagesSinceCompaction: 9 }, quick)).toMatchObject({
      compact: false,
      heldByFloor: true,
    });
    expect(decide({ ...base, messages: 10, messagesSinceCompaction: 10 }, quick).compact).toBe(true);
  });

  it('scenario 1: with N = 10 the session summarizes after 10 messages, keeps the newest 6 verbatim behind a system summary, and every message stays stored', async () => {
    const store = memoryStore();
    const chatfold = createChatfold({
      counter,
      window: 200_000,
      store,
      policy: { preset: 'rolling-summary', overrides: { triggers: [{ messages: 10 }, { tokens: 128_000 }] } },
      summarizer: createMockSummarizer('The user asked a dozen questions; the answers covered each of them.'),
    });
    const session = await chatfold.session('rolling');
    const messages = chat(6, 50).slice(0, -1); // 12 messages
    await session.append(messages);
    const { messages: sent, report } = await session.prepare();
    expect(report.compacted).toBe(true);
    expect(sent[0]?.role).toBe('system');
    expect(summary(sent)).toBe(sent[0]);
    expect(sent.slice(1).map((m) => m.id)).toEqual(messages.slice(-6).map((m) => m.id));
    expect(await store.messages('rolling')).toHaveLength(12);
  });
});

describe('local-model policies (max_context_tokens 32,000, target_tokens 28,000, keep_recent 10)', () => {
  function longChat(): Message[] {
    const out: Message[] = [message('system', 30, 'You are a helpful assistant')];
    for (let i = 0; i < 100; i++)
      out.push(message('user', 10, `Message ${i}`), message('assistant', 300, `Answer ${i}`));
    return out;
  }

  it('truncation: 100 messages auto-compact at 28,000 tokens to the system prompt + the last 10 messages', async () => {
    const messages = longChat();
    expect(counter.count(messages).total).toBeGreaterThanOrEqual(28_000);
    const { messages: out } = await compact(messages, {
      counter,
      window: 32_000,
      policy: 'local-truncation',
    });
    expect(out.length).toBeLessThan(messages.length);
    expect(out[0]?.id).toBe(messages[0]?.id);
    const kept = out.filter((m) => chatfoldMetadata(m) === undefined && m.role !== 'system');
    expect(kept.map((m) => m.id)).toEqual(messages.slice(-10).map((m) => m.id));
  });

  it('never splits a tool call from its result', async () => {
    const messages = longChat().slice(0, 190);
    messages.splice(
      -9,
      0,
      {
        id: 'tc',
        role: 'assistant',
        parts: [{ type: 'tool-call', id: 'c1', name: 'search', arguments: '{"q":"x"}' }],
        createdAt: '2026-01-03T00:00:00.000Z',
      },
      {
        id: 'tr',
        role: 'tool',
        parts: [
          {
            type: 'tool-result',
            callId: 'c1',
            toolName: 'search',
            content: [{ type: 'text', text: 'found' }],
          },
        ],
        createdAt: '2026-01-03T00:00:01.000Z',
      },
    );
    for (const policy of ['local-truncation', 'local-importance', 'local-summarization'] as const) {
      const { messages: out } = await compact(messages, { counter, window: 32_000, policy });
      const ids = new Set(out.map((m) => m.id));
      expect(ids.has('tc'), policy).toBe(ids.has('tr'));
    }
  });

  it('importance: the lowest-scored messages outside the recent 10 go first, with one marker, below target_tokens', async () => {
    const messages = longChat();
    const { messages: out, plan } = await compact(messages, {
      counter,
      window: 32_000,
      policy: 'local-importance',
    });
    expect(plan.tokensAfter).toBeLessThanOrEqual(28_000);
    expect(out.filter((m) => chatfoldMetadata(m)?.transform === 'marker')).toHaveLength(1);
    // Short user questions (score 1.0) outlive long assistant answers (0.6).
    const keptUsers = out.filter((m) => m.role === 'user' && chatfoldMetadata(m) === undefined).length;
    expect(keptUsers).toBeGreaterThan(out.filter((m) => m.role === 'assistant').length);
  });

  it('summarization: older messages become one system summary of at most 500 tokens; the last 10 stay verbatim', async () => {
    const messages = longChat();
    const { messages: out, plan } = await compact(messages, {
      counter,
      window: 32_000,
      policy: 'local-summarization',
      summarizer: createMockSummarizer('x'.repeat(4000)),
    });
    expect(summary(out)?.role).toBe('system');
    expect(counter.countText(plan.summary?.text ?? '')).toBeLessThanOrEqual(500);
    expect(out.slice(-10).map((m) => m.id)).toEqual(messages.slice(-10).map((m) => m.id));
  });
});
