import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../messages/types.ts';
import { validate } from '../messages/validate.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { createMockTokenCounter } from '../test/mock-token-counter.ts';
import { applyCompactionPlan } from './apply-plan.ts';
import { planWithOptions } from './plan-compaction.ts';
import type { CompactionPlan } from './types.ts';

const counter = createMockTokenCounter();
const STRATEGIES = [
  'clip',
  'supersede',
  'mask',
  'summarize',
  'truncate',
  'importance',
  'hybrid',
  'deterministic',
];

const step = fc.oneof(
  fc.record({
    kind: fc.constant('talk' as const),
    user: fc.string({ maxLength: 400 }).map((s) => `u${s}`),
    reply: fc.string({ maxLength: 2000 }).map((s) => `a${s}`),
  }),
  fc.record({
    kind: fc.constant('tools' as const),
    calls: fc.array(
      fc.record({
        name: fc.constantFrom('Read', 'Write', 'Bash', 'Grep', 'LS'),
        path: fc.constantFrom('a.ts', 'b.ts', 'src/c.ts', '.'),
        size: fc.integer({ min: 1, max: 6000 }),
        isError: fc.boolean(),
      }),
      { minLength: 1, maxLength: 4 },
    ),
  }),
);

type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

function conversation(steps: Step[], pinEvery: number): Message[] {
  const builder = buildConversation().system('system prompt').user('the goal of this session');
  for (const s of steps) {
    if (s.kind === 'talk') builder.assistant(s.reply).user(s.user);
    else {
      builder.toolRound(
        s.calls.map((c) => ({
          name: c.name,
          args: c.name === 'Bash' ? { command: `cat ${c.path}` } : { file_path: c.path },
          result: 'x'.repeat(c.size),
          isError: c.isError,
        })),
      );
    }
  }
  builder.user('the latest question');
  return builder
    .build()
    .map((m, i) => (pinEvery > 0 && i % pinEvery === 7 && m.role === 'user' ? { ...m, pinned: true } : m));
}

describe('every strategy and pipeline, random conversations and budgets (STR-7, STR-8, MSG-3, RT-1 plans)', () => {
  it('fits, validates for each provider, keeps protected messages, and never mutates the input', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 3000, max: 60_000 }),
        fc.constantFrom(...STRATEGIES),
        fc.constantFrom('openai' as const, 'anthropic' as const, 'gemini' as const, undefined),
        fc.integer({ min: 0, max: 9 }),
        async (steps, window, strategy, provider, pinEvery) => {
          const messages = conversation(steps, pinEvery);
          const frozen = structuredClone(messages);
          // The planner's own pipeline output, to check the plan's edits against it.
          const { messages: out, plan } = await planWithOptions(messages, {
            counter,
            window,
            responseReserve: 500,
            strategy,
            mode: 'manual',
            ...(provider === undefined ? {} : { provider }),
          });
          // The plan is data: through JSON and applied, it gives exactly the pipeline's projection.
          const json = JSON.parse(JSON.stringify(plan)) as CompactionPlan;
          expect(applyCompactionPlan(messages, json)).toEqual(out);
          expect(messages).toEqual(frozen);
          expect(counter.count(out).total).toBeLessThanOrEqual(plan.budget.messages);
          expect(validate(out, { ...(provider === undefined ? {} : { provider }) })).toEqual([]);
          const ids = new Set(out.map((m) => m.id));
          for (const id of [messages[0]?.id, messages[1]?.id, messages.at(-1)?.id])
            expect(ids.has(id as string)).toBe(true);
          for (const m of messages) if (m.pinned) expect(out).toContainEqual(m);
        },
      ),
      { numRuns: 300 },
    );
  });
});
