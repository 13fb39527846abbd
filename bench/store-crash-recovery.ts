/**
 * How fast the persistent stores write and recover across processes killed with SIGKILL (ST-5):
 * the speed side of the crash tests in test/stores/*-processes.test.ts, which check correctness
 * only (issue 9 §4: tests assert behaviour, never speed). Runs the same crash loop — pairs of
 * `test/stores/store-child.ts` writers killed at random moments of their work — and reports the
 * writers' acknowledged batches per second and the reader's recovery time after each kill
 * (its first append: breaking an abandoned lock, cutting a torn tail), against the 1 s target
 * the tests used to assert.
 *
 *   node bench/store-crash-recovery.ts [iterations]     (default 30; writes bench/results/store-crash-recovery.json)
 *
 * PostgreSQL runs too when DATABASE_URL is set.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCrashLoop } from '../test/stores/process-helpers.ts';
import type { StoreSpec } from '../test/stores/store-spec.ts';
import { machine } from './harness.ts';

/** The recovery time the crash tests asserted before it moved here (ST-5: "recovers at once"). */
const RECOVERY_TARGET_MS = 1000;

const iterations = Number(process.argv[2] ?? 30);
const dir = mkdtempSync(join(tmpdir(), 'chatfold-bench-crash-'));
const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

const specs: Record<string, StoreSpec> = {
  'jsonl (fsync always)': { kind: 'jsonl', dir: join(dir, 'jsonl'), fsync: 'always' },
  sqlite: { kind: 'sqlite', path: join(dir, 'crash.db') },
  ...(process.env.DATABASE_URL === undefined
    ? {}
    : {
        postgres: {
          kind: 'postgres',
          connectionString: process.env.DATABASE_URL,
          schema: `chatfold_bench_${process.pid}`,
        } satisfies StoreSpec,
      }),
};

const results: Record<string, unknown> = { machine: machine(), iterations, kills: 2 * iterations };
try {
  for (const [name, spec] of Object.entries(specs)) {
    const stats = await runCrashLoop({
      spec,
      sessionId: 'crash bench',
      iterations,
      killWithinMs: 40,
      writerSpec: () => spec,
    });
    const recovery = [...stats.recoveryMs].sort((a, b) => a - b);
    const slowest = recovery.at(-1) ?? 0;
    results[name] = {
      acknowledgedBatches: stats.acknowledgedBatches,
      acknowledgedSnapshots: stats.acknowledgedSnapshots,
      rows: stats.rows,
      batchesPerSecondWriting: Math.round((stats.acknowledgedBatches / stats.writingMs) * 1000),
      recoveryMs: { median: percentile(recovery, 0.5), p95: percentile(recovery, 0.95), max: slowest },
      meetsRecoveryTarget: slowest < RECOVERY_TARGET_MS,
      totalMs: stats.ms,
    };
    if (slowest >= RECOVERY_TARGET_MS)
      console.warn(`${name}: slowest recovery ${slowest} ms, over the ${RECOVERY_TARGET_MS} ms target`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log(JSON.stringify(results, null, 2));
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL('./results/store-crash-recovery.json', import.meta.url),
  `${JSON.stringify(results, null, 2)}\n`,
);
