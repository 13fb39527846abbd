import { createInProcessQueue } from '../background/in-process-queue.ts';
import { PG_BOSS_QUEUE_DEFAULTS, type PgBossQueue, pgBossQueue } from '../background/pg-boss-queue.ts';
import { type CompactionQueueEvent, errorText } from '../background/queue-events.ts';
import type { CompactionQueue } from '../background/types.ts';
import { STORE_ENV } from './open-store.ts';

/** An opened compaction queue and how to name it in messages (never with a password). */
export interface OpenedQueue {
  readonly queue: CompactionQueue;
  /** True for pg-boss: other processes (`chatfold worker`, other `serve`s) share the queue. */
  readonly isShared: boolean;
  /** `pg-boss (schema chatfold)`, `in-process`. */
  readonly description: string;
  /** Connects now (pg-boss): a missing package or an unreachable database fails at startup, not at the first job. */
  start(): Promise<void>;
}

/**
 * The compaction queue for the store `--store` names (issue 13): a `postgres://` URL gets the
 * pg-boss queue in the store's schema (the `schema` query parameter, default `chatfold`), so
 * every `chatfold serve` and `chatfold worker` on that database shares it; any other store an
 * in-process queue.
 *
 * @param location the `--store` value, if given (else `CHATFOLD_STORE`).
 * @param options `onEvent` gets every job event (the CLI prints failures).
 */
export function openCompactionQueue(
  location: string | undefined,
  {
    env = process.env,
    onEvent,
  }: { readonly env?: NodeJS.ProcessEnv; readonly onEvent?: (event: CompactionQueueEvent) => void } = {},
): OpenedQueue {
  const chosen = location?.trim() || env[STORE_ENV]?.trim() || undefined;
  const listener = onEvent === undefined ? {} : { onEvent };
  if (chosen !== undefined && /^postgres(ql)?:\/\//i.test(chosen)) {
    // openStore has already refused a malformed URL.
    const url = new URL(chosen);
    const schema = url.searchParams.get('schema') ?? PG_BOSS_QUEUE_DEFAULTS.schema;
    url.searchParams.delete('schema');
    const queue: PgBossQueue = pgBossQueue({ connectionString: url.toString(), schema, ...listener });
    return {
      queue,
      isShared: true,
      description: `pg-boss (schema ${schema})`,
      start: async () => {
        await queue.start();
      },
    };
  }
  return {
    queue: createInProcessQueue(listener),
    isShared: false,
    description: 'in-process',
    start: async () => undefined,
  };
}

/** One log line for a job event worth telling an operator (failures, retries, dead letters), or undefined. */
export function describeQueueEvent(event: CompactionQueueEvent): string | undefined {
  switch (event.type) {
    case 'job-error': {
      const why = event.stopped ? 'stopped with its worker' : event.expired ? 'expired' : 'failed';
      const next =
        event.retryInMs === undefined
          ? 'no attempts left'
          : `retried in ${Math.round(event.retryInMs / 1000)} s`;
      return `compaction of session ${event.job.sessionId} ${why} (attempt ${event.attempt}): ${errorText(event.error)}; ${next}`;
    }
    case 'job-dead':
      return `compaction of session ${event.job.sessionId} failed ${event.attempts} times: a dead letter now (its prompts are fitted without a model call until a later job succeeds)`;
    case 'queue-error':
      return `compaction queue: ${errorText(event.error)}`;
    default:
      return undefined;
  }
}
