import { describe, expect, it } from 'vitest';
import type { CompactionJob, CompactionQueue } from '../background/types.ts';
import type { Message } from '../messages/types.ts';
import { validate } from '../messages/validate.ts';
import type { TriggerGroup } from '../policy/context-policy.ts';
import { memoryStore } from '../stores/memory/index.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { createChatfold } from './create-chatfold.ts';
import type { SessionEvent } from './types.ts';

// Issue 19 item 4: with turns much faster than the summarizer, the prompt outgrows the budget
// before the worker's summary comes back, so the session fits without a model and writes a
// newer snapshot; the late plan used to be unusable (another base) and the model summary never
// reached the prompt. Now it is carried into the next compaction.

/** A queue that records jobs; the test plays the worker, one job at a time. */
function recordingQueue(): CompactionQueue & { jobs: CompactionJob[] } {
  const jobs: CompactionJob[] = [];
  return {
    kind: 'recording',
    jobs,
    async enqueue(job) {
      jobs.push(job);
      return true;
    },
    async work() {
      return async () => undefined;
    },
    async close() {},
  };
}

function turns(from: number, count: number): Message[] {
  const builder = buildConversation();
  for (let i = from; i < from + count; i++) {
    builder.user(`Question ${i}: ${'tell me more about the river deltas of the world. '.repeat(6)}`);
    builder.assistant(
      `Answer ${i}: ${'deltas form where rivers meet slower water and drop sediment. '.repeat(8)}`,
    );
  }
  return builder.build().map((message) => ({ ...message, id: `t${from}_${message.id}` }));
}

const SUMMARY =
  'LLM-SUMMARY: the user asked about river deltas; the assistant explained sediment deposition.';
const hasSummary = (messages: readonly Message[]): boolean =>
  messages.some((message) => JSON.stringify(message).includes('LLM-SUMMARY'));

/** Turns the worker's summarizer takes to answer (a 2 s summarizer at 50 ms per turn). */
const SLOW = 40;

describe('background summaries arrive with turns much faster than the summarizer', () => {
  const cases: { name: string; triggers?: readonly TriggerGroup[] }[] = [
    { name: 'the budget is reached before any trigger (16k window, default policy)' },
    { name: 'a trigger fires before the budget', triggers: [{ fraction: 0.45 }] },
  ];
  for (const { name, triggers } of cases) {
    it(`shows the model summary within a bounded number of turns: ${name}`, async () => {
      const store = memoryStore();
      const queue = recordingQueue();
      const options = {
        window: 16_000,
        store,
        background: { queue },
        ...(triggers === undefined ? {} : { triggers }),
      };
      const session = await createChatfold(options).session('fast');
      const events: SessionEvent[] = [];
      session.on((event) => events.push(event));
      let release: (() => void) | undefined;
      let summarizerCalls = 0;
      const worker = await createChatfold({
        ...options,
        summarizer: async () => {
          summarizerCalls++;
          // Answers only when the test says SLOW turns have passed (no clock involved).
          await new Promise<void>((resolve) => {
            release = resolve;
          });
          return SUMMARY;
        },
      }).session('fast');
      let running: Promise<unknown> | undefined;
      let handled = 0;
      let startedAt = 0;
      let firstStoredAt: number | undefined;
      let seenAt: number | undefined;
      for (let turn = 0; turn < 300 && seenAt === undefined; turn++) {
        await session.append(turns(turn, 1));
        const prepared = await session.prepare();
        expect(prepared.tokens).toBeLessThanOrEqual(16_000);
        expect(validate(prepared.messages)).toEqual([]);
        if (hasSummary(prepared.messages)) seenAt = turn;
        if (running === undefined && queue.jobs.length > handled) {
          handled = queue.jobs.length;
          startedAt = turn;
          running = worker.precompact().finally(() => {
            running = undefined;
          });
          await new Promise((resolve) => setImmediate(resolve));
        } else if (running !== undefined && turn - startedAt >= SLOW && release !== undefined) {
          const done = running;
          release();
          release = undefined;
          await done;
          firstStoredAt ??= turn;
        }
      }
      expect(firstStoredAt).toBeDefined();
      expect(seenAt).toBeDefined();
      // Once a summary is back, the next compaction (at most one budget's worth of turns) carries it.
      expect((seenAt as number) - (firstStoredAt as number)).toBeLessThanOrEqual(25);
      expect(summarizerCalls).toBeLessThanOrEqual(3);
      expect(events.some((event) => event.type === 'background-applied')).toBe(true);
      // It is in the stored snapshot too: a resumed session sends it.
      const resumed = await createChatfold(options).session('fast');
      expect(hasSummary((await resumed.prepare()).messages)).toBe(true);
    });
  }
});
