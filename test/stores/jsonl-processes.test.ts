/**
 * ST-5 across real processes: concurrent appends, concurrent compactions, and writers killed
 * with SIGKILL at random moments. The writers are `node test/stores/jsonl-child.ts` processes.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonlStore } from '../../src/stores/jsonl/jsonl-store.ts';
import { SESSIONS_FOLDER, sessionFolderName } from '../../src/stores/jsonl/session-folder.ts';
import type { StoredMessage } from '../../src/stores/types.ts';
import type { ChildJob } from './jsonl-child.ts';
import { type Child, sleep, startChild as startChildProcess } from './process-helpers.ts';

const CHILD = fileURLToPath(new URL('./jsonl-child.ts', import.meta.url));

const startChild = (job: ChildJob): Child => startChildProcess(CHILD, job);

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatfold-jsonl-processes-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** True when the file grew past `base` and does not end in a newline: a write is under way. */
function isMidWrite(path: string, base: number): boolean {
  if (!existsSync(path)) return false;
  const size = statSync(path).size;
  if (size <= base) return false;
  const fd = openSync(path, 'r');
  try {
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    closeSync(fd);
  }
}

/** Seqs run 1..n, ids are unique, and every row is whole. */
function expectWellFormed(rows: readonly StoredMessage[]): void {
  expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
  expect(new Set(rows.map((r) => r.message.id)).size).toBe(rows.length);
}

describe('jsonlStore across processes (ST-5)', () => {
  it('two processes appending 200 messages each to one session store 400 rows, seq 1..400', async () => {
    const sessionId = 'two writers';
    const children = ['a', 'b'].map((prefix) =>
      startChild({ type: 'append', dir, sessionId, prefix, count: 200 }),
    );
    await Promise.all(children.map((child) => child.ready));
    for (const child of children) child.go();
    const exits = await Promise.all(children.map((child) => child.exited));
    for (const exit of exits) expect(exit).toMatchObject({ code: 0, stderr: '' });
    const store = jsonlStore(dir);
    const rows = await store.messages(sessionId);
    expectWellFormed(rows);
    expect(rows.length).toBe(400);
    for (const prefix of ['a', 'b']) {
      // Each writer's own messages stay in its order.
      const own = rows.filter((r) => r.message.id.startsWith(`${prefix}-`)).map((r) => r.message.id);
      expect(own).toEqual(Array.from({ length: 200 }, (_, i) => `${prefix}-${i}`));
    }
    // The writers really interleaved (otherwise this test proves nothing about the lock).
    const switches = rows.filter((r, i) => i > 0 && r.message.id[0] !== rows[i - 1]?.message.id[0]).length;
    expect(switches).toBeGreaterThan(1);
    await store.close();
  });

  it('two concurrent compactions with the same expected snapshot: exactly one is written', async () => {
    const rounds = 12;
    const startAt = Date.now() + 600;
    const children = ['x', 'y'].map((writer) =>
      startChild({ type: 'compact', dir, sessionPrefix: 'compact-', rounds, startAt, spacingMs: 25, writer }),
    );
    const exits = await Promise.all(children.map((child) => child.exited));
    for (const exit of exits) expect(exit).toMatchObject({ code: 0, stderr: '' });
    const results = children.map((child) =>
      child.lines
        .filter((line) => line.startsWith('snapshot '))
        .map((line) => JSON.parse(line.slice('snapshot '.length)) as { round: number; written: boolean }),
    );
    const store = jsonlStore(dir);
    for (let round = 0; round < rounds; round++) {
      const written = results.map((list) => list.find((r) => r.round === round)?.written);
      expect(written.filter((w) => w === true).length).toBe(1);
      expect(written.filter((w) => w === false).length).toBe(1);
      const snapshots = await store.snapshots(`compact-${round}`);
      expect(snapshots.length).toBe(1);
      // The loser was told about the winner's snapshot.
      const loser = results.flat().find((r) => r.round === round && !r.written) as {
        latest?: { id: string };
      };
      expect(loser.latest?.id).toBe(snapshots[0]?.id);
    }
    await store.close();
  });

  it('writers killed with SIGKILL at random moments lose no acknowledged message or snapshot and leave no half row', async () => {
    const sessionId = 'crash ../ "session" 🧪';
    const folder = join(dir, SESSIONS_FOLDER, sessionFolderName(sessionId));
    const messagesFile = join(folder, 'messages.jsonl');
    const lockFile = join(folder, 'lock');
    const acked = new Map<string, number>();
    const ackedSnapshots = new Set<string>();
    const iterations = 50;
    let tornTails = 0;
    let locksLeft = 0;
    let slowestRecoveryMs = 0;
    const reader = jsonlStore(dir); // one long-lived reader: its incremental index must keep up
    const started = Date.now();
    const startPair = (iteration: number) =>
      [0, 1].map((k) =>
        startChild({
          type: 'loop',
          dir,
          sessionId,
          prefix: `i${iteration}c${k}`,
          fsync: k === 0 ? 'never' : 'always',
        }),
      );
    let next = startPair(0);
    for (let iteration = 0; iteration < iterations; iteration++) {
      const children = next;
      await Promise.all(children.map((child) => child.ready));
      // The next pair starts up while this one runs and is checked.
      if (iteration + 1 < iterations) next = startPair(iteration + 1);
      for (const child of children) child.go();
      for (const child of children) {
        await sleep(5 + Math.random() * 40);
        child.process.kill('SIGKILL');
      }
      await Promise.all(children.map((child) => child.exited));
      children.forEach((child, k) => {
        for (const line of child.lines) {
          const [word, batch, size] = line.split(' ');
          if (word === 'ack') acked.set(`i${iteration}c${k}-${batch}`, Number(size));
          if (word === 'snap' && batch !== undefined) ackedSnapshots.add(batch);
        }
      });
      const raw = existsSync(messagesFile) ? readFileSync(messagesFile) : Buffer.alloc(0);
      if (raw.length > 0 && raw[raw.length - 1] !== 0x0a) tornTails++;
      if (existsSync(lockFile)) locksLeft++;

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
      expect(new Set(snapshots.map((snapshot) => snapshot.id)).size).toBe(snapshots.length);
      for (const id of ackedSnapshots) expect(snapshots.some((snapshot) => snapshot.id === id)).toBe(true);
      for (const snapshot of snapshots) {
        expect(rows[snapshot.cutoffSeq - 1]?.message.id).toBe(snapshot.messageCutoffId);
        expect((snapshot.content as { summaryText: string }).summaryText).toMatch(/ s{20000}$/);
      }

      // The next writer breaks an abandoned lock at once and cuts a torn tail.
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
      expect(readFileSync(messagesFile).at(-1)).toBe(0x0a);
      // …and brings summary.json up to the latest summary if a writer died before replacing it.
      const latest = snapshots.at(-1);
      if (latest !== undefined) {
        expect(JSON.parse(readFileSync(join(folder, 'summary.json'), 'utf8'))).toEqual(latest);
      }
    }
    // A fresh store reading everything from disk agrees with the long-lived one.
    const fresh = jsonlStore(dir);
    const all = await fresh.messages(sessionId);
    expectWellFormed(all);
    expect(all).toEqual(await reader.messages(sessionId));
    expect(await fresh.snapshots(sessionId)).toEqual(await reader.snapshots(sessionId));
    expect(acked.size).toBeGreaterThan(iterations);
    expect(ackedSnapshots.size).toBeGreaterThan(0);
    expect(slowestRecoveryMs).toBeLessThan(1000);
    await Promise.all([reader.close(), fresh.close()]);
    console.info(
      `crash test: ${iterations} iterations, ${2 * iterations} SIGKILLs, ${acked.size} acknowledged batches, ${all.length} rows, ${ackedSnapshots.size} acknowledged snapshots, ${tornTails} torn tails, ${locksLeft} abandoned locks, slowest recovery ${slowestRecoveryMs} ms, ${Date.now() - started} ms`,
    );
  }, 60_000);

  it('a kill in the middle of a large write leaves a torn tail that readers skip and the next writer cuts', async () => {
    const sessionId = 'torn';
    const messagesFile = join(dir, SESSIONS_FOLDER, sessionFolderName(sessionId), 'messages.jsonl');
    const reader = jsonlStore(dir, { fsync: 'never' });
    const acked = new Set<string>();
    let torn = 0;
    let attempts = 0;
    while (torn < 3 && attempts < 25) {
      attempts++;
      const child = startChild({
        type: 'loop',
        dir,
        sessionId,
        prefix: `t${attempts}`,
        fsync: 'never',
        huge: true,
      });
      await child.ready;
      child.go();
      // Watch the file and kill the writer the moment it is caught mid-write (a 16 MB write
      // grows the file page by page), or after 3 s.
      const base = existsSync(messagesFile) ? statSync(messagesFile).size : 0;
      const until = Date.now() + 3000;
      while (Date.now() < until && !isMidWrite(messagesFile, base)) {
        await new Promise((resolve) => setImmediate(resolve)); // let the child's output in
      }
      child.process.kill('SIGKILL');
      await child.exited;
      for (const line of child.lines) {
        const [word, batch] = line.split(' ');
        if (word === 'ack') acked.add(`t${attempts}-${batch}`);
      }
      const raw = readFileSync(messagesFile);
      if (raw.at(-1) !== 0x0a) torn++;
      const rows = await reader.messages(sessionId);
      expectWellFormed(rows);
      const batches = new Map<string, number>();
      for (const row of rows) {
        if (row.message.id.startsWith('after-')) continue; // this test's own marker rows
        const key = row.message.id.slice(0, row.message.id.lastIndexOf('-'));
        batches.set(key, (batches.get(key) ?? 0) + 1);
        expect((row.message.parts[0] as { text: string }).text.length).toBe(4_000_002);
      }
      for (const key of acked) expect(batches.get(key)).toBe(4);
      for (const count of batches.values()) expect(count).toBe(4);
      const after = await reader.append(sessionId, [
        {
          message: {
            id: `after-${attempts}`,
            role: 'user',
            createdAt: '',
            parts: [{ type: 'text', text: 'ok' }],
          },
        },
      ]);
      expect(after[0]?.seq).toBe(rows.length + 1);
      expect(readFileSync(messagesFile).at(-1)).toBe(0x0a);
    }
    expect(torn).toBeGreaterThan(0);
    const fresh = jsonlStore(dir);
    expect((await fresh.messages(sessionId)).length).toBe((await reader.messages(sessionId)).length);
    await Promise.all([reader.close(), fresh.close()]);
    console.info(
      `torn-write test: ${attempts} kills during 16 MB writes, ${torn} torn tails skipped and cut`,
    );
  }, 60_000);
});
