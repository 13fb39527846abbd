import type { CompactionJob } from './types.ts';

/**
 * What happens to compaction jobs in a queue (issue 13), for logs and dashboards. The same
 * vocabulary for the in-process and the pg-boss queue. `attempt` counts from 1.
 */
export type CompactionQueueEvent =
  | { readonly type: 'job-start'; readonly job: CompactionJob; readonly attempt: number }
  /** The handler returned; the queue records the job as done right after (pg-boss: one query later). */
  | {
      readonly type: 'job-end';
      readonly job: CompactionJob;
      readonly attempt: number;
      readonly durationMs: number;
    }
  /**
   * The handler threw, or ran past the expiry (`expired`), or its worker stopped (`stopped`: the
   * job goes back to the queue without using up an attempt). `retryInMs` is set when it will be
   * tried again.
   */
  | {
      readonly type: 'job-error';
      readonly job: CompactionJob;
      readonly attempt: number;
      readonly error: unknown;
      readonly expired: boolean;
      readonly stopped: boolean;
      readonly retryInMs: number | undefined;
    }
  /** Every attempt failed: the job is a dead letter now (`queue.deadLetters()`). */
  | {
      readonly type: 'job-dead';
      readonly job: CompactionJob;
      readonly attempts: number;
      readonly error: unknown;
    }
  /** The queue itself failed (pg-boss lost its database, a maintenance query failed); it keeps trying. */
  | { readonly type: 'queue-error'; readonly error: unknown };

/** A job that failed every attempt, kept for inspection. */
export interface DeadCompactionJob {
  readonly job: CompactionJob;
  readonly attempts: number;
  /** The last attempt's error, as text. */
  readonly error: string;
  /** When the last attempt failed (ISO 8601). */
  readonly failedAt: string;
}

/** Listener of a queue's events; what it throws is dropped (a log line must not fail a job). */
export type CompactionQueueListener = (event: CompactionQueueEvent) => void;

/** Calls the listener, if any; a listener that throws never changes what the queue does. */
export function notify(listener: CompactionQueueListener | undefined, event: CompactionQueueEvent): void {
  if (listener === undefined) return;
  try {
    listener(event);
  } catch {
    // A listener is an observer (a log line); its fault is not the job's and cannot be reported
    // through the listener that just failed.
  }
}

/** An error as one line of text. */
export function errorText(error: unknown): string {
  return error instanceof Error
    ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}`
    : String(error);
}
