import { z } from 'zod';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { fn, parseOptions } from '../options/parse-options.ts';
import { checkCompactionJob, checkWorkOptions } from './check-job.ts';
import { type CompactionQueueListener, type DeadCompactionJob, errorText, notify } from './queue-events.ts';
import type { CompactionJob, CompactionJobContext, CompactionQueue, WorkOptions } from './types.ts';

/** Defaults of {@link createInProcessQueue}. */
export const IN_PROCESS_QUEUE_DEFAULTS = Object.freeze({
  /** Attempts after the first one. */
  retries: 3,
  /** Wait before the first retry; doubled for each later one (1 s, 2 s, 4 s, …). */
  retryDelayMs: 1000,
  /** Longest wait between retries. */
  maxRetryDelayMs: 60_000,
  /** A handler running longer is aborted and its attempt fails (a summary that hangs). */
  expireMs: 5 * 60_000,
  /** Dead letters kept (the oldest are dropped first). */
  maxDeadLetters: 1000,
});

/** Options of {@link createInProcessQueue}; every field defaults to {@link IN_PROCESS_QUEUE_DEFAULTS}. */
export interface InProcessQueueOptions {
  readonly retries?: number;
  readonly retryDelayMs?: number;
  readonly maxRetryDelayMs?: number;
  readonly expireMs?: number;
  readonly maxDeadLetters?: number;
  /** Job starts, ends, errors, retries and dead letters (a worker's log). */
  readonly onEvent?: CompactionQueueListener;
}

/** The in-process queue: a {@link CompactionQueue} whose failed jobs can be inspected. */
export interface InProcessQueue extends CompactionQueue {
  readonly kind: 'in-process';
  /** Jobs that failed every attempt, oldest first. */
  deadLetters(): Promise<readonly DeadCompactionJob[]>;
  /** Jobs queued, running or waiting for a retry (each session at most once). */
  size(): number;
}

const optionsSchema = z
  .object({
    retries: z.number().int().nonnegative().optional(),
    retryDelayMs: z.number().int().nonnegative().optional(),
    maxRetryDelayMs: z.number().int().nonnegative().optional(),
    expireMs: z.number().int().positive().optional(),
    maxDeadLetters: z.number().int().nonnegative().optional(),
    onEvent: fn<CompactionQueueListener>('an event listener').optional(),
  })
  .strict();

type Handler = (job: CompactionJob, context: CompactionJobContext) => Promise<void>;

interface Entry {
  readonly job: CompactionJob;
  /** Attempts started so far. */
  attempts: number;
  retryTimer: ReturnType<typeof setTimeout> | undefined;
}

interface Worker {
  readonly handler: Handler;
  readonly concurrency: number;
  readonly running: Set<Promise<void>>;
  /** Aborted when the worker stops: running handlers stop, their jobs go back to the queue. */
  readonly stop: AbortController;
}

/**
 * A compaction queue inside this process (issue 13), for SQLite, JSONL and memory stores: one
 * job per session at a time (queued, running or waiting to retry), retries with exponential
 * back-off, an expiry that aborts the handler's signal, and a list of dead letters (jobs that
 * failed every attempt). Nothing survives the process: a job lost with it is queued again the
 * next time its session passes the early threshold. PostgreSQL deployments with several
 * processes use `pgBossQueue` from `chatfold/pg-boss` instead.
 *
 * @param options retries, back-off, expiry, dead-letter bound and an event listener.
 * @returns the queue; `work()` starts handling jobs in this process.
 * @throws ChatfoldError `E_INVALID_OPTIONS` for a bad option.
 *
 * @example
 * const queue = createInProcessQueue({ retries: 2 });
 * const chatfold = createChatfold({ model: 'gpt-4o', store, summarizer, background: { queue } });
 * const stop = await runCompactionWorker({ chatfold, queue });
 */
export function createInProcessQueue(options: InProcessQueueOptions = {}): InProcessQueue {
  parseOptions(optionsSchema, options, 'createInProcessQueue');
  const settings = { ...IN_PROCESS_QUEUE_DEFAULTS, ...definedOnly(options) };
  const entries = new Map<string, Entry>();
  const ready: Entry[] = [];
  const workers = new Set<Worker>();
  const dead: DeadCompactionJob[] = [];
  let closed = false;

  const retryDelay = (attempts: number): number =>
    Math.min(settings.maxRetryDelayMs, settings.retryDelayMs * 2 ** (attempts - 1));

  function freeWorker(): Worker | undefined {
    let best: Worker | undefined;
    for (const worker of workers) {
      if (worker.stop.signal.aborted || worker.running.size >= worker.concurrency) continue;
      if (best === undefined || worker.running.size < best.running.size) best = worker;
    }
    return best;
  }

  function dispatch(): void {
    while (ready.length > 0) {
      const worker = freeWorker();
      if (worker === undefined) return;
      const entry = ready.shift() as Entry;
      const run = attempt(worker, entry).finally(() => {
        worker.running.delete(run);
        dispatch();
      });
      worker.running.add(run);
    }
  }

  function fail(entry: Entry, error: unknown, expired: boolean): void {
    const { job, attempts } = entry;
    const willRetry = attempts <= settings.retries;
    const retryInMs = willRetry ? retryDelay(attempts) : undefined;
    notify(settings.onEvent, {
      type: 'job-error',
      job,
      attempt: attempts,
      error,
      expired,
      stopped: false,
      retryInMs,
    });
    if (retryInMs !== undefined) {
      entry.retryTimer = setTimeout(() => {
        entry.retryTimer = undefined;
        ready.push(entry);
        dispatch();
      }, retryInMs);
      entry.retryTimer.unref?.();
      return;
    }
    entries.delete(job.sessionId);
    dead.push({ job, attempts, error: errorText(error), failedAt: new Date().toISOString() });
    if (dead.length > settings.maxDeadLetters) dead.splice(0, dead.length - settings.maxDeadLetters);
    notify(settings.onEvent, { type: 'job-dead', job, attempts, error });
  }

  async function attempt(worker: Worker, entry: Entry): Promise<void> {
    entry.attempts += 1;
    const { job } = entry;
    const expiry = new AbortController();
    const timer = setTimeout(
      () =>
        expiry.abort(
          new ChatfoldError(
            'E_QUEUE',
            `the compaction job of session ${job.sessionId} ran past its expiry of ${settings.expireMs} ms (attempt ${entry.attempts}); it is retried when attempts remain (raise expireMs for slow summarizers)`,
            { queue: 'in-process', sessionId: job.sessionId },
          ),
        ),
      settings.expireMs,
    );
    const signal = AbortSignal.any([worker.stop.signal, expiry.signal]);
    const started = performance.now();
    notify(settings.onEvent, { type: 'job-start', job, attempt: entry.attempts });
    let outcome: { ok: true } | { ok: false; error: unknown };
    try {
      await worker.handler(job, { signal });
      outcome = { ok: true };
    } catch (error) {
      outcome = { ok: false, error };
    } finally {
      clearTimeout(timer);
    }
    if (expiry.signal.aborted) {
      // Too late counts as failed, whatever the handler did after its signal aborted.
      fail(entry, expiry.signal.reason, true);
    } else if (outcome.ok) {
      entries.delete(job.sessionId);
      notify(settings.onEvent, {
        type: 'job-end',
        job,
        attempt: entry.attempts,
        durationMs: performance.now() - started,
      });
    } else if (worker.stop.signal.aborted) {
      // The worker stopped, not the job: back to the front of the queue, the attempt not used up.
      entry.attempts -= 1;
      notify(settings.onEvent, {
        type: 'job-error',
        job,
        attempt: entry.attempts + 1,
        error: outcome.error,
        expired: false,
        stopped: true,
        retryInMs: closed ? undefined : 0,
      });
      if (closed) entries.delete(job.sessionId);
      else ready.unshift(entry);
    } else {
      fail(entry, outcome.error, false);
    }
  }

  function assertOpen(what: string): void {
    if (closed) {
      throw new ChatfoldError(
        'E_QUEUE',
        `the in-process compaction queue is closed; ${what} needs an open queue (create a new one)`,
        { queue: 'in-process' },
      );
    }
  }

  async function stopWorker(worker: Worker): Promise<void> {
    if (!worker.stop.signal.aborted) {
      worker.stop.abort(
        new ChatfoldError('E_QUEUE', 'the compaction worker stopped; the job goes back to the queue', {
          queue: 'in-process',
        }),
      );
    }
    while (worker.running.size > 0) await Promise.allSettled([...worker.running]);
    workers.delete(worker);
    // Jobs it gave back go to the other workers, if any.
    dispatch();
  }

  return {
    kind: 'in-process',
    async enqueue(job) {
      checkCompactionJob(job, 'in-process');
      assertOpen('enqueue()');
      if (entries.has(job.sessionId)) return false;
      const entry: Entry = {
        job: { sessionId: job.sessionId, requestedAt: job.requestedAt },
        attempts: 0,
        retryTimer: undefined,
      };
      entries.set(job.sessionId, entry);
      ready.push(entry);
      dispatch();
      return true;
    },
    async work(handler, workOptions: WorkOptions = {}) {
      const { concurrency } = checkWorkOptions(handler, workOptions);
      assertOpen('work()');
      const worker: Worker = { handler, concurrency, running: new Set(), stop: new AbortController() };
      workers.add(worker);
      dispatch();
      return () => stopWorker(worker);
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...workers].map(stopWorker));
      for (const entry of entries.values()) clearTimeout(entry.retryTimer);
      entries.clear();
      ready.length = 0;
    },
    async deadLetters() {
      return [...dead];
    },
    size: () => entries.size,
  };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}
