/**
 * ST-4 and ST-5 for the SQL stores across real processes: concurrent appends, concurrent
 * compactions, and writers killed with SIGKILL at random moments. The writers are
 * `node test/stores/sql-child.ts` processes; SQLite always, Postgres when DATABASE_URL is set.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresStore } from '../../src/stores/postgres/postgres-store.ts';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.ts';
import type { Store, StoredMessage } from '../../src/stores/types.ts';
import { type Child, sleep, startChild } from './process-helpers.ts';
import type { SqlChildJob, StoreSpec } from './sql-child.ts';

const CHILD = fileURLToPath(new URL('./sql-child.ts', import.meta.url));
const DATABASE_URL = process.env.DATABASE_URL;
const runId = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;

const start = (job: SqlChildJob): Child => startChild(CHILD, job);

function openStore(spec: StoreSpec): Store {
  return spec.kind === 'sqlite'
    ? sqliteStore(spec.path)
    : postgresStore({ connectionString: spec.connectionString, max: 2 }, { schema: spec.schema });
}

/** Seqs run 1..n and ids are unique. */
function expectWellFormed(rows: readonly StoredMessage[]): void {
  expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
  expect(new Set(rows.map((r) => r.message.id)).size).toBe(rows.length);
}

interface Backend {
  readonly name: 'sqlite' | 'postgres';
  readonly enabled: boolean;
  /** A fresh database (file or schema) for one test. */
  spec(test: string): StoreSpec;
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
  return {
    name: 'postgres',
    enabled: DATABASE_URL !== undefined,
    spec: (test) => {
      const schema = `chatfold_test_${runId}_${test.replaceAll('-', '_')}`;
      schemas.push(schema);
      return { kind: 'postgres', connectionString: DATABASE_URL as string, schema };
    },
    setup: async () => undefined,
    teardown: async () => {
      const admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
      for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    },
    check: async () => undefined,
  };
}

for (const backend of [sqliteBackend(), postgresBackend()]) {
  describe.runIf(backend.enabled)(`${backend.name} store across processes (ST-4, ST-5)`, () => {
    beforeAll(() => backend.setup());
    afterAll(() => backend.teardown());

    it('two processes appending 200 messages each to one session store 400 rows, seq 1..400', async () => {
      const spec = backend.spec('two-writers');
      const sessionId = 'two writers';
      const children = ['a', 'b'].map((prefix) =>
        start({ type: 'append', store: spec, sessionId, prefix, count: 200 }),
      );
      await Promise.all(children.map((child) => child.ready));
      for (const child of children) child.go();
      const exits = await Promise.all(children.map((child) => child.exited));
      for (const exit of exits) expect(exit).toMatchObject({ code: 0 });
      const store = openStore(spec);
      const rows = await store.messages(sessionId);
      expectWellFormed(rows);
      expect(rows.length).toBe(400);
      for (const prefix of ['a', 'b']) {
        const own = rows.filter((r) => r.message.id.startsWith(`${prefix}-`)).map((r) => r.message.id);
        expect(own).toEqual(Array.from({ length: 200 }, (_, i) => `${prefix}-${i}`));
      }
      // Both really ran at once: their rows interleave.
      const switches = rows.filter((r, i) => i > 0 && r.message.id[0] !== rows[i - 1]?.message.id[0]).length;
      expect(switches).toBeGreaterThan(10);
      expect((await store.getSession(sessionId))?.messageCount).toBe(400);
      await store.close();
    }, 30_000);

    it('two processes compacting at the same moment with the same expected latest: exactly one writes', async () => {
      const spec = backend.spec('compact');
      const rounds = 16;
      const setupStore = openStore(spec);
      // Even rounds already have a summary (expected: its id); odd rounds have none (expected: null).
      const expected: (string | null)[] = [];
      for (let round = 0; round < rounds; round++) {
        await setupStore.append(`compact-${round}`, [
          {
            message: {
              id: 'm0',
              role: 'user',
              createdAt: '2026-01-01T00:00:00.000Z',
              parts: [{ type: 'text', text: 'x' }],
            },
          },
        ]);
        if (round % 2 === 1) {
          expected.push(null);
          continue;
        }
        const base = await setupStore.writeSnapshot(
          `compact-${round}`,
          { kind: 'summary', content: 'base', messageCutoffId: 'm0', cutoffSeq: 1, tokenCount: 1 },
          { expectedLatestId: null },
        );
        expected.push(base.written ? base.snapshot.id : 'unexpected');
      }
      const children = ['a', 'b'].map((writer) =>
        start({
          type: 'compact',
          store: spec,
          sessionPrefix: 'compact-',
          expected,
          startAt: Date.now() + 1500,
          spacingMs: 40,
          writer,
        }),
      );
      const exits = await Promise.all(children.map((child) => child.exited));
      for (const exit of exits) expect(exit).toMatchObject({ code: 0 });
      const results = children.map((child) =>
        child.lines
          .filter((line) => line.startsWith('snapshot '))
          .map(
            (line) =>
              JSON.parse(line.slice('snapshot '.length)) as {
                round: number;
                written: boolean;
                snapshot?: { id: string };
                latest?: { id: string };
              },
          ),
      );
      for (let round = 0; round < rounds; round++) {
        const both = results.map((list) => list.find((r) => r.round === round));
        expect(both.filter((r) => r?.written === true).length).toBe(1);
        const winner = both.find((r) => r?.written);
        const loser = both.find((r) => r?.written === false);
        // The loser was told about the winner's snapshot and wrote nothing.
        expect(loser?.latest?.id).toBe(winner?.snapshot?.id);
        const snapshots = await setupStore.snapshots(`compact-${round}`);
        expect(snapshots.length).toBe(round % 2 === 0 ? 2 : 1);
        expect(snapshots.at(-1)?.id).toBe(winner?.snapshot?.id);
      }
      await setupStore.close();
    }, 30_000);

    it('writers killed with SIGKILL at random moments lose no acknowledged row or snapshot and leave nothing half-written', async () => {
      const spec = backend.spec('crash');
      const sessionId = 'crash ../ "session" 🧪';
      const acked = new Map<string, number>();
      const ackedSnapshots = new Set<string>();
      const iterations = 50;
      let slowestRecoveryMs = 0;
      const reader = openStore(spec);
      await reader.listSessions({ limit: 1 });
      const started = Date.now();
      const startPair = (iteration: number) =>
        [0, 1].map((k) => start({ type: 'loop', store: spec, sessionId, prefix: `i${iteration}c${k}` }));
      let next = startPair(0);
      for (let iteration = 0; iteration < iterations; iteration++) {
        const children = next;
        await Promise.all(children.map((child) => child.ready));
        // The next pair starts up while this one runs and is checked.
        if (iteration + 1 < iterations) next = startPair(iteration + 1);
        for (const child of children) child.go();
        for (const child of children) {
          await sleep(5 + Math.random() * 60);
          child.process.kill('SIGKILL');
        }
        await Promise.all(children.map((child) => child.exited));
        children.forEach((child, k) => {
          for (const line of child.lines) {
            const [word, value, size] = line.split(' ');
            if (word === 'ack') acked.set(`i${iteration}c${k}-${value}`, Number(size));
            if (word === 'snap' && value !== undefined) ackedSnapshots.add(value);
          }
        });

        const rows = await reader.messages(sessionId);
        expectWellFormed(rows);
        const batches = new Map<string, number>();
        for (const row of rows) {
          const id = row.message.id;
          if (id.startsWith('parent-')) continue;
          const key = id.slice(0, id.lastIndexOf('-'));
          batches.set(key, (batches.get(key) ?? 0) + 1);
        }
        // Every acknowledged batch is there, and every batch there is whole (all or none).
        for (const [key, size] of acked) expect(batches.get(key), `acknowledged batch ${key}`).toBe(size);
        for (const [key, count] of batches) expect(count).toBe(1 + (Number(key.split('-')[1]) % 4));
        // Every acknowledged snapshot is there once, whole, pointing at a stored row.
        const snapshots = await reader.snapshots(sessionId);
        expect(new Set(snapshots.map((s) => s.id)).size).toBe(snapshots.length);
        for (const id of ackedSnapshots)
          expect(
            snapshots.some((s) => s.id === id),
            `snapshot ${id}`,
          ).toBe(true);
        for (const snapshot of snapshots) {
          expect(rows[snapshot.cutoffSeq - 1]?.message.id).toBe(snapshot.messageCutoffId);
          expect((snapshot.content as { summaryText: string }).summaryText).toMatch(/ s{20000}$/);
        }
        // The store takes the next write at once: no lock is left behind.
        const before = Date.now();
        const [row] = await reader.append(sessionId, [
          {
            message: {
              id: `parent-${iteration}`,
              role: 'user',
              createdAt: new Date().toISOString(),
              parts: [{ type: 'text', text: 'after the crash' }],
            },
          },
        ]);
        slowestRecoveryMs = Math.max(slowestRecoveryMs, Date.now() - before);
        expect(row?.seq).toBe(rows.length + 1);
      }
      await reader.close();
      // A freshly opened store agrees, and the database is sound.
      const fresh = openStore(spec);
      const all = await fresh.messages(sessionId);
      expectWellFormed(all);
      const latest = await fresh.context(sessionId);
      expect(latest.messageCount).toBe(all.length);
      await fresh.close();
      await backend.check(spec);
      expect(acked.size).toBeGreaterThan(iterations);
      expect(ackedSnapshots.size).toBeGreaterThan(0);
      expect(slowestRecoveryMs).toBeLessThan(1000);
      console.info(
        `${backend.name} crash test: ${iterations} iterations, ${2 * iterations} SIGKILLs, ${acked.size} acknowledged batches, ${all.length} rows, ${ackedSnapshots.size} acknowledged snapshots, slowest recovery ${slowestRecoveryMs} ms, ${Date.now() - started} ms`,
      );
    }, 60_000);
  });
}
