/**
 * Child processes for the cross-process store tests (ST-4, ST-5), and the checks those tests
 * share across stores. A test starts `node <script> '<json job>'` (Node 24 runs `.ts`
 * directly), the child prints `ready` once its store is open, waits for `go()` on stdin when its
 * job says so, and reports one event per stdout line. Stdout is a pipe, which Node writes
 * synchronously on POSIX, so a line the test has read was printed before any later point where
 * the child could be killed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { FullStore, Snapshot, StoredMessage, WriteSnapshotResult } from '../../src/stores/types.ts';
import type { StoreJob } from './store-child.ts';
import { openStore, type StoreSpec } from './store-spec.ts';

export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

export interface Child {
  readonly process: ChildProcess;
  /** Every complete stdout line so far, `ready` included. */
  readonly lines: string[];
  /** Resolves when the child printed `ready`; rejects with its stderr if it exited first. */
  readonly ready: Promise<void>;
  /** Writes `go` to the child's stdin and closes it. */
  readonly go: () => void;
  readonly exited: Promise<ChildExit>;
}

/**
 * Starts `node <script> <JSON of job>`.
 *
 * @param script - Absolute path of the child's `.ts` file.
 * @param job - What the child should do; passed as one JSON argument.
 * @returns The running child.
 */
export function startChild(script: string, job: unknown): Child {
  const child = spawn(process.execPath, [script, JSON.stringify(job)], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  let markReady: () => void = () => undefined;
  let failReady: (error: Error) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const pieces = (partial + chunk).split('\n');
    partial = pieces.pop() ?? '';
    for (const line of pieces) {
      if (line === 'ready') markReady();
      lines.push(line);
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  // A killed child's stdin may close before `go` is written.
  child.stdin.on('error', () => undefined);
  const exited = new Promise<ChildExit>((resolve) =>
    child.on('close', (code, signal) => {
      failReady(new Error(`${script} exited (${code ?? signal}) before ready: ${stderr}`));
      resolve({ code, signal, stderr });
    }),
  );
  const go = () => child.stdin.end('go\n');
  return { process: child, lines, ready, go, exited };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const STORE_CHILD = fileURLToPath(new URL('./store-child.ts', import.meta.url));

/** Starts a `test/stores/store-child.ts` writer. */
export const startStoreChild = (job: StoreJob): Child => startChild(STORE_CHILD, job);

/** The batches a `loop` child acknowledged (`<prefix>-<batch>` to its size) and the snapshots it wrote. */
export function childReports(
  child: Child,
  prefix: string,
): { batches: Map<string, number>; snapshots: string[] } {
  const batches = new Map<string, number>();
  const snapshots: string[] = [];
  for (const line of child.lines) {
    const [word, value, size] = line.split(' ');
    if (word === 'ack') batches.set(`${prefix}-${value}`, Number(size));
    if (word === 'snap' && value !== undefined) snapshots.push(value);
  }
  return { batches, snapshots };
}

/** Seqs run 1..n, ids are unique, and every row is whole. */
export function expectWellFormed(rows: readonly StoredMessage[]): void {
  expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
  expect(new Set(rows.map((r) => r.message.id)).size).toBe(rows.length);
}

async function expectCleanExits(children: readonly Child[]): Promise<void> {
  const exits = await Promise.all(children.map((child) => child.exited));
  for (const exit of exits) expect(exit).toMatchObject({ code: 0, stderr: '' });
}

/**
 * Two processes append 200 messages each, one call each, to one session: the store holds 400
 * rows, seq 1..400, each writer's rows in its order, and the writers really interleaved.
 *
 * @param spec - The store, for the children and the check.
 * @param options - `pauseMs`: the children's pause between appends; `minSwitches`: how often at
 *   least the rows must change writer.
 */
export async function runAppendRace(
  spec: StoreSpec,
  { pauseMs, minSwitches }: { readonly pauseMs?: number; readonly minSwitches: number },
): Promise<void> {
  const sessionId = 'two writers';
  const children = ['a', 'b'].map((prefix) =>
    startStoreChild({
      type: 'append',
      store: spec,
      sessionId,
      prefix,
      count: 200,
      ...(pauseMs === undefined ? {} : { pauseMs }),
    }),
  );
  await Promise.all(children.map((child) => child.ready));
  for (const child of children) child.go();
  await expectCleanExits(children);
  const store = openStore(spec);
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
  expect(switches).toBeGreaterThan(minSwitches);
  expect((await store.getSession(sessionId))?.messageCount).toBe(400);
  await store.close();
}

/**
 * Two processes compact sessions `compact-<round>` at the same moments with the same expected
 * latest snapshot: in every round exactly one writes, the other is told about the winner's
 * snapshot, and the store holds the winner's snapshot as the latest.
 *
 * @param spec - The store, for the children and the check.
 * @param options - `rounds`; `seeded`: even rounds already hold a message and a summary the
 *   children expect as the latest (odd rounds hold the message and expect none); unseeded, every
 *   round starts empty and expects none. `startDelayMs`: time for the children to open their
 *   stores; `spacingMs` between rounds.
 */
export async function runCompactionRace(
  spec: StoreSpec,
  options: {
    readonly rounds: number;
    readonly seeded: boolean;
    readonly startDelayMs: number;
    readonly spacingMs: number;
  },
): Promise<void> {
  const store = openStore(spec);
  const expected: (string | null)[] = [];
  for (let round = 0; round < options.rounds; round++) {
    if (!options.seeded) {
      expected.push(null);
      continue;
    }
    await store.append(`compact-${round}`, [
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
    const base = await store.writeSnapshot(
      `compact-${round}`,
      { kind: 'summary', content: 'base', messageCutoffId: 'm0', cutoffSeq: 1, tokenCount: 1 },
      { expectedLatestId: null },
    );
    expected.push(base.written ? base.snapshot.id : 'unexpected');
  }
  const startAt = Date.now() + options.startDelayMs;
  const children = ['a', 'b'].map((writer) =>
    startStoreChild({
      type: 'compact',
      store: spec,
      sessionPrefix: 'compact-',
      expected,
      startAt,
      spacingMs: options.spacingMs,
      writer,
    }),
  );
  await expectCleanExits(children);
  const results = children.map((child) =>
    child.lines
      .filter((line) => line.startsWith('snapshot '))
      .map((line) => JSON.parse(line.slice('snapshot '.length)) as WriteSnapshotResult & { round: number }),
  );
  for (let round = 0; round < options.rounds; round++) {
    const both = results.map((list) => list.find((r) => r.round === round));
    expect(both.filter((r) => r?.written === true).length).toBe(1);
    expect(both.filter((r) => r?.written === false).length).toBe(1);
    const winner = both.find((r) => r?.written === true);
    const loser = both.find((r) => r?.written === false);
    const winnerId = winner?.written === true ? winner.snapshot.id : undefined;
    expect(winnerId).toBeDefined();
    // The loser was told about the winner's snapshot and wrote nothing.
    expect(loser?.written === false ? loser.latest?.id : undefined).toBe(winnerId);
    const snapshots = await store.snapshots(`compact-${round}`);
    expect(snapshots.length).toBe(expected[round] === null ? 1 : 2);
    expect(snapshots.at(-1)?.id).toBe(winnerId);
  }
  await store.close();
}

/**
 * What a reader must see after writers were killed: every acknowledged batch there once and
 * every batch there whole (all or none); every acknowledged snapshot there once, whole, pointing
 * at its cutoff row; and the next append succeeds at once with the next seq.
 *
 * @param reader - A long-lived store.
 * @param sessionId - The session the writers appended to (batches `<prefix>-<batch>-<i>`, sizes
 *   1 + batch % 4; the reader's own rows `parent-<iteration>`).
 * @param acked - Every batch acknowledged so far, `<prefix>-<batch>` to its size.
 * @param ackedSnapshots - Every snapshot id acknowledged so far.
 * @param iteration - Names the reader's row.
 * @returns The rows and snapshots before the reader's append, and how long that append took.
 */
export async function checkAfterCrash(
  reader: FullStore,
  sessionId: string,
  acked: ReadonlyMap<string, number>,
  ackedSnapshots: ReadonlySet<string>,
  iteration: number,
): Promise<{ rows: readonly StoredMessage[]; snapshots: readonly Snapshot[]; recoveryMs: number }> {
  const rows = await reader.messages(sessionId);
  expectWellFormed(rows);
  const batches = new Map<string, number>();
  for (const row of rows) {
    const id = row.message.id;
    if (id.startsWith('parent-')) continue;
    const key = id.slice(0, id.lastIndexOf('-'));
    batches.set(key, (batches.get(key) ?? 0) + 1);
  }
  for (const [key, size] of acked) expect(batches.get(key), `acknowledged batch ${key}`).toBe(size);
  for (const [key, count] of batches) expect(count).toBe(1 + (Number(key.split('-')[1]) % 4));
  const snapshots = await reader.snapshots(sessionId);
  expect(new Set(snapshots.map((snapshot) => snapshot.id)).size).toBe(snapshots.length);
  for (const id of ackedSnapshots) {
    expect(
      snapshots.some((snapshot) => snapshot.id === id),
      `snapshot ${id}`,
    ).toBe(true);
  }
  for (const snapshot of snapshots) {
    expect(rows[snapshot.cutoffSeq - 1]?.message.id).toBe(snapshot.messageCutoffId);
    expect((snapshot.content as { summaryText: string }).summaryText).toMatch(/ s{20000}$/);
  }
  // The store takes the next write at once: no lock is left behind, a torn tail is cut.
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
  const recoveryMs = Date.now() - before;
  expect(row?.seq).toBe(rows.length + 1);
  return { rows, snapshots, recoveryMs };
}

/**
 * Waits until a child printed a line that satisfies `isWanted`. No deadline of its own: how
 * long a loaded machine takes is not what the tests check (the test's timeout bounds it).
 *
 * @throws when the child exits first, with its stderr.
 */
export async function waitForLine(child: Child, isWanted: (line: string) => boolean): Promise<void> {
  let exited = false;
  void child.exited.then(() => {
    exited = true;
  });
  while (!child.lines.some(isWanted)) {
    if (exited)
      throw new Error(`the writer exited before printing the awaited line: ${child.lines.join(' | ')}`);
    await sleep(2);
  }
}

export interface CrashLoopOptions {
  /** The store the test reads with (one long-lived reader, then a fresh one). */
  readonly spec: StoreSpec;
  readonly sessionId: string;
  /**
   * Pairs of writers: `2 × iterations` SIGKILLs, whatever the machine's speed. Each writer is
   * killed 0 to `killWithinMs` ms after its first acknowledged batch (every fifth pair's first
   * writer after its first acknowledged snapshot), so every kill lands in a writer that works.
   */
  readonly iterations: number;
  readonly killWithinMs: number;
  /** The store writer `k` (0 or 1) of a pair opens; its batches are `<prefix>-<batch>`. */
  readonly writerSpec: (prefix: string, k: number) => StoreSpec;
  /** After a pair was killed and exited, before the reader looks. */
  readonly afterKill?: (prefixes: readonly string[]) => Promise<void> | void;
  /** After the reader's append following a kill; `snapshots` as the reader saw them before it. */
  readonly afterRecovery?: (snapshots: readonly Snapshot[]) => void;
}

export interface CrashLoopStats {
  readonly kills: number;
  readonly acknowledgedBatches: number;
  readonly acknowledgedSnapshots: number;
  readonly rows: number;
  /** How long the reader's first append after each kill took (a figure for bench/, not a check). */
  readonly recoveryMs: readonly number[];
  /** Writers' time from `go` to their kill, summed. */
  readonly writingMs: number;
  readonly ms: number;
}

/**
 * Runs pairs of `loop` writers and kills them with SIGKILL at random moments of their work,
 * checking after every pair with {@link checkAfterCrash}; at the end a freshly opened store
 * agrees with the long-lived reader. Asserts correctness only: how fast the writers write and
 * the reader recovers is measured by `bench/store-crash-recovery.ts`.
 *
 * @param options - See {@link CrashLoopOptions}.
 * @returns What happened, for the test's log line.
 */
export async function runCrashLoop(options: CrashLoopOptions): Promise<CrashLoopStats> {
  const { spec, sessionId, iterations } = options;
  const acked = new Map<string, number>();
  const ackedSnapshots = new Set<string>();
  const recoveries: number[] = [];
  let writingMs = 0;
  const reader = openStore(spec);
  await reader.messages(sessionId); // opened (and migrated) before the first recovery is timed
  const started = Date.now();
  const prefixesOf = (iteration: number) => [0, 1].map((k) => `i${iteration}c${k}`);
  const pairs: { prefixes: readonly string[]; children: readonly Child[] }[] = [];
  const startPair = (iteration: number) => {
    const prefixes = prefixesOf(iteration);
    const children = prefixes.map((prefix, k) =>
      startStoreChild({ type: 'loop', store: options.writerSpec(prefix, k), sessionId, prefix }),
    );
    pairs.push({ prefixes, children });
    return children;
  };
  let next = startPair(0);
  try {
    for (let iteration = 0; iteration < iterations; iteration++) {
      const children = next;
      const prefixes = prefixesOf(iteration);
      await Promise.all(children.map((child) => child.ready));
      // The next pair starts up while this one runs and is checked.
      if (iteration + 1 < iterations) next = startPair(iteration + 1);
      const goAt = Date.now();
      for (const child of children) child.go();
      // Both have done work before either is killed (a writer killed while holding the lock
      // would make the other wait for it to be judged abandoned).
      await Promise.all(
        children.map((child, k) => {
          const word = k === 0 && iteration % 5 === 0 ? 'snap ' : 'ack ';
          return waitForLine(child, (line) => line.startsWith(word));
        }),
      );
      for (const child of children) {
        await sleep(Math.random() * options.killWithinMs);
        child.process.kill('SIGKILL');
        writingMs += Date.now() - goAt;
      }
      // Each writer ran until the kill: none stopped on an error of its own.
      for (const exit of await Promise.all(children.map((child) => child.exited))) {
        expect(exit).toMatchObject({ signal: 'SIGKILL', stderr: '' });
      }
      children.forEach((child, k) => {
        const reports = childReports(child, prefixes[k] ?? '');
        for (const [key, size] of reports.batches) acked.set(key, size);
        for (const id of reports.snapshots) ackedSnapshots.add(id);
      });
      await options.afterKill?.(prefixes);
      const { snapshots, recoveryMs } = await checkAfterCrash(
        reader,
        sessionId,
        acked,
        ackedSnapshots,
        iteration,
      );
      recoveries.push(recoveryMs);
      options.afterRecovery?.(snapshots);
    }
  } finally {
    // After a failure, the pair started for the next iteration still runs (perhaps still
    // migrating): stop it, so that nothing writes after the test's teardown.
    for (const { prefixes, children } of pairs) {
      const running = children.filter(
        (child) => child.process.exitCode === null && child.process.signalCode === null,
      );
      if (running.length === 0) continue;
      for (const child of running) child.process.kill('SIGKILL');
      await Promise.all(running.map((child) => child.exited));
      await options.afterKill?.(prefixes);
    }
  }
  // A freshly opened store reading everything anew agrees with the long-lived one.
  const fresh = openStore(spec);
  const all = await fresh.messages(sessionId);
  expectWellFormed(all);
  expect(all).toEqual(await reader.messages(sessionId));
  expect(await fresh.snapshots(sessionId)).toEqual(await reader.snapshots(sessionId));
  expect((await fresh.context(sessionId)).messageCount).toBe(all.length);
  await Promise.all([reader.close(), fresh.close()]);
  // Every writer was killed after it acknowledged work, so the checks above covered some.
  expect(acked.size).toBeGreaterThanOrEqual(2 * iterations);
  expect(ackedSnapshots.size).toBeGreaterThan(0);
  return {
    kills: 2 * iterations,
    acknowledgedBatches: acked.size,
    acknowledgedSnapshots: ackedSnapshots.size,
    rows: all.length,
    recoveryMs: recoveries,
    writingMs,
    ms: Date.now() - started,
  };
}
