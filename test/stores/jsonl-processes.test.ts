/**
 * ST-5 for the JSONL store across real processes: concurrent appends, concurrent compactions,
 * and writers killed with SIGKILL at random moments (the shared checks in process-helpers.ts),
 * plus what only files show: torn tails, abandoned lock files, summary.json brought up to date.
 * The writers are `node test/stores/store-child.ts` processes.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonlStore } from '../../src/stores/jsonl/jsonl-store.ts';
import { SESSIONS_FOLDER, sessionFolderName } from '../../src/stores/jsonl/session-folder.ts';
import {
  childReports,
  expectWellFormed,
  runAppendRace,
  runCompactionRace,
  runCrashLoop,
  startStoreChild,
} from './process-helpers.ts';
import type { StoreSpec } from './store-spec.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatfold-jsonl-processes-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const spec = (fsync: 'always' | 'never' = 'always'): StoreSpec => ({ kind: 'jsonl', dir, fsync });

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

describe('jsonlStore across processes (ST-5)', () => {
  it('two processes appending 200 messages each to one session store 400 rows, seq 1..400', async () => {
    // Random pauses between appends (as between turns) so the two writers really interleave
    // even when one process starts a little earlier on a loaded machine.
    await runAppendRace(spec(), { pauseMs: 2, minSwitches: 1 });
  });

  it('two concurrent compactions with the same expected snapshot: exactly one is written', async () => {
    await runCompactionRace(spec(), { rounds: 12, seeded: false, startDelayMs: 600, spacingMs: 25 });
  });

  it('writers killed with SIGKILL at random moments lose no acknowledged message or snapshot and leave no half row', async () => {
    const sessionId = 'crash ../ "session" 🧪';
    const folder = join(dir, SESSIONS_FOLDER, sessionFolderName(sessionId));
    const messagesFile = join(folder, 'messages.jsonl');
    let tornTails = 0;
    let locksLeft = 0;
    const iterations = 30;
    const stats = await runCrashLoop({
      spec: spec(),
      sessionId,
      iterations,
      killWithinMs: 40,
      writerSpec: (_, k) => spec(k === 0 ? 'never' : 'always'),
      afterKill: () => {
        const raw = existsSync(messagesFile) ? readFileSync(messagesFile) : Buffer.alloc(0);
        if (raw.length > 0 && raw[raw.length - 1] !== 0x0a) tornTails++;
        if (existsSync(join(folder, 'lock'))) locksLeft++;
      },
      afterRecovery: (snapshots) => {
        // The reader's append broke an abandoned lock at once and cut a torn tail…
        expect(readFileSync(messagesFile).at(-1)).toBe(0x0a);
        // …and brought summary.json up to the latest summary if a writer died before replacing it.
        const latest = snapshots.at(-1);
        if (latest !== undefined) {
          expect(JSON.parse(readFileSync(join(folder, 'summary.json'), 'utf8'))).toEqual(latest);
        }
      },
    });
    expect(stats.kills).toBe(60);
    console.info(
      `crash test: ${iterations} iterations, ${stats.kills} SIGKILLs, ${stats.acknowledgedBatches} acknowledged batches, ${stats.rows} rows, ${stats.acknowledgedSnapshots} acknowledged snapshots, ${tornTails} torn tails, ${locksLeft} abandoned locks, ${stats.ms} ms (speed: bench/store-crash-recovery.ts)`,
    );
  }, 600_000);

  it('a kill in the middle of a large write leaves a torn tail that readers skip and the next writer cuts', async () => {
    const sessionId = 'torn';
    const messagesFile = join(dir, SESSIONS_FOLDER, sessionFolderName(sessionId), 'messages.jsonl');
    const reader = jsonlStore(dir, { fsync: 'never' });
    const acked = new Set<string>();
    let torn = 0;
    let attempts = 0;
    while (torn < 3 && attempts < 25) {
      attempts++;
      const prefix = `t${attempts}`;
      const child = startStoreChild({ type: 'loop', store: spec('never'), sessionId, prefix, huge: true });
      await child.ready;
      child.go();
      // Watch the file and kill the writer the moment it is caught mid-write (a 16 MB write
      // grows the file page by page), or once it acknowledged a batch (the write finished
      // between two looks) — never after a fixed time, which a loaded machine may not meet.
      const base = existsSync(messagesFile) ? statSync(messagesFile).size : 0;
      const hasAcked = () => child.lines.some((line) => line.startsWith('ack '));
      while (!isMidWrite(messagesFile, base) && !hasAcked()) {
        await new Promise((resolve) => setImmediate(resolve)); // let the child's output in
      }
      child.process.kill('SIGKILL');
      await child.exited;
      for (const key of childReports(child, prefix).batches.keys()) acked.add(key);
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
