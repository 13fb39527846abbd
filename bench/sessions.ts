/**
 * Store and session benchmarks (ST-1, SPEC §5 "prepare() on a 10,000-message session, SQLite,
 * warm < 20 ms"): for the SQLite, Postgres (when DATABASE_URL is set), PGlite and memory
 * stores, sessions of 1k / 10k / 100k messages of the recorded agent session:
 * - append throughput, one message per call (the way a chat appends; first 1,000 messages)
 *   and in batches of 500 (loading the session);
 * - `store.context()` warm (the same store again) and cold (a newly opened store);
 * - `session.prepare()` through the session API with a window so large nothing compacts:
 *   cold (a new store and session, one message appended, first prepare) and warm (the
 *   following calls), plus a warm turn (append one message, then prepare).
 *
 *   node bench/sessions.ts [--sizes 1000,10000,100000] [--stores sqlite,postgres,pglite,memory]
 *
 * Writes bench/results/sessions.json and prints a markdown table.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { Message } from '../src/messages/types.ts';
import { createChatfold } from '../src/session/create-chatfold.ts';
import { memoryStore } from '../src/stores/memory/memory-store.ts';
import { postgresStore } from '../src/stores/postgres/postgres-store.ts';
import { sqliteStore } from '../src/stores/sqlite/sqlite-store.ts';
import type { Store } from '../src/stores/types.ts';
import { syntheticSession } from './corpus.ts';
import { machine, medianMs } from './harness.ts';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000,100000' },
    stores: { type: 'string', default: 'sqlite,postgres,pglite,memory' },
  },
});
const SIZES = (args.sizes ?? '').split(',').map(Number);
const DATABASE_URL = process.env.DATABASE_URL;
const WINDOW = 2_000_000_000; // nothing compacts: prepare() projects the whole history
const PER_CALL = 1000;
const BATCH = 500;

interface Subject {
  readonly name: string;
  /** Opens the store (again, for "cold"); the same data every time. */
  open(): Store;
  /** Whether a newly opened store starts cold (memory does not persist). */
  readonly persistent: boolean;
  dispose(): Promise<void>;
}

async function subjects(): Promise<Subject[]> {
  const wanted = new Set((args.stores ?? '').split(','));
  const out: Subject[] = [];
  if (wanted.has('sqlite')) {
    const dir = mkdtempSync(join(tmpdir(), 'chatfold-bench-sessions-'));
    const path = join(dir, 'bench.db');
    out.push({
      name: 'sqlite',
      open: () => sqliteStore(path),
      persistent: true,
      dispose: async () => rmSync(dir, { recursive: true, force: true }),
    });
  }
  if (wanted.has('postgres') && DATABASE_URL !== undefined) {
    const schema = `chatfold_bench_${process.pid}`;
    out.push({
      name: 'postgres',
      open: () => postgresStore({ connectionString: DATABASE_URL, max: 4 }, { schema }),
      persistent: true,
      dispose: async () => {
        const admin = new pg.Client({ connectionString: DATABASE_URL });
        await admin.connect();
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await admin.end();
      },
    });
  }
  if (wanted.has('pglite')) {
    const pglite = await PGlite.create();
    out.push({
      name: 'pglite',
      open: () => postgresStore({ pglite }),
      persistent: true,
      dispose: () => pglite.close(),
    });
  }
  if (wanted.has('memory')) {
    const store = memoryStore();
    out.push({ name: 'memory', open: () => store, persistent: false, dispose: async () => undefined });
  }
  return out;
}

const round = (ms: number): number => Math.round(ms * 100) / 100;
const perSecond = (count: number, ms: number): number => Math.round((count / ms) * 1000);
const userMessage = (text: string) => ({ role: 'user' as const, parts: [{ type: 'text' as const, text }] });

interface Row {
  store: string;
  messages: number;
  appendPerCallPerSecond?: number;
  appendBatchPerSecond: number;
  contextWarmMs: number;
  contextColdMs: number | null;
  prepareColdMs: number;
  prepareWarmMs: number;
  turnWarmMs: number;
}

const largest = Math.max(...SIZES);
const corpus: Message[] = syntheticSession(largest + 1).slice(0, largest);
const rows: Row[] = [];

for (const subject of await subjects()) {
  const store = subject.open();
  try {
    // One message per call, into its own session.
    const perCallStart = performance.now();
    for (const message of corpus.slice(0, PER_CALL)) await store.append('per-call', [{ message }]);
    const appendPerCallPerSecond = perSecond(PER_CALL, performance.now() - perCallStart);

    for (const size of SIZES) {
      const sessionId = `bench-${size}`;
      const messages = corpus.slice(0, size);
      const loadStart = performance.now();
      for (let i = 0; i < size; i += BATCH) {
        await store.append(
          sessionId,
          messages.slice(i, i + BATCH).map((message) => ({ message })),
        );
      }
      const appendBatchPerSecond = perSecond(size, performance.now() - loadStart);
      const runs = size >= 100_000 ? 3 : 15;

      await store.context(sessionId);
      const contextWarmMs = await medianMs(() => store.context(sessionId), { runs, warmup: 1 });
      const contextColdMs = subject.persistent
        ? await medianMs(
            async () => {
              const fresh = subject.open();
              await fresh.context(sessionId);
              await fresh.close();
            },
            { runs, warmup: 0 },
          )
        : null;

      // The session API: a new store and session, one message appended, then prepare().
      const sessionStore = subject.persistent ? subject.open() : store;
      const chatfold = createChatfold({ window: WINDOW, store: sessionStore });
      const coldStart = performance.now();
      const session = await chatfold.session(sessionId);
      await session.append(userMessage('one more question'));
      const first = await session.prepare();
      const prepareColdMs = performance.now() - coldStart;
      if (first.messages.length < size) throw new Error(`${subject.name} ${size}: prepare() compacted`);
      const prepareWarmMs = await medianMs(() => session.prepare(), { runs, warmup: 1 });
      let turn = 0;
      const turnWarmMs = await medianMs(
        async () => {
          await session.append(userMessage(`turn ${turn++}`));
          await session.prepare();
        },
        { runs, warmup: 1 },
      );
      if (subject.persistent) await sessionStore.close();

      const row: Row = {
        store: subject.name,
        messages: size,
        ...(size === SIZES[0] ? { appendPerCallPerSecond } : {}),
        appendBatchPerSecond,
        contextWarmMs: round(contextWarmMs),
        contextColdMs: contextColdMs === null ? null : round(contextColdMs),
        prepareColdMs: round(prepareColdMs),
        prepareWarmMs: round(prepareWarmMs),
        turnWarmMs: round(turnWarmMs),
      };
      rows.push(row);
      console.error(JSON.stringify(row));
    }
  } finally {
    await store.close();
    await subject.dispose();
  }
}

const results = {
  machine: machine(),
  note: 'Synthetic sessions from the recorded 344-message agent session (~1.9 KB JSON per message). SQLite with synchronous=FULL (the default). Append one per call: first 1,000 messages; batches of 500 for the rest. prepare() with a 2e9-token window so nothing compacts.',
  rows,
};
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/sessions.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);

const cell = (value: number | null | undefined): string => (value == null ? '—' : String(value));
console.log(
  [
    '| store | messages | append 1/call (msg/s) | append batch 500 (msg/s) | context() warm ms | context() cold ms | prepare() cold ms | prepare() warm ms | append 1 + prepare() warm ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.store} | ${r.messages.toLocaleString('en')} | ${cell(r.appendPerCallPerSecond)} | ${r.appendBatchPerSecond} | ${r.contextWarmMs} | ${cell(r.contextColdMs)} | ${r.prepareColdMs} | ${r.prepareWarmMs} | ${r.turnWarmMs} |`,
    ),
  ].join('\n'),
);
