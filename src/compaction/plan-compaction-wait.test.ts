import { describe, expect, it } from 'vitest';
import { buildConversation } from '../test/build-conversation.ts';
import { createMockTokenCounter } from '../test/mock-token-counter.ts';
import { compact } from './compact.ts';
import { AUTO_COMPACTION_WAITING, planWithOptions } from './plan-compaction.ts';

// TRG-5 for callers that keep a loop guard themselves (the stateless fitter): `planWithOptions`
// can be told that automatic compaction is waiting.

const counter = createMockTokenCounter();

/** 4,417 tokens of rounds: past a 65 % trigger of a 6,000 window, within its budget. */
function history() {
  const builder = buildConversation().system('Be brief.');
  for (let i = 0; i < 38; i++)
    builder
      .user(`Question ${i}: ${'how do rivers form deltas? '.repeat(15)}`)
      .assistant(`Answer ${i}: sediment.`);
  return builder.build();
}

describe('planWithOptions with autoCompactionWaits', () => {
  it('leaves an automatic compaction undone, with the reason a session gives', async () => {
    const messages = history();
    const options = { counter, window: 6_000, responseReserve: 500 };
    const due = await planWithOptions(messages, options);
    expect(due.plan.compacted).toBe(true);
    expect(due.ran).toBe(true);
    const waiting = await planWithOptions(messages, options, { autoCompactionWaits: true });
    expect(waiting.ran).toBe(false);
    expect(waiting.plan.compacted).toBe(false);
    expect(waiting.plan.reason).toBe(AUTO_COMPACTION_WAITING);
    expect(AUTO_COMPACTION_WAITING).toBe('waiting after a stalled or failed compaction');
    expect(waiting.messages).toEqual(messages);
  });

  it('still compacts a prompt that does not fit, an overflow and a manual request', async () => {
    const messages = history();
    const tight = await planWithOptions(
      messages,
      { counter, window: 5_000, responseReserve: 1_000 },
      { autoCompactionWaits: true },
    );
    expect(tight.plan.compacted).toBe(true);
    expect(tight.ran).toBe(true);
    for (const mode of ['overflow', 'manual'] as const) {
      const forced = await planWithOptions(
        messages,
        { counter, window: 6_000, responseReserve: 500, mode },
        { autoCompactionWaits: true },
      );
      expect(forced.plan.compacted).toBe(true);
    }
  });

  it('reports a compaction run that threw, not one that was never due', async () => {
    const messages = history();
    const errors: unknown[] = [];
    const hooks = {
      beforeCompact: () => {
        throw new Error('hook failed');
      },
    };
    await expect(
      planWithOptions(
        messages,
        { counter, window: 6_000, responseReserve: 500, hooks },
        {
          onRunError: (error) => errors.push(error),
        },
      ),
    ).rejects.toThrow('hook failed');
    expect(errors).toHaveLength(1);
    const idle = await planWithOptions(
      messages,
      { counter, window: 100_000, hooks },
      { onRunError: (error) => errors.push(error) },
    );
    expect(idle.ran).toBe(false);
    expect(errors).toHaveLength(1);
  });

  it('compact() keeps no guard: the same call compacts each time', async () => {
    const messages = history();
    const options = { counter, window: 6_000, responseReserve: 500 };
    expect((await compact(messages, options)).plan.compacted).toBe(true);
    expect((await compact(messages, options)).plan.compacted).toBe(true);
  });
});
