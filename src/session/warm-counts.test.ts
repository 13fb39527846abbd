// NFR-7.5: a resumed session counts its history in slices and lets the event loop run between
// them. Asserted through the order of events and the number of yields, never through time.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { Message } from '../messages/types.ts';
import { createTokenCounter } from '../tokens/create-token-counter.ts';
import { WARM_SLICE_MESSAGES, warmCounts } from './warm-counts.ts';

const messages = (count: number): Message[] =>
  Array.from({ length: count }, (_, index) => ({
    id: `m${index}`,
    role: index % 2 === 0 ? 'user' : 'assistant',
    parts: [{ type: 'text', text: `message ${index}` }],
    createdAt: '2026-11-27T00:00:00.000Z',
  }));

/** A counter that records, for each message, how many yields came before it was counted. */
function recordingCounter() {
  const log: { id: string; yieldsBefore: number }[] = [];
  let yields = 0;
  return {
    log,
    counter: {
      countMessage(message: Message): number {
        log.push({ id: message.id, yieldsBefore: yields });
        return 1;
      },
    },
    yieldNow: async (): Promise<void> => {
      yields++;
    },
  };
}

describe('warmCounts (NFR-7.5)', () => {
  it('counts every message once, in order, and yields between slices of at most sliceMessages', () =>
    fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 1, max: 40 }),
        async (n, slice) => {
          const { log, counter, yieldNow } = recordingCounter();
          const history = messages(n);
          const yields = await warmCounts(counter, history, {
            sliceMessages: slice,
            sliceMs: Number.POSITIVE_INFINITY,
            now: () => 0,
            yieldToEventLoop: yieldNow,
          });
          expect(log.map((entry) => entry.id)).toEqual(history.map((message) => message.id));
          // A frozen clock: the slices end on the message count alone, never after the last message.
          expect(yields).toBe(n === 0 ? 0 : Math.ceil(n / slice) - 1);
          log.forEach((entry, index) => {
            expect(entry.yieldsBefore).toBe(Math.floor(index / slice));
          });
        },
      ),
    ));

  it('ends each slice by counting the history so far, when the counter can count lists', () =>
    fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 200 }),
        fc.integer({ min: 1, max: 40 }),
        async (n, slice) => {
          const { log, counter, yieldNow } = recordingCounter();
          const lists: { ids: string[]; countedBefore: number }[] = [];
          const history = messages(n);
          await warmCounts(
            {
              ...counter,
              count: (list: readonly Message[]) => {
                lists.push({ ids: list.map((message) => message.id), countedBefore: log.length });
                return {
                  total: 0,
                  overhead: 0,
                  tools: 0,
                  perMessage: [],
                  tokenizer: 'chars/4',
                  accuracy: 'approximate' as const,
                };
              },
            },
            history,
            {
              sliceMessages: slice,
              sliceMs: Number.POSITIVE_INFINITY,
              now: () => 0,
              yieldToEventLoop: yieldNow,
            },
          );
          // One list a slice: the prefix up to the slice's end, after its messages were counted,
          // the last one the whole history.
          const ends = Array.from({ length: Math.ceil(n / slice) }, (_, i) => Math.min(n, (i + 1) * slice));
          expect(lists).toEqual(
            ends.map((end) => ({
              ids: history.slice(0, end).map((message) => message.id),
              countedBefore: end,
            })),
          );
        },
      ),
    ));

  it('leaves the counts of a real counter as a cold count finds them', async () => {
    const history = messages(300);
    const warmed = createTokenCounter({ tokenizer: 'openai:o200k_base' });
    await warmCounts(warmed, history, { sliceMessages: 16 });
    const cold = createTokenCounter({ tokenizer: 'openai:o200k_base' }).count(history);
    const warm = warmed.count(history);
    expect(warm.total).toBe(cold.total);
    expect(warm.perMessage).toEqual(cold.perMessage);
  });

  it('ends a slice early when the clock says it ran sliceMs', async () => {
    const { log, counter, yieldNow } = recordingCounter();
    let clock = 0;
    // Each message "takes" 3 ms: every slice is one message long.
    const yields = await warmCounts(counter, messages(5), {
      sliceMessages: 100,
      sliceMs: 2,
      now: () => (clock += 3),
      yieldToEventLoop: yieldNow,
    });
    expect(yields).toBe(4);
    expect(log.map((entry) => entry.yieldsBefore)).toEqual([0, 1, 2, 3, 4]);
  });

  it('lets a callback queued before a long count run before the count ends', async () => {
    const order: string[] = [];
    let counted = 0;
    const counter = {
      countMessage: (): number => {
        counted++;
        return 1;
      },
    };
    const total = WARM_SLICE_MESSAGES * 10;
    setImmediate(() => order.push(`other work after ${counted} of ${total} messages`));
    const count = warmCounts(counter, messages(total)).then(() => order.push('count done'));
    await count;
    expect(order).toHaveLength(2);
    expect(order[1]).toBe('count done');
    expect(order[0]).not.toBe(`other work after ${total} of ${total} messages`);
  });

  it('finishes under fake timers installed by a test (nothing advances them)', async () => {
    vi.useFakeTimers();
    try {
      const { log, counter } = recordingCounter();
      const yields = await warmCounts(counter, messages(WARM_SLICE_MESSAGES * 3));
      expect(log).toHaveLength(WARM_SLICE_MESSAGES * 3);
      expect(yields).toBeGreaterThanOrEqual(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
