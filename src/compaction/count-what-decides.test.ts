import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chatfoldMetadata } from '../projection/chatfold-metadata.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { createMockTokenCounter } from '../test/mock-token-counter.ts';
import { applyCompactionPlan } from './apply-plan.ts';
import { compact } from './compact.ts';
import { planCompaction } from './plan-compaction.ts';

// Issue 19 §3: a cold compaction counts newest first and estimates what it then summarizes or
// drops; the decision and what is sent stay what the whole count would give.

const step = fc.oneof(
  fc.record({
    kind: fc.constant('talk' as const),
    user: fc.integer({ min: 1, max: 600 }),
    reply: fc.integer({ min: 1, max: 3000 }),
  }),
  fc.record({
    kind: fc.constant('tools' as const),
    size: fc.integer({ min: 1, max: 9000 }),
    name: fc.constantFrom('Read', 'Bash', 'Grep'),
  }),
);

function history(steps: readonly (typeof step extends fc.Arbitrary<infer T> ? T : never)[]) {
  const builder = buildConversation().system('system prompt').user('the goal of this session');
  steps.forEach((s, i) => {
    if (s.kind === 'talk')
      builder.assistant(`reply ${i} `.padEnd(s.reply, 'r')).user(`ask ${i} `.padEnd(s.user, 'u'));
    else
      builder.toolRound([
        {
          name: s.name,
          args: s.name === 'Bash' ? { command: `cat f${i}.txt` } : { file_path: `src/f${i}.ts` },
          result: `output ${i} `.padEnd(s.size, 'o'),
        },
      ]);
  });
  return builder.user('the latest question').build();
}

/** What a compaction kept of the input as it was (ids), and whether it compacted. */
const outcome = (
  input: readonly { id: string }[],
  out: readonly Parameters<typeof chatfoldMetadata>[0][],
) => {
  const original = new Map(input.map((m) => [m.id, m]));
  return out
    .filter((m) => chatfoldMetadata(m) === undefined && original.get(m.id) !== undefined)
    .map((m) => m.id);
};

describe('a long history is counted only as far as the decision needs', () => {
  it('decides, keeps and sends what counting everything would (property)', async () => {
    const seen = { estimated: 0, whole: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 10, maxLength: 120 }),
        fc.integer({ min: 2000, max: 12_000 }),
        fc.constantFrom('auto' as const, 'manual' as const),
        async (steps, window, mode) => {
          const messages = history(steps);
          const options = { window, mode, responseReserve: 300, safetyMargin: 0.05 } as const;
          // The same counts; an `approximate` counter is always counted in full.
          const lazy = createMockTokenCounter();
          const whole = createMockTokenCounter({ accuracy: 'approximate' });
          const a = await compact(messages, { ...options, counter: lazy });
          const b = await compact(messages, { ...options, counter: whole });
          expect(a.plan.compacted).toBe(b.plan.compacted);
          expect(a.plan.mode).toBe(b.plan.mode);
          expect(a.plan.target).toBe(b.plan.target);
          // The same reason; only the number an estimate stands for may differ.
          const shape = (reason: string) => reason.replace(/~?[\d,]+/g, 'N');
          expect(shape(a.plan.reason)).toBe(shape(b.plan.reason));
          expect(outcome(messages, a.messages)).toEqual(outcome(messages, b.messages));
          // What is sent is counted exactly, and fits.
          expect(a.plan.tokensAfter).toBe(lazy.count(a.messages).total);
          expect(a.plan.tokensAfter).toBeLessThanOrEqual(a.plan.budget.messages);
          if (a.plan.tokensBeforeEstimated === true) {
            // Only a history far above the window is estimated.
            expect(whole.count(messages).total).toBeGreaterThan(2 * window);
            expect(a.plan.reason).toContain('~');
            seen.estimated++;
          } else {
            seen.whole++;
            expect(a.plan.tokensBefore).toBe(b.plan.tokensBefore);
            expect(a.plan.reason).toBe(b.plan.reason);
          }
        },
      ),
      { numRuns: 120 },
    );
    // Both paths were exercised.
    expect(seen.estimated).toBeGreaterThan(10);
    expect(seen.whole).toBeGreaterThan(10);
  });

  it('does not count most of a long history it summarizes', async () => {
    const steps = Array.from({ length: 1500 }, (_, i) =>
      i % 3 === 0
        ? { kind: 'talk' as const, user: 200, reply: 800 }
        : { kind: 'tools' as const, size: 3000, name: i % 2 ? ('Read' as const) : ('Bash' as const) },
    );
    const messages = history(steps);
    const counter = createMockTokenCounter();
    const { plan, messages: out } = await compact(messages, { window: 16_000, counter });
    expect(plan.compacted).toBe(true);
    expect(plan.tokensBeforeEstimated).toBe(true);
    const counted = new Set(counter.calls.countMessage.map((m) => m.id));
    expect(counted.size).toBeLessThan(messages.length / 10);
    // Within a few percent of the whole count, which it did not make.
    const whole = createMockTokenCounter().count(messages).total;
    expect(Math.abs(plan.tokensBefore - whole) / whole).toBeLessThan(0.05);
    expect(plan.tokensAfter).toBe(createMockTokenCounter().count(out).total);
    // The plan is data: through JSON it checks and applies.
    const json = JSON.parse(JSON.stringify(plan));
    expect(applyCompactionPlan(messages, json)).toEqual(out);
  });

  it('says nothing of estimates when the history is counted in full', async () => {
    const messages = history(
      Array.from({ length: 30 }, () => ({ kind: 'tools' as const, size: 2000, name: 'Read' as const })),
    );
    const plan = await planCompaction(messages, {
      window: 16_000,
      counter: createMockTokenCounter(),
      mode: 'manual',
    });
    expect(plan.tokensBeforeEstimated).toBeUndefined();
    expect('tokensBeforeEstimated' in plan).toBe(false);
    expect(plan.reason).not.toContain('~');
  });
});
