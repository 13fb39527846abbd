/**
 * Background compaction benchmark (issue 13).
 *
 * 1. Turn latency, inline vs background compaction, with a summarizer that takes 2 s: sessions
 *    on the SQLite store (`chatfold serve`'s default) run turns: append the user message and
 *    `prepare()` (timed: what a turn waits for before its model call can start), then the model
 *    answers after MODEL_MS (not timed) and the answer is appended. Inline, the turn whose
 *    trigger fires waits for the summary; in the background, a worker (another chatfold on the
 *    same store, the in-process queue) writes it off the request path.
 * 2. Jobs per second with 1, 2 and 4 workers on the pg-boss queue (PostgreSQL, DATABASE_URL):
 *    each job is `session.precompact()` on a long session, with the summarizer at 2 s and at 0 s
 *    (the queue's and the planner's own cost). Workers run in this process, each with its own
 *    pg-boss instance and pool, as separate processes would.
 *
 * Run: `DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/background.ts`. Writes
 * bench/results/background.json and prints markdown. Without DATABASE_URL part 2 is skipped.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createInProcessQueue } from '../src/background/in-process-queue.ts';
import { pgBossQueue } from '../src/background/pg-boss-queue.ts';
import { runCompactionWorker } from '../src/background/run-worker.ts';
import type { MessageInput } from '../src/messages/types.ts';
import { createChatfold } from '../src/session/create-chatfold.ts';
import type { ChatfoldOptions } from '../src/session/types.ts';
import { postgresStore } from '../src/stores/postgres/index.ts';
import { sqliteStore } from '../src/stores/sqlite/index.ts';
import type { Store } from '../src/stores/types.ts';
import type { Summarizer } from '../src/summarize/types.ts';
import { machine } from './harness.ts';

const SUMMARY_MS = 2000;
/** How long the (simulated) model takes to answer a turn: the time a background summary has. */
const MODEL_MS = 1000;
const WINDOW = 8000;
const SESSIONS = 20;
const TURNS = 40;
const JOBS = 16;
const WORKER_COUNTS = [1, 2, 4] as const;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** A summarizer that takes `ms` (a model call) and returns a short summary. */
const slowSummarizer =
  (ms: number): Summarizer =>
  async (request) => {
    if (ms > 0) await sleep(ms, request.signal);
    return 'The user asked about river deltas; the assistant explained sediment, tides and channels.';
  };

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const value = sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
  return Math.round(value * 10) / 10;
}

const user = (session: number, turn: number): MessageInput => ({
  role: 'user',
  parts: [
    {
      type: 'text',
      text: `[s${session} t${turn}] ${'Tell me more about river deltas, the sediment they carry and the tides that shape them. '.repeat(5)}`,
    },
  ],
});
const answer = (turn: number): MessageInput => ({
  role: 'assistant',
  parts: [
    {
      type: 'text',
      text: `Answer ${turn}: ${'Deltas form where a river slows and drops its load; tides and waves rework it. '.repeat(6)}`,
    },
  ],
});

// ---------------------------------------------------------------------------------------------
// 1. Turn latency

interface LatencyResult {
  readonly mode: 'inline' | 'background';
  readonly turns: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly maxMs: number;
  /** Turns that took at least the summarizer's latency (they waited for a summary). */
  readonly turnsOverSummaryLatency: number;
  readonly compactions: number;
  readonly llmSummariesApplied: number;
  /** Summaries the summarizer wrote (in the background, some are never applied). */
  readonly summariesWritten: number;
  /** Where the prompt landed after each compaction, as a share of the policy's target: p10, p50, p90. */
  readonly landing: readonly [number, number, number];
  readonly wallSeconds: number;
}

async function turnLatency(mode: 'inline' | 'background'): Promise<LatencyResult> {
  const dir = mkdtempSync(join(tmpdir(), `chatfold-bench-bg-${mode}-`));
  const store = sqliteStore(join(dir, 'bench.db'));
  const queue = createInProcessQueue();
  let written = 0;
  const options: ChatfoldOptions<Store> = {
    model: 'gpt-4o',
    window: WINDOW,
    store,
    summarizer: (request) => {
      written += 1;
      return slowSummarizer(SUMMARY_MS)(request);
    },
    ...(mode === 'background' ? { background: { queue } } : {}),
  };
  let compactions = 0;
  let llm = 0;
  const landings: number[] = [];
  const app = createChatfold({
    ...options,
    onEvent: (event) => {
      if (event.type === 'compaction-end' && event.report.compacted) {
        compactions += 1;
        if (event.report.summary?.source === 'llm') llm += 1;
        landings.push((100 * event.report.tokensAfter) / event.report.target);
      }
    },
  });
  // The worker is a chatfold of its own on the same store, as a `chatfold worker` process is.
  const stop =
    mode === 'background'
      ? await runCompactionWorker({ chatfold: createChatfold(options), queue, concurrency: 4 })
      : undefined;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: SESSIONS }, async (_, index) => {
      const session = await app.session(`bench-${index}`);
      for (let turn = 0; turn < TURNS; turn += 1) {
        const t0 = performance.now();
        await session.append(user(index, turn));
        await session.prepare();
        latencies.push(performance.now() - t0);
        await sleep(MODEL_MS);
        await session.append(answer(turn));
      }
    }),
  );
  const wallSeconds = (performance.now() - started) / 1000;
  await stop?.();
  await queue.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    mode,
    turns: latencies.length,
    p50Ms: percentile(latencies, 50),
    p95Ms: percentile(latencies, 95),
    maxMs: percentile(latencies, 100),
    turnsOverSummaryLatency: latencies.filter((ms) => ms >= SUMMARY_MS).length,
    compactions,
    llmSummariesApplied: llm,
    summariesWritten: written,
    landing: [percentile(landings, 10), percentile(landings, 50), percentile(landings, 90)],
    wallSeconds: Math.round(wallSeconds * 10) / 10,
  };
}

// ---------------------------------------------------------------------------------------------
// 2. Jobs per second on pg-boss

interface ThroughputResult {
  readonly summaryMs: number;
  readonly workers: number;
  readonly jobs: number;
  readonly seconds: number;
  readonly jobsPerSecond: number;
}

async function throughput(databaseUrl: string): Promise<ThroughputResult[]> {
  const schema = `bench_bg_${process.pid}`;
  const store = postgresStore({ connectionString: databaseUrl, schema });
  const base: ChatfoldOptions<Store> = { model: 'gpt-4o', window: WINDOW, store };
  // Sessions long enough to compact: written once, then every run plans them again.
  const writer = createChatfold({ ...base, summarizer: slowSummarizer(0) });
  for (let index = 0; index < JOBS; index += 1) {
    const session = await writer.session(`job-${index}`);
    for (let turn = 0; turn < 12; turn += 1) await session.append([user(index, turn), answer(turn)]);
  }
  const results: ThroughputResult[] = [];
  try {
    for (const summaryMs of [SUMMARY_MS, 0]) {
      for (const workers of WORKER_COUNTS) {
        const queueName = `bench-${summaryMs}-${workers}`;
        let ended = 0;
        const failures: string[] = [];
        let done: () => void = () => undefined;
        const finished = new Promise<void>((resolve) => {
          done = resolve;
        });
        const queues = Array.from({ length: workers }, () =>
          pgBossQueue({
            connectionString: databaseUrl,
            schema,
            queueName,
            pollingIntervalSeconds: 0.5,
            maxConnections: 2,
            onEvent: (event) => {
              if (event.type === 'job-error') failures.push(String(event.error));
              if (event.type !== 'job-end') return;
              ended += 1;
              if (ended === JOBS) done();
            },
          }),
        );
        await Promise.all(queues.map((queue) => queue.start()));
        const producer = queues[0] as (typeof queues)[number];
        for (let index = 0; index < JOBS; index += 1) {
          await producer.enqueue({ sessionId: `job-${index}`, requestedAt: new Date().toISOString() });
        }
        const t0 = performance.now();
        const stops = await Promise.all(
          queues.map((queue) =>
            runCompactionWorker({
              chatfold: createChatfold({ ...base, summarizer: slowSummarizer(summaryMs) }),
              queue,
              concurrency: 1,
            }),
          ),
        );
        await finished;
        if (failures.length > 0) throw new Error(`compaction jobs failed: ${failures.join('; ')}`);
        const seconds = (performance.now() - t0) / 1000;
        await Promise.all(stops.map((stop) => stop()));
        await Promise.all(queues.map((queue) => queue.close()));
        results.push({
          summaryMs,
          workers,
          jobs: JOBS,
          seconds: Math.round(seconds * 100) / 100,
          jobsPerSecond: Math.round((JOBS / seconds) * 100) / 100,
        });
        process.stderr.write(
          `  ${workers} worker(s), summaries ${summaryMs} ms: ${(JOBS / seconds).toFixed(2)} jobs/s\n`,
        );
      }
    }
  } finally {
    await store.close();
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  }
  return results;
}

// ---------------------------------------------------------------------------------------------

const load = loadavg()[0];
process.stderr.write(`turn latency: ${SESSIONS} sessions × ${TURNS} turns, summaries ${SUMMARY_MS} ms\n`);
const inline = await turnLatency('inline');
process.stderr.write(`  inline p50 ${inline.p50Ms} ms, p95 ${inline.p95Ms} ms\n`);
const background = await turnLatency('background');
process.stderr.write(`  background p50 ${background.p50Ms} ms, p95 ${background.p95Ms} ms\n`);
const databaseUrl = process.env.DATABASE_URL;
const jobs = databaseUrl === undefined ? undefined : await throughput(databaseUrl);
if (jobs === undefined) process.stderr.write('jobs per second: skipped (set DATABASE_URL)\n');

const results = {
  machine: { ...machine(), loadAverage1m: load === undefined ? undefined : Math.round(load * 10) / 10 },
  settings: {
    summaryMs: SUMMARY_MS,
    modelMs: MODEL_MS,
    window: WINDOW,
    sessions: SESSIONS,
    turns: TURNS,
    jobs: JOBS,
  },
  turnLatency: [inline, background],
  jobsPerSecond: jobs ?? 'skipped: DATABASE_URL not set',
};
writeFileSync(new URL('./results/background.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);

const row = (result: LatencyResult) =>
  `| ${result.mode} | ${result.p50Ms} ms | ${result.p95Ms} ms | ${result.maxMs} ms | ${result.turnsOverSummaryLatency} / ${result.turns} | ${result.compactions} (${result.llmSummariesApplied} LLM) | ${result.summariesWritten} | ${result.landing.join(' / ')} % | ${result.wallSeconds} s |`;
console.log(
  [
    `| compaction | time to prompt p50 | p95 | slowest | turns ≥ ${SUMMARY_MS / 1000} s | compactions (LLM summary) | summaries written | prompt after, % of target p10 / p50 / p90 | wall |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    row(inline),
    row(background),
    '',
    ...(jobs === undefined
      ? []
      : [
          '| workers | jobs/s, summaries 2 s | jobs/s, summaries 0 s |',
          '|---:|---:|---:|',
          ...WORKER_COUNTS.map(
            (workers) =>
              `| ${workers} | ${jobs.find((j) => j.workers === workers && j.summaryMs === SUMMARY_MS)?.jobsPerSecond} | ${jobs.find((j) => j.workers === workers && j.summaryMs === 0)?.jobsPerSecond} |`,
          ),
        ]),
  ].join('\n'),
);
