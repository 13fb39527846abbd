// NFR-7.5: the SQL stores read a long range in pages (keyset on seq) and let the event loop
// run between them. Checked on SQLite, PGlite and, when DATABASE_URL is set, a PostgreSQL
// server: every query returns what one statement would, and other work runs during the read
// (counted in event-loop turns, never in milliseconds).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { message } from '../../../test/stores/conformance.ts';
import { postgresStore } from '../postgres/postgres-store.ts';
import { sqliteStore } from '../sqlite/sqlite-store.ts';
import type { FullStore, MessageQuery } from '../types.ts';
import { READ_PAGE_ROWS } from './sql-store.ts';

const DATABASE_URL = process.env.DATABASE_URL;
/** Two full pages and a part of a third. */
const MESSAGES = READ_PAGE_ROWS * 2 + 17;
const SESSION = 'long-chat';
const runId = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;

let dir = '';
let pglite: PGlite;
let admin: pg.Pool | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatfold-paged-'));
  pglite = await PGlite.create();
  if (DATABASE_URL !== undefined) admin = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
});
afterAll(async () => {
  await pglite.close();
  await admin?.end();
  await rm(dir, { recursive: true, force: true });
});

/** What a query returns, computed from the seqs 1..MESSAGES (bounds exclusive). */
function expectedSeqs(query: MessageQuery): number[] {
  const seqs = Array.from({ length: MESSAGES }, (_, index) => index + 1).filter(
    (seq) => seq > (query.afterSeq ?? 0) && seq < (query.beforeSeq ?? Number.POSITIVE_INFINITY),
  );
  const ordered = query.order === 'desc' ? seqs.reverse() : seqs;
  return query.limit === undefined ? ordered : ordered.slice(0, Math.max(0, query.limit));
}

/** Counts event-loop turns (setImmediate callbacks) while `work` runs. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let running = true;
  const tick = (): void => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { result: await work(), turns };
  } finally {
    running = false;
  }
}

const drivers: { name: string; open: () => Promise<{ store: FullStore; cleanup: () => Promise<void> }> }[] = [
  {
    name: 'sqlite',
    open: async () => ({ store: sqliteStore(join(dir, `${runId}.db`)), cleanup: async () => {} }),
  },
  {
    name: 'postgres (PGlite)',
    open: async () => {
      const schema = `chatfold_paged_${runId}_lite`;
      return {
        store: postgresStore({ pglite }, { schema }),
        cleanup: async () => {
          await pglite.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        },
      };
    },
  },
  ...(DATABASE_URL === undefined
    ? []
    : [
        {
          name: 'postgres (server)',
          open: async () => {
            const schema = `chatfold_paged_${runId}_server`;
            return {
              store: postgresStore({ connectionString: DATABASE_URL, max: 4 }, { schema }),
              cleanup: async () => {
                await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
              },
            };
          },
        },
      ]),
];

describe.each(drivers)('paged range reads: $name (NFR-7.5)', ({ open }) => {
  let store: FullStore;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ store, cleanup } = await open());
    await store.append(
      SESSION,
      Array.from({ length: MESSAGES }, (_, index) => ({ message: message(`message ${index + 1}`) })),
    );
  });
  afterAll(async () => {
    await store.close();
    await cleanup();
  });

  it('returns exactly what one statement would, across page boundaries', async () => {
    const seqArbitrary = fc.integer({ min: 0, max: MESSAGES + 2 });
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            afterSeq: seqArbitrary,
            beforeSeq: seqArbitrary,
            limit: fc.integer({ min: 0, max: MESSAGES + 5 }),
            order: fc.constantFrom('asc' as const, 'desc' as const),
          },
          { requiredKeys: [] },
        ),
        async (query) => {
          const rows = await store.messages(SESSION, query);
          expect(rows.map((row) => row.seq)).toEqual(expectedSeqs(query));
          for (const row of rows)
            expect(row.message.parts).toEqual([{ type: 'text', text: `message ${row.seq}` }]);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('lets the event loop run between the pages of a whole history', async () => {
    const pages = Math.ceil(MESSAGES / READ_PAGE_ROWS);
    const all = await turnsDuring(() => store.messages(SESSION));
    expect(all.result).toHaveLength(MESSAGES);
    expect(all.turns).toBeGreaterThanOrEqual(pages - 1);
    const newest = await turnsDuring(() => store.messages(SESSION, { order: 'desc', limit: MESSAGES - 1 }));
    expect(newest.result.map((row) => row.seq)).toEqual(expectedSeqs({ order: 'desc', limit: MESSAGES - 1 }));
    expect(newest.turns).toBeGreaterThanOrEqual(pages - 1);
  });

  it("context() reads the messages after the summary's cutoff in pages, as one consistent read", async () => {
    const before = await store.context(SESSION);
    expect(before.tail.map((row) => row.seq)).toEqual(expectedSeqs({}));
    expect(before.messageCount).toBe(MESSAGES);
    const cutoffSeq = 7;
    const cutoff = before.tail[cutoffSeq - 1];
    const written = await store.writeSnapshot(
      SESSION,
      {
        kind: 'summary',
        content: { summaryText: 'the first seven' },
        messageCutoffId: cutoff?.message.id as string,
        cutoffSeq,
        tokenCount: 3,
      },
      { expectedLatestId: null },
    );
    expect(written.written).toBe(true);
    const { result, turns } = await turnsDuring(() => store.context(SESSION, { headCount: 2 }));
    expect(result.head.map((row) => row.seq)).toEqual([1, 2]);
    expect(result.tail.map((row) => row.seq)).toEqual(expectedSeqs({ afterSeq: cutoffSeq }));
    expect(result.messageCount).toBe(MESSAGES);
    expect(turns).toBeGreaterThanOrEqual(Math.ceil((MESSAGES - cutoffSeq) / READ_PAGE_ROWS) - 1);
  });
});
