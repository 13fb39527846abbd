import { z } from 'zod';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { parseOptions } from '../options/parse-options.ts';
import type { CompactionJob, WorkOptions } from './types.ts';

/** Jobs a worker handles at once when `work()` is not told. */
export const DEFAULT_WORK_CONCURRENCY = 1;

const workOptionsSchema = z.object({ concurrency: z.number().int().positive().optional() }).strict();

/** Checks `work()`'s handler and options (`E_INVALID_OPTIONS`) and fills in the default concurrency. */
export function checkWorkOptions(handler: unknown, options: WorkOptions): { readonly concurrency: number } {
  if (typeof handler !== 'function') {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      'work(handler): expected a function (job, { signal }) => Promise<void>',
      {
        option: 'handler',
        where: 'work',
      },
    );
  }
  parseOptions(workOptionsSchema, options, 'work');
  return { concurrency: options.concurrency ?? DEFAULT_WORK_CONCURRENCY };
}

/**
 * Checks a job at the queue's boundary: a session id (a non-empty string) and the ISO time it
 * was requested. A job is also what a worker reads back from PostgreSQL, so both directions
 * use this.
 *
 * @throws ChatfoldError `E_QUEUE` naming the field, what was expected and what was received.
 */
export function checkCompactionJob(job: unknown, queue: string): asserts job is CompactionJob {
  const record = typeof job === 'object' && job !== null ? (job as Record<string, unknown>) : undefined;
  const problem =
    record === undefined
      ? `expected { sessionId, requestedAt }, received ${job === null ? 'null' : typeof job}`
      : typeof record.sessionId !== 'string' || record.sessionId === ''
        ? `sessionId: expected a non-empty string, received ${JSON.stringify(record.sessionId) ?? 'nothing'}`
        : typeof record.requestedAt !== 'string' || Number.isNaN(Date.parse(record.requestedAt))
          ? `requestedAt: expected an ISO 8601 time, received ${JSON.stringify(record.requestedAt) ?? 'nothing'}`
          : undefined;
  if (problem !== undefined) {
    throw new ChatfoldError('E_QUEUE', `compaction job: ${problem}`, {
      queue,
      ...(typeof record?.sessionId === 'string' ? { sessionId: record.sessionId } : {}),
    });
  }
}
