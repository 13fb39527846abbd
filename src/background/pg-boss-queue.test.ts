import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { concurrencyProbe, queueEventLog } from '../../test/background/queue-event-log.ts';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { PG_BOSS_QUEUE_DEFAULTS, type PgBossQueueOptions, pgBossQueue } from './pg-boss-queue.ts';
import type { CompactionJob } from './types.ts';

// Issue 13: the pg-boss queue against the real PostgreSQL (DATABASE_URL; CI points it at
// 127.0.0.1:5432). Each run installs pg-boss in a schema of its own and drops it afterwards.

const DATABASE_URL = process.env.DATABASE_URL;
const schema = `cf_boss_${process.pid}_${Date.now().toString(36)}`;
const job = (sessionId: string): CompactionJob => ({ sessionId, requestedAt: new Date().toISOString() });
let queueCount = 0;

describe('pgBossQueue options', () => {
  it('refuses bad options at construction, naming the option', () => {
    expect(() => pgBossQueue({} as never)).toThrow(/pgBossQueue: connectionString: .*received nothing/);
    expect(() => pgBossQueue({ connectionString: 'postgres://x/y', retries: -1 })).toThrow(/retries/);
    expect(() => pgBossQueue({ connectionString: 'postgres://x/y', heartbeatSeconds: 5 })).toThrow(
      /heartbeatSeconds: .*received 5/,
    );
    expect(() => pgBossQueue({ connectionString: 'postgres://x/y', schema: 'a;drop' })).toThrow(
      /schema: expected a plain identifier/,
    );
    expect(() => pgBossQueue({ connectionString: 'postgres://x/y', retry: 1 } as never)).toThrow(
      /unknown option "retry"/,
    );
    expect(() => pgBossQueue({ boss: {} as never })).toThrow(/boss: expected a started pg-boss instance/);
  });

  it('an unreachable database is E_QUEUE on first use, with the cause and what to check', async () => {
    const queue = pgBossQueue({ connectionString: 'postgres://postgres@127.0.0.1:1/none' });
    const error = await queue.enqueue(job('s')).catch((caught: unknown) => caught);
    expect(ChatfoldError.hasCode(error, 'E_QUEUE')).toBe(true);
    expect(String((error as Error).message)).toMatch(
      /cannot start pg-boss in schema chatfold: .*PostgreSQL is reachable/,
    );
    await queue.close();
    await expect(queue.enqueue(job('s'))).rejects.toMatchObject({ code: 'E_QUEUE' });
  });
});

describe.skipIf(DATABASE_URL === undefined)(
  DATABASE_URL === undefined
    ? 'pgBossQueue on PostgreSQL — skipped: DATABASE_URL is not set (CI sets it to postgres://postgres@127.0.0.1:5432/test)'
    : 'pgBossQueue on PostgreSQL (DATABASE_URL)',
  () => {
    const queues: { close(): Promise<void> }[] = [];
    const children: ChildProcess[] = [];
    /** A queue on this run's schema with fast polling; each test its own pg-boss queue name. */
    const open = (options: Partial<PgBossQueueOptions> = {}, name?: string) => {
      queueCount += 1;
      const queueName = name ?? `q${queueCount}`;
      const queue = pgBossQueue({
        connectionString: DATABASE_URL as string,
        schema,
        queueName,
        pollingIntervalSeconds: 0.5,
        superviseIntervalSeconds: 1,
        retryDelaySeconds: 1,
        ...options,
      } as PgBossQueueOptions);
      queues.push(queue);
      return queue;
    };

    afterAll(async () => {
      for (const child of children) child.kill('SIGKILL');
      await Promise.all(queues.map((queue) => queue.close()));
      const admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    });

    it('one job per session across processes: of many concurrent enqueues from two instances exactly one is queued', async () => {
      const a = open({}, 'singleton');
      const b = open({}, 'singleton');
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, index) => (index % 2 === 0 ? a : b).enqueue(job('session-1'))),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await b.enqueue(job('session-2'))).toBe(true);

      const log = queueEventLog();
      const worker = open({ onEvent: log.onEvent }, 'singleton');
      const release: (() => void)[] = [];
      // Each handler waits to be released; the job queued again at the end is stopped with the worker.
      const stop = await worker.work(
        (_job, { signal }) =>
          new Promise<void>((resolve, reject) => {
            release.push(resolve);
            signal.addEventListener('abort', () => reject(signal.reason), { once: true });
          }),
        { concurrency: 2 },
      );
      await log.until(() => log.events.filter((event) => event.type === 'job-start').length === 2);
      // Running counts too: still refused.
      expect(await a.enqueue(job('session-1'))).toBe(false);
      for (const resolve of release) resolve();
      await log.until(() => log.events.filter((event) => event.type === 'job-end').length === 2);
      // pg-boss marks the job completed just after the handler returns (job-end): then it is free.
      await expect.poll(() => a.enqueue(job('session-1')), { timeout: 10_000 }).toBe(true);
      await stop();
    });

    it('runs at most `concurrency` handlers in one worker and hands each job to one handler', async () => {
      const log = queueEventLog();
      const queue = open({ onEvent: log.onEvent });
      for (let index = 0; index < 6; index += 1) await queue.enqueue(job(`c${index}`));
      const probe = concurrencyProbe(200);
      const stop = await queue.work(() => probe.handler(), { concurrency: 2 });
      await log.until(() => log.events.filter((event) => event.type === 'job-end').length === 6);
      expect(probe.most).toBeLessThanOrEqual(2);
      expect(new Set(log.events.filter((e) => e.type === 'job-end').map((e) => e.job.sessionId)).size).toBe(
        6,
      );
      await stop();
    });

    it('retries a failing job with back-off and finishes it', async () => {
      const log = queueEventLog();
      const queue = open({ retries: 3, onEvent: log.onEvent });
      let calls = 0;
      const stop = await queue.work(async () => {
        calls += 1;
        if (calls < 3) throw new Error(`summarizer down (${calls})`);
      });
      await queue.enqueue(job('flaky'));
      await log.until((event) => event.type === 'job-end');
      expect(
        log.events
          .filter((event) => event.type === 'job-error')
          .map((event) => [event.attempt, event.retryInMs]),
      ).toEqual([
        [1, 1000],
        [2, 2000],
      ]);
      expect(log.events.at(-1)).toMatchObject({ type: 'job-end', attempt: 3, job: { sessionId: 'flaky' } });
      await stop();
    });

    it('moves a job that failed every attempt to the dead letters, with its error, and accepts the session again', async () => {
      const log = queueEventLog();
      const queue = open({ retries: 1, onEvent: log.onEvent });
      const stop = await queue.work(async ({ sessionId }) => {
        throw new ChatfoldError('E_PROVIDER', `summary of ${sessionId} failed: 503`, {});
      });
      await queue.enqueue(job('doomed'));
      await log.until((event) => event.type === 'job-dead');
      await expect
        .poll(async () => (await queue.deadLetters()).map((dead) => dead.job.sessionId), { timeout: 10_000 })
        .toEqual(['doomed']);
      const [dead] = await queue.deadLetters();
      expect(dead).toMatchObject({ attempts: 2, error: 'ChatfoldError: summary of doomed failed: 503' });
      expect(log.events.filter((event) => event.type === 'job-start')).toHaveLength(2);
      expect(await queue.enqueue(job('doomed'))).toBe(true);
      await stop();
    });

    it('aborts the signal of a handler that runs past expireInSeconds and retries the job', async () => {
      const log = queueEventLog();
      const queue = open({ expireInSeconds: 1, onEvent: log.onEvent });
      let calls = 0;
      const stop = await queue.work(async (_job, { signal }) => {
        calls += 1;
        if (calls > 1) return;
        await new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
        );
      });
      await queue.enqueue(job('hangs'));
      await log.until((event) => event.type === 'job-end');
      expect(log.events.find((event) => event.type === 'job-error')).toMatchObject({
        attempt: 1,
        expired: true,
      });
      expect(log.events.at(-1)).toMatchObject({ type: 'job-end', attempt: 2 });
      await stop();
    });

    it('a worker process killed mid-job (SIGKILL) loses nothing: another worker retries the job and finishes it', async () => {
      const queueName = 'killed';
      const expireInSeconds = 2;
      const child = spawn(
        process.execPath,
        [
          fileURLToPath(new URL('../../test/background/queue-worker-child.ts', import.meta.url)),
          DATABASE_URL as string,
          schema,
          queueName,
          String(expireInSeconds),
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      children.push(child);
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      await expect.poll(() => output, { timeout: 20_000 }).toContain('ready');
      const producer = open({ expireInSeconds }, queueName);
      expect(await producer.enqueue(job('victim'))).toBe(true);
      await expect.poll(() => output, { timeout: 20_000 }).toContain('started victim 1');
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));

      // The job is still active under the dead worker's claim: no second copy can be queued.
      expect(await producer.enqueue(job('victim'))).toBe(false);
      const log = queueEventLog();
      const survivor = open({ expireInSeconds, onEvent: log.onEvent }, queueName);
      const stop = await survivor.work(async () => undefined);
      await log.until((event) => event.type === 'job-end');
      expect(log.events.filter((event) => event.type === 'job-end')).toEqual([
        expect.objectContaining({ attempt: 2, job: expect.objectContaining({ sessionId: 'victim' }) }),
      ]);
      await stop();
    }, 60_000);

    it('stop() aborts running handlers and waits for them; the job is retried by the next worker', async () => {
      const log = queueEventLog();
      const queue = open({ onEvent: log.onEvent });
      let returned = false;
      const stop = await queue.work(async (_job, { signal }) => {
        await new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => setTimeout(() => reject(signal.reason), 20), { once: true }),
        );
      });
      await queue.enqueue(job('interrupted'));
      await log.until((event) => event.type === 'job-start');
      await stop().then(() => {
        returned = log.events.some((event) => event.type === 'job-error');
      });
      expect(returned).toBe(true);
      expect(log.events.find((event) => event.type === 'job-error')).toMatchObject({
        stopped: true,
        expired: false,
      });
      const again = await queue.work(async () => undefined);
      await log.until((event) => event.type === 'job-end');
      await again();
    });

    it('close() is idempotent and refuses later calls', async () => {
      const queue = open();
      await queue.enqueue(job('x'));
      await queue.close();
      await queue.close();
      await expect(queue.enqueue(job('y'))).rejects.toMatchObject({ code: 'E_QUEUE' });
      expect(PG_BOSS_QUEUE_DEFAULTS.schema).toBe('chatfold');
    });
  },
);
