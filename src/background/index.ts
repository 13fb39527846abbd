// Background compaction (issue 13): the queue interface, the in-process queue and the worker
// loop. The pg-boss queue for PostgreSQL is its own entry point, chatfold/pg-boss, so the
// root never loads pg-boss.
export { DEFAULT_WORK_CONCURRENCY } from './check-job.ts';
export {
  createInProcessQueue,
  IN_PROCESS_QUEUE_DEFAULTS,
  type InProcessQueue,
  type InProcessQueueOptions,
} from './in-process-queue.ts';
export type { CompactionQueueEvent, CompactionQueueListener, DeadCompactionJob } from './queue-events.ts';
export { type CompactionWorkerOptions, runCompactionWorker } from './run-worker.ts';
export type { CompactionJob, CompactionJobContext, CompactionQueue, WorkOptions } from './types.ts';
