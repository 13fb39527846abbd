/** One background compaction request (a session never has two queued or running). */
export interface CompactionJob {
  readonly sessionId: string;
  /** When the session crossed the early threshold (ISO 8601). */
  readonly requestedAt: string;
}

/** What a job handler gets besides the job. */
export interface CompactionJobContext {
  /** Aborted when the worker stops or the job expires; the handler must stop its model call. */
  readonly signal: AbortSignal;
}

/** Options of {@link CompactionQueue.work}. */
export interface WorkOptions {
  /** Jobs handled at once by this worker. Default 1. */
  readonly concurrency?: number;
}

/**
 * Where background compactions wait (issue 13): one interface, an in-process implementation
 * for SQLite, JSONL and memory stores and a pg-boss one for PostgreSQL. Jobs are singletons per
 * session, retried with back-off when the handler throws, and expire.
 */
export interface CompactionQueue {
  /** A short name for logs: `in-process`, `pg-boss`. */
  readonly kind: string;
  /**
   * Queues a compaction of `job.sessionId` unless one is already queued or running for it.
   * Resolves true when this call queued it.
   */
  enqueue(job: CompactionJob): Promise<boolean>;
  /** Handles jobs until the returned function is called (it waits for running jobs to end). */
  work(
    handler: (job: CompactionJob, context: CompactionJobContext) => Promise<void>,
    options?: WorkOptions,
  ): Promise<() => Promise<void>>;
  /** Stops workers and releases connections. Idempotent. */
  close(): Promise<void>;
}
