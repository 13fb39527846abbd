/**
 * The store half of bench/scale.ts for one session size and one store (run in its own child
 * process): fill the store with the session (streamed, never all in memory), open a session
 * over it, compact on the first `prepare()`, then time `prepare()` warm, a warm turn (append
 * one message + `prepare()`) and a resume (a new store instance and session, first
 * `prepare()`); memory of the process against the session's message bytes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Message } from '../src/messages/types.ts';
import { createChatfold } from '../src/session/create-chatfold.ts';
import { memoryStore } from '../src/stores/memory/memory-store.ts';
import { postgresStore } from '../src/stores/postgres/postgres-store.ts';
import { sqliteStore } from '../src/stores/sqlite/sqlite-store.ts';
import type { Store } from '../src/stores/types.ts';
import { createTokenCounter } from '../src/tokens/create-token-counter.ts';
import { median } from './harness.ts';
import { scaleMessages } from './scale-corpus.ts';

/** PostgreSQL the bench uses: DATABASE_URL, or the local server of the development machines. */
export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface PrepareResult {
  readonly store: string;
  readonly messages: number;
  readonly messageBytes: number;
  readonly fillPerSecond: number;
  /** First prepare(): loads the whole history (no snapshot yet) and compacts it. */
  readonly firstPrepareMs: number;
  readonly prepareWarmMs: number;
  readonly turnWarmMs: number;
  /**
   * The append alone within a turn. On SQLite it is one commit with `synchronous: 'full'`:
   * an fsync of the write-ahead log, whatever the history's length (0.2–12 ms on this disk).
   */
  readonly appendMs: number;
  /** A new store instance and session, first prepare(): reads the snapshot and what follows its cutoff. */
  readonly resumeMs: number;
  readonly projectionMessages: number;
  /** Resident memory after the warm turns, minus before filling (memory store: the session's whole cost). */
  readonly rssGrowthMB: number;
  readonly heapGrowthMB: number;
  /** Live memory after a full GC: JavaScript heap plus array buffers (the memory store keeps rows as UTF-8). */
  readonly liveGrowthMB: number;
  readonly peakRssMB: number;
}

interface Subject {
  open(): Store;
  dispose(): Promise<void>;
}

function subject(kind: string): Subject {
  if (kind === 'memory') {
    const store = memoryStore();
    return { open: () => store, dispose: async () => undefined };
  }
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'chatfold-bench-scale-'));
    return {
      open: () => sqliteStore(join(dir, 'scale.db')),
      dispose: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (kind === 'postgres') {
    const schema = `chatfold_scale_${process.pid}`;
    return {
      open: () => postgresStore({ connectionString: DATABASE_URL, max: 4 }, { schema }),
      dispose: async () => {
        const admin = new pg.Client({ connectionString: DATABASE_URL });
        await admin.connect();
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await admin.end();
      },
    };
  }
  throw new Error(`bench/scale: unknown store ${kind}`);
}

const MB = 1024 * 1024;
const collect = (): void => (globalThis as { gc?: () => void }).gc?.();
const userMessage = (text: string) => ({ role: 'user' as const, parts: [{ type: 'text' as const, text }] });

export async function runPrepare({
  size,
  tokenizer,
  store: kind,
}: {
  size: number;
  tokenizer: string;
  store: string;
}): Promise<PrepareResult> {
  const sessionId = `scale-${size}`;
  const under = subject(kind);
  collect();
  const usage = () => {
    const { rss, heapUsed, arrayBuffers } = process.memoryUsage();
    return { rss, heap: heapUsed, live: heapUsed + arrayBuffers };
  };
  const before = usage();
  const store = under.open();
  try {
    // Fill in batches of 1,000, streamed: the bench holds no copy of the history.
    let bytes = 0;
    let count = 0;
    let batch: { message: Message }[] = [];
    const fillStart = performance.now();
    for (const message of scaleMessages(size)) {
      bytes += Buffer.byteLength(JSON.stringify(message));
      batch.push({ message });
      if (batch.length === 1000) {
        await store.append(sessionId, batch);
        count += batch.length;
        batch = [];
      }
    }
    if (batch.length > 0) await store.append(sessionId, batch);
    count += batch.length;
    batch = [];
    const fillPerSecond = Math.round(count / ((performance.now() - fillStart) / 1000));

    const options = {
      window: 200_000,
      maxOutputTokens: 32_000,
      // The default counter a session would have (content cache of DEFAULT_CACHE_SIZE entries).
      counter: createTokenCounter({ tokenizer }),
    };
    const chatfold = createChatfold({ ...options, store });
    const session = await chatfold.session(sessionId);
    let start = performance.now();
    const first = await session.prepare();
    const firstPrepareMs = performance.now() - start;

    const warm: number[] = [];
    for (let i = 0; i < 16; i++) {
      start = performance.now();
      await session.prepare();
      warm.push(performance.now() - start);
    }
    const turns: number[] = [];
    const appends: number[] = [];
    for (let i = 0; i < 16; i++) {
      start = performance.now();
      await session.append(userMessage(`turn ${i}: one more question`));
      appends.push(performance.now() - start);
      await session.prepare();
      turns.push(performance.now() - start);
    }
    collect();
    const after = usage();

    // Resume: a new store instance (memory: the same one) and a new session.
    const resumed = kind === 'memory' ? store : under.open();
    start = performance.now();
    const again = await createChatfold({ ...options, store: resumed }).session(sessionId);
    await again.prepare();
    const resumeMs = performance.now() - start;
    if (resumed !== store) await resumed.close();

    return {
      store: kind,
      messages: count,
      messageBytes: bytes,
      fillPerSecond,
      firstPrepareMs: Math.round(firstPrepareMs),
      prepareWarmMs: median(warm.slice(1)),
      turnWarmMs: median(turns.slice(1)),
      appendMs: median(appends.slice(1)),
      resumeMs: Math.round(resumeMs * 100) / 100,
      projectionMessages: first.messages.length,
      rssGrowthMB: Math.round((after.rss - before.rss) / MB),
      heapGrowthMB: Math.round((after.heap - before.heap) / MB),
      liveGrowthMB: Math.round((after.live - before.live) / MB),
      peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
    };
  } finally {
    await store.close();
    await under.dispose();
  }
}
