/**
 * ST-4 and ST-5 for the SQL stores across real processes: concurrent appends, concurrent
 * compactions, and writers killed with SIGKILL at random moments (the shared checks in
 * process-helpers.ts), plus SQLite's integrity check. The writers are
 * `node test/stores/store-child.ts` processes; SQLite always, Postgres when DATABASE_URL is set.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAppendRace, runCompactionRace, runCrashLoop } from './process-helpers.ts';
import type { StoreSpec } from './store-spec.ts';

const DATABASE_URL = process.env.DATABASE_URL;
const runId = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;

interface Backend {
  readonly name: 'sqlite' | 'postgres';
  readonly enabled: boolean;
  /** A fresh database (file or schema) for one test. */
  spec(test: string): StoreSpec;
  /** The spec a crash-test writer opens. */
  writerSpec(spec: StoreSpec, prefix: string): StoreSpec;
  /** After killed writers exited: waits until nothing they started can still write. */
  settle(prefixes: readonly string[]): Promise<void>;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  /** Extra integrity check after the crash loop. */
  check(spec: StoreSpec): Promise<void>;
}

function sqliteBackend(): Backend {
  let dir = '';
  return {
    name: 'sqlite',
    enabled: true,
    spec: (test) => ({ kind: 'sqlite', path: join(dir, `${test}.db`) }),
    writerSpec: (spec) => spec,
    settle: async () => undefined,
    setup: async () => {
      dir = await mkdtemp(join(tmpdir(), 'chatfold-sql-processes-'));
    },
    teardown: async () => {
      await rm(dir, { recursive: true, force: true });
    },
    check: async (spec) => {
      const db = new DatabaseSync((spec as { path: string }).path);
      expect(db.prepare('PRAGMA integrity_check').get()?.integrity_check).toBe('ok');
      db.close();
    },
  };
}

function postgresBackend(): Backend {
  const schemas: string[] = [];
  let admin: pg.Client | undefined;
  // Each crash-test writer names its connection, so the test can see the server is done with it.
  const applicationName = (prefix: string) => `chatfold_${runId}_${prefix}`;
  return {
    name: 'postgres',
    enabled: DATABASE_URL !== undefined,
    spec: (test) => {
      const schema = `chatfold_test_${runId}_${test.replaceAll('-', '_')}`;
      schemas.push(schema);
      return { kind: 'postgres', connectionString: DATABASE_URL as string, schema };
    },
    writerSpec: (spec, prefix) => {
      if (spec.kind !== 'postgres') return spec;
      const url = new URL(spec.connectionString);
      url.searchParams.set('application_name', applicationName(prefix));
      return { ...spec, connectionString: url.href };
    },
    // A writer killed right after sending COMMIT leaves a server backend that may still commit
    // its batch (never acknowledged, so allowed) after the test has read the rows; the reader's
    // append would then get a later seq than the rows it read. Wait until those backends are gone.
    settle: async (prefixes) => {
      const names = prefixes.map(applicationName);
      await expect
        .poll(
          async () =>
            (
              await admin?.query(
                'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ANY($1)',
                [names],
              )
            )?.rows[0]?.n,
          { timeout: 5000, interval: 5 },
        )
        .toBe(0);
    },
    setup: async () => {
      admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
    },
    teardown: async () => {
      for (const schema of schemas) await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin?.end();
    },
    check: async () => undefined,
  };
}

for (const backend of [sqliteBackend(), postgresBackend()]) {
  describe.runIf(backend.enabled)(`${backend.name} store across processes (ST-4, ST-5)`, () => {
    beforeAll(() => backend.setup());
    afterAll(() => backend.teardown());

    it('two processes appending 200 messages each to one session store 400 rows, seq 1..400', async () => {
      await runAppendRace(backend.spec('two-writers'), { pauseMs: 2, minSwitches: 10 });
    }, 30_000);

    it('two processes compacting at the same moment with the same expected latest: exactly one writes', async () => {
      await runCompactionRace(backend.spec('compact'), {
        rounds: 16,
        seeded: true,
        startDelayMs: 1500,
        spacingMs: 40,
      });
    }, 30_000);

    it('writers killed with SIGKILL at random moments lose no acknowledged row or snapshot and leave nothing half-written', async () => {
      const spec = backend.spec('crash');
      const iterations = 30;
      const stats = await runCrashLoop({
        spec,
        sessionId: 'crash ../ "session" 🧪',
        iterations,
        killWithinMs: 60,
        writerSpec: (prefix) => backend.writerSpec(spec, prefix),
        afterKill: (prefixes) => backend.settle(prefixes),
      });
      await backend.check(spec);
      expect(stats.kills).toBe(60);
      console.info(
        `${backend.name} crash test: ${iterations} iterations, ${stats.kills} SIGKILLs, ${stats.acknowledgedBatches} acknowledged batches, ${stats.rows} rows, ${stats.acknowledgedSnapshots} acknowledged snapshots, ${stats.ms} ms (speed: bench/store-crash-recovery.ts)`,
      );
    }, 600_000);
  });
}
