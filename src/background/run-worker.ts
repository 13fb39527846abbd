import type { Session } from '../session/types.ts';
import type { CompactionQueue } from './types.ts';

/** Options of {@link runCompactionWorker}. */
export interface CompactionWorkerOptions {
  /**
   * Opens sessions: a `createChatfold()` result with the same model, window and summarizer as
   * the app that queues the jobs (a plan made under other settings would not fit its budget).
   */
  readonly chatfold: { session(id: string): Promise<Session> };
  readonly queue: CompactionQueue;
  /** Jobs handled at once by this worker. Default 1. */
  readonly concurrency?: number;
}

/**
 * Runs background compactions (issue 13): for each job, opens the session and calls
 * `session.precompact({ signal })`, which writes the summary off the request path and stores it
 * as the session's pending plan; `prepare()` applies it when the trigger fires. Workers are
 * stateless: the plan is in the store, the job in the queue, so a worker killed mid-job loses
 * nothing and the job is retried (pg-boss after its heartbeat or expiry; in process, never
 * across a restart — the session queues a new job at its next turn).
 *
 * @param options the sessions, the queue and the concurrency.
 * @returns the function that stops the worker (it aborts running summaries and waits for them;
 *   their jobs go back to the queue).
 *
 * @example
 * const queue = await pgBossQueue({ connectionString: process.env.DATABASE_URL });
 * const chatfold = createChatfold({ model: 'gpt-4o', store, summarizer });
 * const stop = await runCompactionWorker({ chatfold, queue, concurrency: 4 });
 * process.once('SIGTERM', () => void stop().then(() => queue.close()));
 */
export function runCompactionWorker({
  chatfold,
  queue,
  concurrency,
}: CompactionWorkerOptions): Promise<() => Promise<void>> {
  return queue.work(
    async (job, { signal }) => {
      signal.throwIfAborted();
      const session = await chatfold.session(job.sessionId);
      signal.throwIfAborted();
      await session.precompact({ signal });
    },
    concurrency === undefined ? {} : { concurrency },
  );
}
