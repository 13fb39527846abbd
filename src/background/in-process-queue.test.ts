import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { concurrencyProbe, queueEventLog } from '../../test/background/queue-event-log.ts';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { createInProcessQueue } from './in-process-queue.ts';
import type { CompactionJob } from './types.ts';

// Issue 13: the in-process queue for SQLite, JSONL and memory stores. Delays are a few
// milliseconds so the tests run fast; they assert what happens, never how long it took.

const job = (sessionId: string): CompactionJob => ({ sessionId, requestedAt: new Date(0).toISOString() });

/** A promise and the functions that settle it. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('createInProcessQueue', () => {
  it('holds one job per session: a second enqueue while it is queued or running is refused, after it ends one is accepted', async () => {
    const log = queueEventLog();
    const queue = createInProcessQueue({ onEvent: log.onEvent });
    expect(await queue.enqueue(job('a'))).toBe(true);
    expect(await queue.enqueue(job('a'))).toBe(false);
    expect(await queue.enqueue(job('b'))).toBe(true);
    expect(queue.size()).toBe(2);

    const release = deferred();
    const seen: string[] = [];
    const stop = await queue.work(
      async ({ sessionId }) => {
        seen.push(sessionId);
        if (sessionId === 'a') await release.promise;
      },
      { concurrency: 2 },
    );
    await log.until((event) => event.type === 'job-end' && event.job.sessionId === 'b');
    expect(await queue.enqueue(job('a'))).toBe(false); // running
    release.resolve();
    await log.until((event) => event.type === 'job-end' && event.job.sessionId === 'a');
    expect(queue.size()).toBe(0);
    expect(await queue.enqueue(job('a'))).toBe(true);
    await log.until((event) => event.type === 'job-end' && event.job.sessionId === 'a' && seen.length === 3);
    expect(seen).toEqual(['a', 'b', 'a']);
    await stop();
    await queue.close();
  });

  it('runs at most `concurrency` handlers at once and hands every job to one of them', async () => {
    const log = queueEventLog();
    const queue = createInProcessQueue({ onEvent: log.onEvent });
    const probe = concurrencyProbe(2);
    const stop = await queue.work(() => probe.handler(), { concurrency: 3 });
    for (let index = 0; index < 10; index += 1) await queue.enqueue(job(`s${index}`));
    await log.until(() => log.events.filter((event) => event.type === 'job-end').length === 10);
    expect(probe.most).toBe(3);
    expect(new Set(log.events.filter((e) => e.type === 'job-start').map((e) => e.job.sessionId)).size).toBe(
      10,
    );
    await stop();
    await queue.close();
  });

  it('retries a failing job with back-off that doubles, then finishes it', async () => {
    const log = queueEventLog();
    const queue = createInProcessQueue({ retries: 3, retryDelayMs: 4, onEvent: log.onEvent });
    let calls = 0;
    const stop = await queue.work(async () => {
      calls += 1;
      if (calls < 3) throw new Error(`summarizer down (${calls})`);
    });
    await queue.enqueue(job('s'));
    await log.until((event) => event.type === 'job-end');
    const errors = log.events.filter((event) => event.type === 'job-error');
    expect(errors.map((event) => [event.attempt, event.retryInMs, String(event.error)])).toEqual([
      [1, 4, 'Error: summarizer down (1)'],
      [2, 8, 'Error: summarizer down (2)'],
    ]);
    expect(log.events.at(-1)).toMatchObject({ type: 'job-end', attempt: 3 });
    expect(await queue.deadLetters()).toEqual([]);
    await stop();
    await queue.close();
  });

  it('caps the back-off at maxRetryDelayMs', async () => {
    const log = queueEventLog();
    const queue = createInProcessQueue({
      retries: 4,
      retryDelayMs: 2,
      maxRetryDelayMs: 5,
      onEvent: log.onEvent,
    });
    const stop = await queue.work(async () => {
      throw new Error('down');
    });
    await queue.enqueue(job('s'));
    await log.until((event) => event.type === 'job-dead');
    expect(log.events.filter((e) => e.type === 'job-error').map((e) => e.retryInMs)).toEqual([
      2,
      4,
      5,
      5,
      undefined,
    ]);
    await stop();
    await queue.close();
  });

  it('makes a job that failed every attempt a dead letter, inspectable, and accepts the session again', async () => {
    const log = queueEventLog();
    const queue = createInProcessQueue({ retries: 2, retryDelayMs: 1, onEvent: log.onEvent });
    const stop = await queue.work(async ({ sessionId }) => {
      throw new ChatfoldError('E_PROVIDER', `summary of ${sessionId} failed: 503`, {});
    });
    await queue.enqueue(job('s'));
    await log.until((event) => event.type === 'job-dead');
    const dead = await queue.deadLetters();
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({
      job: job('s'),
      attempts: 3,
      error: 'ChatfoldError: summary of s failed: 503',
    });
    expect(Number.isNaN(Date.parse(dead[0]?.failedAt ?? ''))).toBe(false);
    expect(log.events.filter((event) => event.type === 'job-start')).toHaveLength(3);
    expect(queue.size()).toBe(0);
    expect(await queue.enqueue(job('s'))).toBe(true);
    await stop();
    await queue.close();
  });

  it('keeps only the newest maxDeadLetters', async () => {
    const log = queueEventLog();
    const queue = createInProcessQueue({ retries: 0, maxDeadLetters: 2, onEvent: log.onEvent });
    const stop = await queue.work(async () => {
      throw new Error('down');
    });
    for (const id of ['a', 'b', 'c']) await queue.enqueue(job(id));
    await log.until(() => log.events.filter((event) => event.type === 'job-dead').length === 3);
    expect((await queue.deadLetters()).map((dead) => dead.job.sessionId)).toEqual(['b', 'c']);
    await stop();
    await queue.close();
  });

  it('aborts the signal of a handler that runs past expireMs, counts the attempt as failed and retries', async () => {
    const log = queueEventLog();
    const queue = createInProcessQueue({ retries: 1, retryDelayMs: 1, expireMs: 20, onEvent: log.onEvent });
    const reasons: unknown[] = [];
    let calls = 0;
    const stop = await queue.work(async (_job, { signal }) => {
      calls += 1;
      if (calls > 1) return;
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      reasons.push(signal.reason);
      // Returning normally after the expiry does not make the attempt a success.
    });
    await queue.enqueue(job('slow'));
    await log.until((event) => event.type === 'job-end');
    expect(ChatfoldError.hasCode(reasons[0], 'E_QUEUE')).toBe(true);
    expect(String((reasons[0] as Error).message)).toContain('expiry of 20 ms');
    expect(log.events.find((event) => event.type === 'job-error')).toMatchObject({
      expired: true,
      attempt: 1,
      retryInMs: 1,
    });
    expect(log.events.at(-1)).toMatchObject({ type: 'job-end', attempt: 2 });
    await stop();
    await queue.close();
  });

  it('stop() aborts running handlers, waits for them, and gives their jobs back without using an attempt', async () => {
    const log = queueEventLog();
    const queue = createInProcessQueue({ retries: 0, onEvent: log.onEvent });
    const started = deferred();
    let returned = false;
    const stop = await queue.work(async (_job, { signal }) => {
      started.resolve();
      await new Promise<void>((_resolve, reject) =>
        signal.addEventListener('abort', () => setTimeout(() => reject(signal.reason), 5), { once: true }),
      );
    });
    await queue.enqueue(job('s'));
    await started.promise;
    await stop().then(() => {
      returned = log.events.some((event) => event.type === 'job-error');
    });
    expect(returned).toBe(true); // stop() resolved only after the handler had ended
    expect(log.events.find((event) => event.type === 'job-error')).toMatchObject({
      stopped: true,
      retryInMs: 0,
    });
    expect(queue.size()).toBe(1);
    // retries: 0, yet the job still runs: the stop did not use up its one attempt.
    const second = await queue.work(async () => undefined);
    await log.until((event) => event.type === 'job-end');
    expect(log.events.at(-1)).toMatchObject({ type: 'job-end', attempt: 1 });
    expect(await queue.deadLetters()).toEqual([]);
    await second();
    await queue.close();
  });

  it('close() stops the workers and waits for running handlers; afterwards it refuses work and is idempotent', async () => {
    const queue = createInProcessQueue();
    const started = deferred();
    let ended = false;
    await queue.work(async (_job, { signal }) => {
      started.resolve();
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      ended = true;
      throw signal.reason;
    });
    await queue.enqueue(job('s'));
    await started.promise;
    await queue.close();
    expect(ended).toBe(true);
    expect(queue.size()).toBe(0);
    await expect(queue.enqueue(job('t'))).rejects.toMatchObject({ code: 'E_QUEUE' });
    await expect(queue.work(async () => undefined)).rejects.toMatchObject({ code: 'E_QUEUE' });
    await queue.close();
  });

  it('waits for a worker: jobs queued before work() starts run once it does', async () => {
    const log = queueEventLog();
    const queue = createInProcessQueue({ onEvent: log.onEvent });
    await queue.enqueue(job('early'));
    expect(log.events).toEqual([]);
    const stop = await queue.work(async () => undefined);
    await log.until((event) => event.type === 'job-end');
    await stop();
    await queue.close();
  });

  it('a listener that throws changes nothing', async () => {
    let ended = 0;
    const queue = createInProcessQueue({
      onEvent: (event) => {
        if (event.type === 'job-end') ended += 1;
        throw new Error('listener bug');
      },
    });
    const stop = await queue.work(async () => undefined);
    await queue.enqueue(job('s'));
    await expect.poll(() => ended).toBe(1);
    expect(queue.size()).toBe(0);
    await stop();
    await queue.close();
  });

  it('refuses bad options, jobs and work options with the field, what was expected and what was received', async () => {
    expect(() => createInProcessQueue({ retries: -1 })).toThrow(
      /createInProcessQueue: retries: .*received -1/,
    );
    expect(() => createInProcessQueue({ expireMs: 0 })).toThrow(/expireMs/);
    expect(() => createInProcessQueue({ retry: 2 } as never)).toThrow(/unknown option "retry"/);
    const queue = createInProcessQueue();
    await expect(queue.enqueue({ sessionId: '', requestedAt: 'x' })).rejects.toThrow(
      /sessionId: expected a non-empty string, received ""/,
    );
    await expect(queue.enqueue({ sessionId: 's', requestedAt: 'yesterday' })).rejects.toThrow(
      /requestedAt: expected an ISO 8601 time, received "yesterday"/,
    );
    await expect(queue.enqueue(null as never)).rejects.toMatchObject({ code: 'E_QUEUE' });
    await expect(queue.work(async () => undefined, { concurrency: 0 })).rejects.toThrow(
      /work: concurrency: .*received 0/,
    );
    await expect(queue.work('handler' as never)).rejects.toMatchObject({ code: 'E_INVALID_OPTIONS' });
    await queue.close();
  });

  it('property: whatever fails, a session never has two handlers at once, concurrency holds, and every job ends exactly once (done or dead)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.array(fc.boolean(), { maxLength: 4 })), {
          minLength: 1,
          maxLength: 25,
        }),
        fc.integer({ min: 1, max: 3 }),
        async (plans, concurrency) => {
          const log = queueEventLog();
          const queue = createInProcessQueue({ retries: 2, retryDelayMs: 0, onEvent: log.onEvent });
          const active = new Set<string>();
          let running = 0;
          let violations = 0;
          // Each accepted enqueue gets its own script of failures (true = this attempt throws).
          const scripts = new Map<string, boolean[]>();
          let accepted = 0;
          const stop = await queue.work(
            async ({ sessionId }) => {
              if (active.has(sessionId) || running >= concurrency) violations += 1;
              active.add(sessionId);
              running += 1;
              await new Promise((resolve) => setTimeout(resolve, 0));
              active.delete(sessionId);
              running -= 1;
              if (scripts.get(sessionId)?.shift() === true) throw new Error('scripted failure');
            },
            { concurrency },
          );
          for (const [session, failures] of plans) {
            const id = `s${session}`;
            const previous = scripts.get(id);
            if (await queue.enqueue(job(id))) {
              accepted += 1;
              scripts.set(id, [...failures]);
            } else {
              expect(previous).toBeDefined();
            }
          }
          const finished = () =>
            log.events.filter((event) => event.type === 'job-end' || event.type === 'job-dead').length;
          await log.until(() => finished() === accepted);
          await new Promise((resolve) => setTimeout(resolve, 1));
          expect(finished()).toBe(accepted);
          expect(violations).toBe(0);
          expect(queue.size()).toBe(0);
          await stop();
          await queue.close();
        },
      ),
      { numRuns: 40 },
    );
  });
});
