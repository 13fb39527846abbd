/**
 * The turn lease across real processes (issue 24 §5), for JSONL, SQLite and — when
 * DATABASE_URL is set — PostgreSQL: a live holder in another process refuses the session with
 * `E_BUSY` naming it; a holder killed with SIGKILL leaves a lease that is free at once, without
 * waiting for it to expire; of several processes taking over one dead holder exactly one wins.
 * The holders are `node test/stores/lease-child.ts` processes. The test's own store runs on a
 * frozen clock, so the children's hour-long leases never expire in its eyes: only the check of
 * the holder's process can free them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatfoldError } from '../../src/errors/chatfold-error.ts';
import { jsonlStore } from '../../src/stores/jsonl/jsonl-store.ts';
import { postgresStore } from '../../src/stores/postgres/postgres-store.ts';
import { acquireTurnLease, parseLeaseHolder } from '../../src/stores/shared/turn-lease.ts';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.ts';
import type { FullStore } from '../../src/stores/types.ts';
import type { LeaseJob } from './lease-child.ts';
import { type Child, startChild } from './process-helpers.ts';
import type { StoreSpec } from './store-spec.ts';

const DATABASE_URL = process.env.DATABASE_URL;
const runId = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const LEASE_CHILD = fileURLToPath(new URL('./lease-child.ts', import.meta.url));
const HOUR_MS = 3_600_000;

interface Backend {
  readonly name: string;
  readonly enabled: boolean;
  spec(test: string): StoreSpec;
  setup(): Promise<void>;
  teardown(): Promise<void>;
}

/** The store a spec names, on the given clock. */
function openAt(spec: StoreSpec, now: () => Date): FullStore {
  switch (spec.kind) {
    case 'jsonl':
      return jsonlStore(spec.dir, { fsync: spec.fsync, now });
    case 'sqlite':
      return sqliteStore({ path: spec.path, now });
    case 'postgres':
      return postgresStore({ connectionString: spec.connectionString, max: 2, schema: spec.schema, now });
  }
}

function fileBackend(name: 'jsonl' | 'sqlite'): Backend {
  let dir = '';
  return {
    name,
    enabled: true,
    spec: (test) =>
      name === 'jsonl'
        ? { kind: 'jsonl', dir: join(dir, test), fsync: 'never' }
        : { kind: 'sqlite', path: join(dir, `${test}.db`) },
    setup: async () => {
      dir = await mkdtemp(join(tmpdir(), `chatfold-lease-${name}-`));
    },
    teardown: () => rm(dir, { recursive: true, force: true }),
  };
}

function postgresBackend(): Backend {
  const schemas: string[] = [];
  return {
    name: 'postgres',
    enabled: DATABASE_URL !== undefined,
    spec: (test) => {
      const schema = `chatfold_lease_${runId}_${test}`;
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
  };
}

/** Starts a lease child, waits until its store is open, lets it take the lease, returns its report. */
async function takeInChild(job: LeaseJob): Promise<{ child: Child; report: Promise<string> }> {
  const child = startChild(LEASE_CHILD, job);
  await child.ready;
  const report = (async () => {
    await expect
      .poll(() => child.lines.find((line) => /^(held|busy) /.test(line)), { timeout: 30_000, interval: 5 })
      .toBeDefined();
    return child.lines.find((line) => /^(held|busy) /.test(line)) as string;
  })();
  return { child, report };
}

for (const backend of [fileBackend('jsonl'), fileBackend('sqlite'), postgresBackend()]) {
  describe.runIf(backend.enabled)(`${backend.name}: the turn lease across processes (issue 24 §5)`, () => {
    beforeAll(() => backend.setup());
    afterAll(() => backend.teardown());

    it('a live holder refuses the session with E_BUSY naming its process; SIGKILLed, its lease is free at once', async () => {
      const spec = backend.spec('kill');
      const frozen = new Date();
      const store = openAt(spec, () => frozen);
      const sessionId = 'one session';
      try {
        const { child, report } = await takeInChild({
          store: spec,
          sessionId,
          label: 'chatfold chat',
          ttlMs: HOUR_MS,
        });
        child.go();
        const line = await report;
        expect(line).toMatch(/^held /);
        const holder = line.slice('held '.length);
        expect(parseLeaseHolder(holder)).toMatchObject({ pid: child.process.pid, label: 'chatfold chat' });

        const refused = await acquireTurnLease(store, sessionId, { label: 'test' }).catch(
          (error: unknown) => error,
        );
        expect(ChatfoldError.hasCode(refused, 'E_BUSY')).toBe(true);
        const busy = refused as ChatfoldError<'E_BUSY'>;
        expect(busy.details).toMatchObject({ sessionId, holder });
        expect(busy.message).toMatch(
          new RegExp(
            `: chatfold chat \\(pid ${child.process.pid} on this machine, turn started \\d+ s ago\\); wait for its turn to finish`,
          ),
        );

        child.process.kill('SIGKILL');
        expect((await child.exited).signal).toBe('SIGKILL');
        // Still stored, unexpired for an hour: taken over because its process is gone.
        expect((await store.currentLease(sessionId))?.holder).toBe(holder);
        const lease = await acquireTurnLease(store, sessionId, { label: 'test' });
        expect((await store.currentLease(sessionId))?.holder).toBe(lease.holder);
        await lease.release();
        expect(await store.currentLease(sessionId)).toBeUndefined();
      } finally {
        await store.close();
      }
    }, 60_000);

    it('of four processes taking over one dead holder at once, exactly one gets the lease; the others are told which', async () => {
      const spec = backend.spec('race');
      const frozen = new Date();
      const store = openAt(spec, () => frozen);
      const sessionId = 'raced';
      const children: Child[] = [];
      try {
        const dead = await takeInChild({ store: spec, sessionId, label: 'dead', ttlMs: HOUR_MS });
        dead.child.go();
        expect(await dead.report).toMatch(/^held /);
        dead.child.process.kill('SIGKILL');
        await dead.child.exited;

        const racers = await Promise.all(
          Array.from({ length: 4 }, (_, i) =>
            takeInChild({ store: spec, sessionId, label: `racer ${i}`, ttlMs: HOUR_MS }),
          ),
        );
        children.push(...racers.map((racer) => racer.child));
        for (const racer of racers) racer.child.go();
        const reports = await Promise.all(racers.map((racer) => racer.report));
        const held = reports.filter((line) => line.startsWith('held '));
        expect(held).toHaveLength(1);
        const winner = (held[0] as string).slice('held '.length);
        for (const line of reports.filter((report) => report.startsWith('busy '))) {
          expect(JSON.parse(line.slice('busy '.length))).toMatchObject({ sessionId, holder: winner });
        }
        expect((await store.currentLease(sessionId))?.holder).toBe(winner);

        // SIGTERM: the winner gives its lease back before it exits.
        const winning = racers[reports.indexOf(held[0] as string)] as { child: Child };
        winning.child.process.kill('SIGTERM');
        expect(await winning.child.exited).toMatchObject({ code: 0, stderr: '' });
        expect(await store.currentLease(sessionId)).toBeUndefined();
      } finally {
        for (const child of children) child.process.kill('SIGKILL');
        await Promise.all(children.map((child) => child.exited));
        await store.close();
      }
    }, 90_000);
  });
}
