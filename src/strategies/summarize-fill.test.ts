import { describe, expect, it } from 'vitest';
import { compact } from '../compaction/compact.ts';
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

  it('keeps a model summary to one request, whatever it leaves', async () => {
    const messages = history(200);
    let calls = 0;
    const { plan } = await compact(messages, {
      window: 32_000,
      counter: createMockTokenCounter(),
      summarizer: async () => {
        calls++;
        return 'The user asked to read the files one after the other; each read succeeded and nothing was changed yet.';
      },
    });
    expect(plan.fallbacks).toEqual([]);
    expect(plan.summary?.source).toBe('llm');
    expect(calls).toBe(1);
    expect(plan.tokensAfter).toBeLessThanOrEqual(plan.target);
  });
});
