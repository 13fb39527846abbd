/**
 * A writer process for test/stores/sql-processes.test.ts (ST-4, ST-5). Node runs it directly:
 * `node test/stores/sql-child.ts '<json job>'`. It opens its store, prints `ready`, waits for a
 * line on stdin (except `compact`), then reports on stdout, one line per event: `ack <batch>
 * <size>` after an append resolved, `snap <id>` after a snapshot was written, `snapshot <json>`
 * for a compaction result, `done`.
 */
import type { Message } from '../../src/messages/types.ts';
import { postgresStore } from '../../src/stores/postgres/postgres-store.ts';
import { sqliteStore } from '../../src/stores/sqlite/sqlite-store.ts';
import type { Store } from '../../src/stores/types.ts';

export type StoreSpec =
  | { readonly kind: 'sqlite'; readonly path: string }
  | { readonly kind: 'postgres'; readonly connectionString: string; readonly schema: string };

export type SqlChildJob =
  /** Appends `count` messages one call each with a 0–2 ms pause between, ids `<prefix>-<i>`. */
  | {
      readonly type: 'append';
      readonly store: StoreSpec;
      readonly sessionId: string;
      readonly prefix: string;
      readonly count: number;
    }
  /**
   * Appends batches of 1–4 messages until killed, ids `<prefix>-<batch>-<i>`; after every
   * third batch writes a ~20 KB summary (compare-and-set on the latest it read).
   */
  | { readonly type: 'loop'; readonly store: StoreSpec; readonly sessionId: string; readonly prefix: string }
  /** At `startAt + i * spacingMs` writes a summary into `<sessionPrefix><i>` expecting `expected[i]` as the latest. */
  | {
      readonly type: 'compact';
      readonly store: StoreSpec;
      readonly sessionPrefix: string;
      readonly expected: readonly (string | null)[];
      readonly startAt: number;
      readonly spacingMs: number;
      readonly writer: string;
    };

const job = JSON.parse(process.argv[2] ?? '{}') as SqlChildJob;
const report = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

function openStore(spec: StoreSpec): Store {
  return spec.kind === 'sqlite'
    ? sqliteStore(spec.path)
    : postgresStore({ connectionString: spec.connectionString, max: 1 }, { schema: spec.schema });
}

function message(id: string, text: string): Message {
  return { id, role: 'user', parts: [{ type: 'text', text }], createdAt: new Date().toISOString() };
}

const store = openStore(job.store);
await store.listSessions({ limit: 1 }); // opened and migrated
report('ready');
if (job.type !== 'compact') await new Promise((resolve) => process.stdin.once('data', resolve));

if (job.type === 'append') {
  for (let i = 0; i < job.count; i++) {
    await store.append(job.sessionId, [
      { message: message(`${job.prefix}-${i}`, `message ${i} of ${job.prefix}`) },
    ]);
    // A short pause, as between an app's turns: SQLite's busy handler is not fair, and a writer
    // in a tight loop would keep the lock until it is done.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 2));
  }
} else if (job.type === 'loop') {
  for (let batch = 0; ; batch++) {
    const size = 1 + (batch % 4);
    const rows = await store.append(
      job.sessionId,
      Array.from({ length: size }, (_, i) => ({
        message: message(`${job.prefix}-${batch}-${i}`, `batch ${batch} of ${job.prefix} — ünïcödé 🧪 ${i}`),
        tokenEstimate: 12,
      })),
    );
    report(`ack ${batch} ${size}`);
    if (batch % 3 === 2) {
      const latest = await store.latestSnapshot(job.sessionId);
      const cutoff = rows.at(-1);
      if (cutoff === undefined) continue;
      const result = await store.writeSnapshot(
        job.sessionId,
        {
          kind: 'summary',
          content: { summaryText: `by ${job.prefix} ${'s'.repeat(20_000)}` },
          messageCutoffId: cutoff.message.id,
          cutoffSeq: cutoff.seq,
          tokenCount: 5000,
        },
        { expectedLatestId: latest?.id ?? null },
      );
      if (result.written) report(`snap ${result.snapshot.id}`);
    }
  }
} else {
  for (let round = 0; round < job.expected.length; round++) {
    const wait = job.startAt + round * job.spacingMs - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const result = await store.writeSnapshot(
      `${job.sessionPrefix}${round}`,
      {
        kind: 'summary',
        content: { summaryText: `written by ${job.writer}` },
        messageCutoffId: 'm0',
        cutoffSeq: 1,
        tokenCount: 4,
      },
      { expectedLatestId: job.expected[round] ?? null },
    );
    report(`snapshot ${JSON.stringify({ round, ...result })}`);
  }
}
await store.close();
report('done');
