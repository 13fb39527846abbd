import { describe, expect, it } from 'vitest';
import { compact } from '../compaction/compact.ts';
import { validate } from '../messages/validate.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { createMockTokenCounter } from '../test/mock-token-counter.ts';

// Issue 19 §1: a compaction lands on the policy's target — the verbatim tail takes what the
// summary leaves, not only what the reservations for it leave.
describe('the verbatim tail fills the target', () => {
  const history = (turns: number) => {
    const builder = buildConversation().system('system prompt').user('the goal of this session');
    for (let i = 0; i < turns; i++) {
      builder
        .assistant(`step ${i}: `.padEnd(600, 'a'))
        .toolRound([
          { name: 'Read', args: { file_path: `src/file${i % 7}.ts` }, result: `line ${i}\n`.repeat(60) },
        ])
        .user(`next ${i}`);
    }
    return builder.user('the latest question').build();
  };

  it.each([16_000, 32_000, 64_000, 128_000])(
    'lands within a tenth of the target at a %i-token window (extractive summary)',
    async (window) => {
      const messages = history(Math.ceil(window / 120));
      const counter = createMockTokenCounter();
      const { plan, messages: out } = await compact(messages, { window, counter });
      expect(plan.compacted).toBe(true);
      expect(plan.summary?.source).toBe('extractive');
      expect(plan.tokensAfter).toBe(counter.count(out).total);
      expect(plan.tokensAfter).toBeLessThanOrEqual(plan.target);
      expect(plan.tokensAfter).toBeGreaterThanOrEqual(0.9 * plan.target);
    },
  );

  it.each([32_000, 128_000])(
    "a model's summary is asked for once and the tail still lands on the target (%i-token window)",
    async (window) => {
      const messages = history(Math.ceil(window / 120));
      let calls = 0;
      const counter = createMockTokenCounter();
      const { plan, messages: out } = await compact(messages, {
        window,
        counter,
        summarizer: async () => {
          calls++;
          return 'The user asked to read the files one after the other; each read succeeded and nothing was changed yet.';
        },
      });
      expect(calls).toBe(1);
      expect(plan.fallbacks).toEqual([]);
      expect(plan.summary?.source).toBe('llm');
      expect(plan.tokensAfter).toBe(counter.count(out).total);
      expect(plan.tokensAfter).toBeLessThanOrEqual(plan.target);
      expect(plan.tokensAfter).toBeGreaterThanOrEqual(0.9 * plan.target);
      // The summary covers exactly what left the prompt: nothing it claims is also kept.
      const kept = new Set(out.map((m) => m.id));
      const index = new Map(messages.map((m, i) => [m.id, i]));
      const last = index.get(plan.summary?.covers.lastId ?? '') ?? -1;
      expect(last).toBeGreaterThan(0);
      for (const message of messages.slice(2, last + 1)) expect(kept.has(message.id)).toBe(false);
      expect(kept.has(messages[last + 1]?.id ?? '')).toBe(true);
    },
  );

  it('a failed model summary falls back once, said once, and is not asked again', async () => {
    const messages = history(300);
    let calls = 0;
    const events: string[] = [];
    const { plan } = await compact(messages, {
      window: 32_000,
      counter: createMockTokenCounter(),
      summarizer: async () => {
        calls++;
        throw new Error('model unavailable');
      },
      onEvent: (event) => {
        if (event.type === 'compaction-fallback') events.push(event.reason);
      },
    });
    expect(calls).toBe(1);
    expect(events).toHaveLength(1);
    expect(plan.fallbacks).toHaveLength(1);
    expect(plan.summary?.source).toBe('extractive');
    expect(plan.stages.find((stage) => stage.stage === 'summarize')?.notes.join(' ')).toContain('fell back');
    expect(plan.tokensAfter).toBeLessThanOrEqual(plan.target);
  });

  it('a tool group larger than what is left joins the tail with its outputs clipped, and the prompt lands on the target', async () => {
    // Small rounds, then one large read (four parallel results), then small rounds again: the
    // large group sits right where the verbatim tail ends, larger than what the summary leaves.
    const builder = buildConversation().system('system prompt').user('the goal of this session');
    const round = (i: number) =>
      builder
        .assistant(`step ${i}: `.padEnd(400, 'a'))
        .toolRound([
          { name: 'Read', args: { file_path: `src/small${i}.ts` }, result: `line ${i}\n`.repeat(40) },
        ])
        .user(`next ${i}`);
    for (let i = 0; i < 120; i++) round(i);
    builder.assistant('reading the generated files').toolRound(
      [0, 1, 2, 3].map((k) => ({
        name: 'Read',
        args: { file_path: `gen/big${k}.ts` },
        result: `export const row${k} = [${'1234567, '.repeat(4)}];\n`.repeat(260),
      })),
    );
    builder.user('next big');
    for (let i = 120; i < 150; i++) round(i);
    const messages = builder.user('the latest question').build();
    const counter = createMockTokenCounter();
    const window = 32_000;
    const whole = await compact(messages, { window, counter });
    const bigIds = messages
      .filter((m) => m.role === 'tool' && JSON.stringify(m).includes('export const row'))
      .map((m) => m.id);
    expect(bigIds.length).toBe(4); // the four results of one round
    const bigCall = messages.find((m) => m.role === 'assistant' && JSON.stringify(m).includes('gen/big0.ts'));
    const { plan, messages: out } = whole;
    expect(plan.tokensAfter).toBe(counter.count(out).total);
    expect(plan.tokensAfter).toBeLessThanOrEqual(plan.target);
    expect(plan.tokensAfter).toBeGreaterThanOrEqual(0.9 * plan.target);
    // The large group is kept, clipped: its call whole, every result present and marked, the
    // originals left in the history (replaced, never dropped).
    const kept = new Map(out.map((m) => [m.id, m]));
    expect(kept.get(bigCall?.id ?? '')).toEqual(bigCall);
    for (const id of bigIds) {
      const message = kept.get(id);
      expect(message).toBeDefined();
      expect(JSON.stringify(message)).toMatch(/characters omitted|omitted by chatfold|\[…/);
      expect(counter.countMessage(message as never)).toBeLessThan(
        counter.countMessage(messages.find((m) => m.id === id) as never),
      );
    }
    expect(plan.replaced.map((r) => r.id)).toEqual(expect.arrayContaining(bigIds));
    expect(plan.dropped).not.toEqual(expect.arrayContaining([bigIds[0]]));
    expect(validate(out)).toEqual([]);
    // The summary stops right before the group.
    const index = new Map(messages.map((m, i) => [m.id, i]));
    expect((index.get(plan.summary?.covers.lastId ?? '') ?? 0) + 1).toBe(index.get(bigCall?.id ?? ''));
  });
});
