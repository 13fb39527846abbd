import type { Job, JobWithMetadata, PgBoss } from 'pg-boss';
import { z } from 'zod';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { importPeer } from '../errors/import-peer.ts';
import { fn, parseOptions, withMethods } from '../options/parse-options.ts';
import { checkCompactionJob, checkWorkOptions } from './check-job.ts';
import { type CompactionQueueListener, type DeadCompactionJob, errorText, notify } from './queue-events.ts';
import type { CompactionJob, CompactionQueue, WorkOptions } from './types.ts';

// chatfold/pg-boss (issue 13): background compactions on PostgreSQL through pg-boss, a
// well-kept job queue on PostgreSQL (SKIP LOCKED claims, retries, expiry, dead letters). The
// scheduling is pg-boss's; this file only maps chatfold's queue interface onto it.

/** Defaults of {@link pgBossQueue}. */
export const PG_BOSS_QUEUE_DEFAULTS = Object.freeze({
  /**
   * The schema of pg-boss's tables: by default the PostgreSQL store's (`chatfold`); their names
   * (`job`, `queue`, `version`, …) do not meet the store's, and one `DROP SCHEMA` removes both.
   */
  schema: 'chatfold',
  /** The queue's name; its dead letters go to `<queueName>-dead`. */
  queueName: 'chatfold-compaction',
  /** Attempts after the first one (pg-boss `retryLimit`). */
  retries: 3,
  /** Seconds before the first retry; with back-off (pg-boss `retryBackoff`), about doubled each time. */
  retryDelaySeconds: 5,
  /** Longest wait between retries, in seconds. */
  maxRetryDelaySeconds: 300,
  /** A job active longer is failed and retried, and its handler's signal aborted. */
  expireInSeconds: 300,
  /**
   * A running job sends a heartbeat this often (pg-boss checks at half of it); a worker that
   * died (SIGKILL, a lost machine) stops sending, and its job is retried after this many seconds
   * instead of after the whole expiry. pg-boss's minimum is 10.
   */
  heartbeatSeconds: 10,
  /** How often pg-boss looks for expired jobs and missed heartbeats, in seconds. */
  superviseIntervalSeconds: 5,
  /** How often an idle worker polls, in seconds (LISTEN/NOTIFY wakes it sooner). */
  pollingIntervalSeconds: 2,
  /** Connections of pg-boss's own pool (the store has its own). */
  maxConnections: 4,
});

/** Where pg-boss keeps its tables: a connection string, or a pg-boss instance the caller owns. */
export type PgBossConnection =
  | { readonly connectionString: string; readonly boss?: never }
  /**
   * A pg-boss instance already started (an app that uses pg-boss for its own jobs). `close()`
   * stops chatfold's workers but leaves the instance running.
   */
  | { readonly boss: PgBoss; readonly connectionString?: never };

/** Options of {@link pgBossQueue}; every setting defaults to {@link PG_BOSS_QUEUE_DEFAULTS}. */
export type PgBossQueueOptions = PgBossConnection & {
  readonly schema?: string;
  readonly queueName?: string;
  readonly retries?: number;
  readonly retryDelaySeconds?: number;
  readonly maxRetryDelaySeconds?: number;
  readonly expireInSeconds?: number;
  readonly heartbeatSeconds?: number;
  readonly superviseIntervalSeconds?: number;
  readonly pollingIntervalSeconds?: number;
  readonly maxConnections?: number;
  /** Job starts, ends, errors and dead letters seen by this process, and pg-boss errors. */
  readonly onEvent?: CompactionQueueListener;
};

/** The pg-boss queue: a {@link CompactionQueue} whose dead letters are rows in PostgreSQL. */
export interface PgBossQueue extends CompactionQueue {
  readonly kind: 'pg-boss';
  /**
   * Connects and creates the queues now, so a missing `pg-boss` or an unreachable database fails
   * at startup rather than at the first job. Every other method does it on first use.
   */
  start(): Promise<void>;
  /** Jobs that failed every attempt (from any process), oldest first, at most `limit` (default 1,000). */
  deadLetters(options?: { readonly limit?: number }): Promise<readonly DeadCompactionJob[]>;
}

const settingsShape = {
  schema: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,49}$/, {
      message:
        'expected a plain identifier (letters, digits and _, at most 50 characters, not starting with a digit)',
    })
    .optional(),
  queueName: z
    .string()
    .regex(/^[\w.-]+$/, { message: 'expected letters, digits, "_", "-" and "."' })
    .optional(),
  retries: z.number().int().nonnegative().optional(),
  retryDelaySeconds: z.number().int().positive().optional(),
  maxRetryDelaySeconds: z.number().int().positive().optional(),
  expireInSeconds: z.number().int().positive().optional(),
  heartbeatSeconds: z.number().int().min(10).optional(),
  superviseIntervalSeconds: z.number().int().positive().optional(),
  pollingIntervalSeconds: z.number().min(0.5).optional(),
  maxConnections: z.number().int().positive().optional(),
  onEvent: fn<CompactionQueueListener>('an event listener').optional(),
};
const optionsSchemas = {
  connectionString: z.object({ connectionString: z.string().min(1), ...settingsShape }).strict(),
  boss: z
    .object({
      boss: withMethods<PgBoss>('a started pg-boss instance', ['send', 'work', 'offWork']),
      ...settingsShape,
    })
    .strict(),
};

type Settings = typeof PG_BOSS_QUEUE_DEFAULTS & { readonly onEvent?: CompactionQueueListener };

function checkOptions(options: PgBossQueueOptions): Settings {
  const chosen =
    typeof options === 'object' && options !== null && 'boss' in options && options.boss !== undefined
      ? 'boss'
      : 'connectionString';
  parseOptions(optionsSchemas[chosen], options ?? null, 'pgBossQueue');
  const { connectionString: _c, boss: _b, ...settings } = options;
  return {
    ...PG_BOSS_QUEUE_DEFAULTS,
    ...(Object.fromEntries(
      Object.entries(settings).filter(([, value]) => value !== undefined),
    ) as Partial<Settings>),
  };
}

/** The message of a pg-boss job output (a serialised error) or of an error. */
function outputText(output: unknown): string {
  if (typeof output === 'object' && output !== null && 'message' in output) {
    const { name, message } = output as { name?: unknown; message?: unknown };
    return `${typeof name === 'string' && name !== 'Error' ? `${name}: ` : ''}${String(message)}`;
  }
  return output === null || output === undefined ? 'unknown error' : JSON.stringify(output);
}

/**
 * A compaction queue on PostgreSQL through pg-boss (issue 13), for several `chatfold serve` and
 * `chatfold worker` processes on one database. One pg-boss queue with the `exclusive` policy and
 * the session id as `singletonKey`, so a session never has two jobs queued or running, whichever
 * process asks; retries with exponential back-off; an expiry and a heartbeat, so the job of a
 * worker that died is retried; jobs that failed every attempt go to a dead-letter queue
 * (`<queueName>-dead`). pg-boss installs its tables in `schema` on first use.
 *
 * @param options a connection string (or a started pg-boss instance), the schema, and the retry,
 *   expiry and polling settings.
 * @returns the queue; it connects on first use.
 * @throws ChatfoldError `E_INVALID_OPTIONS` for bad options; `E_MISSING_DEPENDENCY` on first use
 *   when `pg-boss` is not installed; `E_QUEUE` when PostgreSQL cannot be reached.
 *
 * @example
 * import { pgBossQueue } from 'chatfold/pg-boss';
 * const queue = pgBossQueue({ connectionString: 'postgres://app@db:5432/app' });
 * const chatfold = createChatfold({ model: 'gpt-4o', store, summarizer, background: { queue } });
 */
export function pgBossQueue(options: PgBossQueueOptions): PgBossQueue {
  const settings = checkOptions(options);
  const { queueName } = settings;
  const deadName = `${queueName}-dead`;
  const owned = options.boss === undefined;
  const stops = new Set<() => Promise<void>>();
  let started: Promise<PgBoss> | undefined;
  let closed = false;

  async function start(): Promise<PgBoss> {
    let boss = options.boss;
    if (boss === undefined) {
      const { PgBoss: PgBossClass } = await importPeer(
        'pg-boss',
        () => import('pg-boss'),
        'chatfold/pg-boss',
      );
      boss = new PgBossClass({
        connectionString: options.connectionString as string,
        // Quoted when it has capitals, as the store quotes it, so both name the same schema.
        schema: /[A-Z]/.test(settings.schema) ? `"${settings.schema}"` : settings.schema,
        max: settings.maxConnections,
        application_name: 'chatfold-queue',
        superviseIntervalSeconds: settings.superviseIntervalSeconds,
        monitorIntervalSeconds: settings.superviseIntervalSeconds,
        useListenNotify: true,
        // chatfold schedules nothing; pg-boss's cron clock would only poll.
        schedule: false,
      });
      // An 'error' event without a listener would crash the process (EventEmitter).
      boss.on('error', (error) =>
        notify(settings.onEvent, {
          type: 'queue-error',
          error: asQueueError(error, 'pg-boss reported an error'),
        }),
      );
      try {
        // Several processes (and the store) may create the schema at the same moment; PostgreSQL
        // answers the loser of `CREATE SCHEMA IF NOT EXISTS` with a duplicate key: try again.
        await boss.start({ attempts: 3 });
      } catch (cause) {
        throw asQueueError(cause, `cannot start pg-boss in schema ${settings.schema}`);
      }
    }
    await boss.createQueue(deadName, { policy: 'standard' });
    await boss.createQueue(queueName, {
      policy: 'exclusive',
      deadLetter: deadName,
      notify: true,
      ...jobSettings(),
    });
    return boss;
  }

  /** Retry, expiry and heartbeat of a job: set on the queue, and on every job sent (they win). */
  const jobSettings = () => ({
    retryLimit: settings.retries,
    retryDelay: settings.retryDelaySeconds,
    retryBackoff: true,
    retryDelayMax: settings.maxRetryDelaySeconds,
    expireInSeconds: settings.expireInSeconds,
    heartbeatSeconds: settings.heartbeatSeconds,
  });

  function boss(what: string): Promise<PgBoss> {
    if (closed) {
      throw new ChatfoldError(
        'E_QUEUE',
        `the pg-boss compaction queue is closed; ${what} needs an open queue`,
        {
          queue: 'pg-boss',
        },
      );
    }
    started ??= start();
    // A failed start is tried again on the next call (the database may come back).
    started.catch(() => {
      started = undefined;
    });
    return started;
  }

  /** The expected back-off before the next attempt (pg-boss adds jitter). */
  const retryInMs = (retryCount: number): number =>
    Math.min(settings.maxRetryDelaySeconds, settings.retryDelaySeconds * 2 ** retryCount) * 1000;

  return {
    kind: 'pg-boss',
    async start() {
      await boss('start()');
    },
    async enqueue(job: CompactionJob) {
      checkCompactionJob(job, 'pg-boss');
      const instance = await boss('enqueue()');
      const data = { sessionId: job.sessionId, requestedAt: job.requestedAt };
      const id = await instance
        .send(queueName, data, { singletonKey: job.sessionId, ...jobSettings() })
        .catch((cause: unknown) => {
          throw asQueueError(cause, `cannot queue the compaction of session ${job.sessionId}`, job.sessionId);
        });
      return id !== null;
    },
    async work(handler, workOptions: WorkOptions = {}) {
      const { concurrency } = checkWorkOptions(handler, workOptions);
      const instance = await boss('work()');
      const stopping = new AbortController();
      const running = new Set<Promise<unknown>>();
      const handle = async (pgJob: Job<unknown>): Promise<void> => {
        checkCompactionJob(pgJob.data, 'pg-boss');
        const job = pgJob.data;
        const attempt = pgJob.retryCount + 1;
        const signal = AbortSignal.any([pgJob.signal, stopping.signal]);
        const startedAt = performance.now();
        notify(settings.onEvent, { type: 'job-start', job, attempt });
        try {
          // A job fetched while the worker was stopping is handed back at once (pg-boss retries it).
          signal.throwIfAborted();
          await handler(job, { signal });
          notify(settings.onEvent, {
            type: 'job-end',
            job,
            attempt,
            durationMs: performance.now() - startedAt,
          });
        } catch (error) {
          const willRetry = attempt <= settings.retries;
          notify(settings.onEvent, {
            type: 'job-error',
            job,
            attempt,
            error,
            expired: pgJob.signal.aborted && !stopping.signal.aborted,
            stopped: stopping.signal.aborted,
            retryInMs: willRetry ? retryInMs(pgJob.retryCount) : undefined,
          });
          if (!willRetry) notify(settings.onEvent, { type: 'job-dead', job, attempts: attempt, error });
          throw error;
        }
      };
      const id = await instance.work<unknown>(
        queueName,
        {
          localConcurrency: concurrency,
          batchSize: 1,
          pollingIntervalSeconds: settings.pollingIntervalSeconds,
          // NOTIFY wakes workers for new jobs only; a retry coming due is found by polling.
          notifyPollingIntervalSeconds: settings.pollingIntervalSeconds,
        },
        async (jobs) => {
          const run = Promise.all(jobs.map(handle));
          running.add(run);
          try {
            await run;
          } finally {
            running.delete(run);
          }
        },
      );
      const stop = async (): Promise<void> => {
        if (!stops.delete(stop)) return;
        // Stop fetching first, then abort what runs; offWork resolves once the handlers returned.
        const off = instance.offWork(queueName, { id, wait: true });
        stopping.abort(
          new ChatfoldError('E_QUEUE', 'the compaction worker stopped; pg-boss retries the job', {
            queue: 'pg-boss',
          }),
        );
        await Promise.allSettled([off, ...running]);
        await off;
      };
      stops.add(stop);
      return stop;
    },
    async deadLetters({ limit = 1000 } = {}) {
      const instance = await boss('deadLetters()');
      const jobs = (await instance.findJobs<unknown>(deadName, { limit })) as JobWithMetadata<unknown>[];
      return jobs.map((dead) => {
        checkCompactionJob(dead.data, 'pg-boss');
        return {
          job: { sessionId: dead.data.sessionId, requestedAt: dead.data.requestedAt },
          attempts: (dead.sourceRetryCount ?? settings.retries) + 1,
          error: outputText(dead.sourceOutput),
          failedAt: new Date(dead.createdOn).toISOString(),
        };
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...stops].map((stop) => stop()));
      const instance = await started?.catch(() => undefined);
      if (owned && instance !== undefined)
        await instance.stop({ graceful: true, close: true, timeout: 10_000 });
    },
  };
}

function asQueueError(cause: unknown, what: string, sessionId?: string): ChatfoldError<'E_QUEUE'> {
  if (ChatfoldError.hasCode(cause, 'E_QUEUE')) return cause;
  return new ChatfoldError(
    'E_QUEUE',
    `${what}: ${errorText(cause)} (check that PostgreSQL is reachable and the role may create the schema)`,
    { queue: 'pg-boss', ...(sessionId === undefined ? {} : { sessionId }) },
    { cause },
  );
}
