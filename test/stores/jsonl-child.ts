/**
 * A writer process for test/stores/jsonl-processes.test.ts (ST-5). Node runs it directly:
 * `node test/stores/jsonl-child.ts '<json job>'`. It reports on stdout, one line per event:
 * `ready`, `ack <batch> <size>` after an append resolved, `snap <id>` after a loop snapshot was
 * written, `snapshot <json result>` for a `compact` round, `done`.
 */
import type { Message } from '../../src/messages/types.ts';
import { jsonlStore } from '../../src/stores/jsonl/jsonl-store.ts';

export type ChildJob =
  /** After a line on stdin, appends `count` messages one call each, ids `<prefix>-<i>`. */
  | {
      readonly type: 'append';
      readonly dir: string;
      readonly sessionId: string;
      readonly prefix: string;
      readonly count: number;
    }
  /**
   * After a line on stdin, appends batches of 1–4 messages until killed, ids
   * `<prefix>-<batch>-<i>`. Every fifth batch carries ~200 KB per message, and with `huge`
   * every batch is 4 × 4 MB, so a kill can land in the middle of a write. Without `huge`,
   * every third batch is followed by a ~20 KB summary snapshot up to its last row
   * (compare-and-set; `snap <id>` once written).
   */
  | {
      readonly type: 'loop';
      readonly dir: string;
      readonly sessionId: string;
      readonly prefix: string;
      readonly fsync: 'always' | 'never';
      readonly huge?: boolean;
    }
  /** At `startAt + i * spacingMs` writes a first summary into session `<sessionPrefix><i>`, for each i < rounds. */
  | {
      readonly type: 'compact';
      readonly dir: string;
      readonly sessionPrefix: string;
      readonly rounds: number;
      readonly startAt: number;
      readonly spacingMs: number;
      readonly writer: string;
    };

const job = JSON.parse(process.argv[2] ?? '{}') as ChildJob;
const report = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

function message(id: string, text: string): Message {
  return { id, role: 'user', parts: [{ type: 'text', text }], createdAt: new Date().toISOString() };
}

const store = jsonlStore(job.dir, job.type === 'loop' ? { fsync: job.fsync } : {});
report('ready');

if (job.type !== 'compact') await new Promise((resolve) => process.stdin.once('data', resolve));
if (job.type === 'append') {
  for (let i = 0; i < job.count; i++) {
    await store.append(job.sessionId, [
      { message: message(`${job.prefix}-${i}`, `message ${i} from ${job.prefix}`) },
    ]);
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
        tokenCount: 5,
      },
      { expectedLatestId: latest?.id ?? null },
    );
    if (result.written) report(`snap ${result.snapshot.id}`);
  }
} else {
  for (let round = 0; round < job.rounds; round++) {
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
      { expectedLatestId: null },
    );
    report(`snapshot ${JSON.stringify({ round, ...result })}`);
  }
}
await store.close();
report('done');
