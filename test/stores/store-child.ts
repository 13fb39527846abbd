/**
 * A writer process for the cross-process store tests (ST-4, ST-5) of every persistent store.
 * Node runs it directly: `node test/stores/store-child.ts '<json job>'`. It opens its store,
 * prints `ready`, waits for a line on stdin (except `compact`), then reports on stdout, one line
 * per event: `ack <batch> <size>` after an append resolved, `snap <id>` after a loop snapshot
 * was written, `snapshot <json result>` for a `compact` round, `done`.
 */
import type { Message } from '../../src/messages/types.ts';
import { openStore, type StoreSpec } from './store-spec.ts';

export type StoreJob =
  /**
   * Appends `count` messages one call each, ids `<prefix>-<i>`. With `pauseMs`, waits 0 to
   * `pauseMs` ms after each, as between an app's turns: SQLite's busy handler is not fair, and
   * a writer in a tight loop would keep the lock until it is done.
   */
  | {
      readonly type: 'append';
      readonly store: StoreSpec;
      readonly sessionId: string;
      readonly prefix: string;
      readonly count: number;
      readonly pauseMs?: number;
    }
  /**
   * Appends batches of 1–4 messages until killed, ids `<prefix>-<batch>-<i>`. Every fifth batch
   * carries ~200 KB per message, and with `huge` every batch is 4 × 4 MB, so a kill can land in
   * the middle of a write. Without `huge`, every third batch is followed by a ~20 KB summary
   * snapshot up to its last row (compare-and-set on the latest it read; `snap <id>` once written).
   */
  | {
      readonly type: 'loop';
      readonly store: StoreSpec;
      readonly sessionId: string;
      readonly prefix: string;
      readonly huge?: boolean;
    }
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

const job = JSON.parse(process.argv[2] ?? '{}') as StoreJob;
const report = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function message(id: string, text: string): Message {
  return { id, role: 'user', parts: [{ type: 'text', text }], createdAt: new Date().toISOString() };
}

const store = openStore(job.store, 1);
// The SQL stores connect and migrate on first use: `ready` means that is done.
if (job.store.kind !== 'jsonl') await store.listSessions({ limit: 1 });
report('ready');
if (job.type !== 'compact') await new Promise((resolve) => process.stdin.once('data', resolve));

if (job.type === 'append') {
  for (let i = 0; i < job.count; i++) {
    await store.append(job.sessionId, [
      { message: message(`${job.prefix}-${i}`, `message ${i} of ${job.prefix}`) },
    ]);
    if (job.pauseMs !== undefined) await sleep(Math.random() * job.pauseMs);
  }
} else if (job.type === 'loop') {
  const huge = 'h'.repeat(4_000_000);
  for (let batch = 0; ; batch++) {
    const size = job.huge ? 4 : 1 + (batch % 4);
    const text = job.huge
      ? huge
      : batch % 5 === 4
        ? 'x'.repeat(200_000)
        : `batch ${batch} of ${job.prefix} — ünïcödé 🧪`;
    const rows = await store.append(
      job.sessionId,
      Array.from({ length: size }, (_, i) => ({
        message: message(`${job.prefix}-${batch}-${i}`, `${text} ${i}`),
        tokenEstimate: 12,
      })),
    );
    report(`ack ${batch} ${size}`);
    if (job.huge || batch % 3 !== 2) continue;
    // A compaction: summarise up to the last row, compare-and-set against the latest summary.
    const last = rows.at(-1);
    if (last === undefined) continue;
    const latest = await store.latestSnapshot(job.sessionId);
    const result = await store.writeSnapshot(
      job.sessionId,
      {
        kind: 'summary',
        content: { summaryText: `${job.prefix} up to ${last.message.id} ${'s'.repeat(20_000)}` },
        messageCutoffId: last.message.id,
        cutoffSeq: last.seq,
        tokenCount: 5000,
      },
      { expectedLatestId: latest?.id ?? null },
    );
    if (result.written) report(`snap ${result.snapshot.id}`);
  }
} else {
  for (let round = 0; round < job.expected.length; round++) {
    const wait = job.startAt + round * job.spacingMs - Date.now();
    if (wait > 0) await sleep(wait);
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
