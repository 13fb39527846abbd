import { setImmediate } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { CompactionJob, CompactionQueue } from '../background/types.ts';
import type { CompactionReport } from '../compaction/types.ts';
import type { Message } from '../messages/types.ts';
import { validate } from '../messages/validate.ts';
import { memoryStore } from '../stores/memory/index.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { createChatfold } from './create-chatfold.ts';
import type { SessionEvent } from './types.ts';

/** A queue that only records jobs; the test plays the worker. */
function recordingQueue(): CompactionQueue & { jobs: CompactionJob[]; asked: number } {
  const jobs: CompactionJob[] = [];
  return {
    kind: 'recording',
    jobs,
    asked: 0,
    async enqueue(job) {
      this.asked++;
      if (jobs.some((queued) => queued.sessionId === job.sessionId)) return false;
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

const SUMMARY = 'The user asked about river deltas; the assistant explained sediment deposition in detail.';

/**
 * A session grown until it asks for a background job, and the plan a worker (another chatfold
 * on the same store) then writes: the start of every test of where plans land.
 */
async function plannedSession(
  options: Parameters<typeof createChatfold>[0] & {
    background: { queue: ReturnType<typeof recordingQueue> };
  },
  id: string,
) {
  const session = await createChatfold(options).session(id);
  const events: SessionEvent[] = [];
  session.on((event) => events.push(event));
  let turn = 0;
  while (options.background.queue.jobs.length === 0) {
    await session.append(turns(turn++, 1));
    await session.prepare();
  }
  const plan = await createChatfold(options)
    .session(id)
    .then((worker) => worker.precompact());
  return { session, events, plan, turn };
}

describe('background compaction, session side (issue 13)', () => {
  it('queues past the early threshold, applies the worker plan at the trigger with no model call', async () => {
    const store = memoryStore();
    const queue = recordingQueue();
    let summarizerCalls = 0;
    const options = {
      window: 16_000,
      store,
      background: { queue },
      summarizer: async () => {
        summarizerCalls++;
        return SUMMARY;
      },
    };
    const server = createChatfold(options);
    const session = await server.session('s');
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    let turn = 0;
    // Grow to the early threshold (60 %): a job is queued, the prompt is sent as is.
    while (queue.jobs.length === 0) {
      await session.append(turns(turn++, 1));
      const { report } = await session.prepare();
      expect(report.compacted).toBe(false);
    }
    await setImmediate(); // the queued event follows the enqueue, off the turn
    expect(events.some((event) => event.type === 'background-queued')).toBe(true);
    // A worker (another chatfold on the same store) computes the plan with the LLM summary.
    const worker = await createChatfold(options).session('s');
    const workerEvents: SessionEvent[] = [];
    worker.on((event) => workerEvents.push(event));
    const plan = await worker.precompact();
    // Writing the plan compacts nothing yet: no compaction events (a gateway counted each
    // background plan as a manual compaction), only background-ready.
    expect(workerEvents.map((event) => event.type)).toContain('background-ready');
    expect(
      workerEvents.filter((event) => event.type === 'compaction-start' || event.type === 'compaction-end'),
    ).toEqual([]);
    expect(plan.summary?.source).toBe('llm');
    expect(summarizerCalls).toBe(1);
    expect((await session.status()).pendingSummary?.messagesSummarized).toBeGreaterThan(0);
    // The conversation goes on to the 80 % trigger: the plan applies, no model call on the request path.
    let applied = false;
    while (!applied) {
      await session.append(turns(turn++, 1));
      const prepared = await session.prepare();
      expect(prepared.tokens).toBeLessThanOrEqual(16_000);
      expect(validate(prepared.messages)).toEqual([]);
      applied = prepared.report.compacted;
    }
    expect(summarizerCalls).toBe(1);
    const appliedEvent = events.find((event) => event.type === 'background-applied');
    expect(appliedEvent).toBeDefined();
    // The record says what was applied to this projection, not what the worker planned earlier.
    const record = (await session.compactions()).at(-1);
    expect(record?.mode).toBe('auto');
    const ends = events.filter((event) => event.type === 'compaction-end');
    expect(ends.map((event) => event.type === 'compaction-end' && event.mode)).toEqual(['auto']);
    if (appliedEvent?.type === 'background-applied') {
      expect(record).toMatchObject({
        tokensBefore: appliedEvent.report.tokensBefore,
        tokensAfter: appliedEvent.report.tokensAfter,
      });
      expect(appliedEvent.report.tokensBefore).toBeGreaterThan(plan.tokensBefore);
    }
    expect(
      (await session.prepare()).messages.some((message) => JSON.stringify(message).includes(SUMMARY)),
    ).toBe(true);
    expect((await session.status()).pendingSummary).toBeUndefined();
    // Resume from the store: the applied plan is the snapshot.
    const resumed = await createChatfold(options).session('s');
    expect((await resumed.prepare()).messages).toEqual((await session.prepare()).messages);
  });

  it('a background plan keeps the tail the trigger wants, less the growth until it fires: applied, the prompt lands on the target (issue 19)', async () => {
    for (const { window, policy, target } of [
      // The default: trigger at 65 %, target 45 % of the window.
      { window: 32_000, policy: undefined, target: 0.45 * 32_000 },
      {
        window: 32_000,
        policy: { triggers: [{ fraction: 0.8 }], target: { fraction: 0.5 } },
        target: 16_000,
      },
      {
        window: 64_000,
        policy: { triggers: [{ tokens: 45_000 }], target: { tokens: 20_000 } },
        target: 20_000,
      },
    ]) {
      const store = memoryStore();
      const queue = recordingQueue();
      const options = {
        window,
        ...(policy === undefined ? {} : { policy }),
        store,
        background: { queue },
        summarizer: async () => SUMMARY,
      };
      const grown = await plannedSession(options, 'lands');
      const { session, events, plan } = grown;
      let { turn } = grown;
      expect(plan.reason).toMatch(/planned ahead of the trigger/);
      expect(plan.summary?.source).toBe('llm');
      const asked = queue.asked;
      const planned = turn;
      let report: CompactionReport | undefined;
      while (report === undefined) {
        await session.append(turns(turn++, 1));
        const prepared = await session.prepare();
        if (prepared.report.compacted) report = prepared.report;
        else {
          // The plan stays good while the session grows to the trigger: no job is asked for
          // again (a request looks for a plan, then queues, off the turn: let it run).
          await setImmediate();
          expect(queue.asked).toBe(asked);
        }
      }
      const applied = events.find((event) => event.type === 'background-applied');
      expect(applied).toBeDefined();
      expect((turn - planned) * 2).toBeGreaterThan(20); // past where a job used to be asked for again
      // Recorded against the policy's target, not the smaller one the plan was made for.
      expect(report.target).toBe(target);
      expect(report.tokensAfter / target).toBeGreaterThan(0.9);
      expect(report.tokensAfter / target).toBeLessThan(1.1);
    }
  });

  it('never waits for a summarizer: without a plan it sends a fitting prompt as is, and fits an overflowing one without an LLM', async () => {
    const queue = recordingQueue();
    let summarizerCalls = 0;
    const chatfold = createChatfold({
      window: 16_000,
      // A trigger the prompt reaches before the reserve and margin do (at 75 % of 16k they come first).
      triggers: [{ fraction: 0.45 }],
      background: { queue },
      summarizer: async () => {
        summarizerCalls++;
        return SUMMARY;
      },
    });
    const session = await chatfold.session('w');
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    let turn = 0;
    let compacted = false;
    while (!compacted) {
      await session.append(turns(turn++, 1));
      const prepared = await session.prepare();
      expect(prepared.tokens).toBeLessThanOrEqual(16_000);
      compacted = prepared.report.compacted;
    }
    expect(events.some((event) => event.type === 'background-waiting')).toBe(true);
    expect(summarizerCalls).toBe(0); // the overflow was fitted deterministically
  });

  it('a stored plan it cannot read (a newer format) is dropped with an event; the turn goes on without it', async () => {
    const store = memoryStore();
    const queue = recordingQueue();
    const session = await createChatfold({ window: 16_000, store, background: { queue } }).session('newer');
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    await session.append(turns(0, 2));
    await store.setSetting('chatfold.pending-plan:newer', { version: 99, plan: {} });
    expect((await session.status()).pendingSummary).toBeUndefined();
    const prepared = await session.prepare();
    expect(prepared.messages.length).toBeGreaterThan(0);
    expect(events.find((event) => event.type === 'background-discarded')).toMatchObject({
      reason: expect.stringMatching(/version 99/),
    });
    expect(await store.getSetting('chatfold.pending-plan:newer')).toBeNull();
  });
});

describe('a background plan applied far past its trigger (issue 19)', () => {
  it('a prompt still over the budget after the plan is fitted at once: never sent over the budget', async () => {
    const store = memoryStore();
    const queue = recordingQueue();
    const options = { window: 32_000, store, background: { queue }, summarizer: async () => SUMMARY };
    const { session, events } = await plannedSession(options, 'far');
    const { budget } = await session.status();
    // One pasted document takes the prompt far past the trigger and the budget at once.
    await session.append({
      role: 'user',
      parts: [
        { type: 'text', text: `Please review: ${'the delta report, section by section. '.repeat(2300)}` },
      ],
    });
    expect((await session.status()).tokens).toBeGreaterThan(budget + 6_000);
    const prepared = await session.prepare();
    expect(events.some((event) => event.type === 'background-applied')).toBe(true);
    expect(prepared.tokens).toBeLessThanOrEqual(budget);
    expect(validate(prepared.messages)).toEqual([]);
    // Applied, then fitted: two compactions, the second one from the applied snapshot.
    const types = events.map((event) => event.type);
    expect(types.indexOf('compaction-start')).toBeGreaterThan(types.indexOf('background-applied'));
    expect(prepared.report.reason).toMatch(/would eat into the answer's reserve/);
  });
});
