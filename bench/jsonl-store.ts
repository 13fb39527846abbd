/**
 * jsonlStore benchmarks (ST-1, ST-5): appending 10k messages of the recorded agent session one
 * call each (the way a chat appends) with `fsync: 'always'` and `'never'`, then `context()`
 * and `messages()` on the 10k-message session, cold (a new store reads the files) and warm
 * (the same store, nothing new to read), and one append into the 10k session (O(new data)).
 *
 *   node bench/jsonl-store.ts        (writes bench/results/jsonl-store.json)
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonlStore } from '../src/stores/jsonl/jsonl-store.ts';
import { sessionFolderName } from '../src/stores/jsonl/session-folder.ts';
import { syntheticSession } from './corpus.ts';
import { machine, medianMs } from './harness.ts';

const COUNT = 10_000;
const messages = syntheticSession(COUNT).slice(0, COUNT);
const dir = mkdtempSync(join(tmpdir(), 'chatfold-bench-jsonl-'));
const results: Record<string, unknown> = { machine: machine(), messages: COUNT };

try {
  for (const fsync of ['never', 'always'] as const) {
    const store = jsonlStore(dir, { fsync });
    const sessionId = `bench-${fsync}`;
    const start = performance.now();
    for (const message of messages) await store.append(sessionId, [{ message }]);
    const ms = performance.now() - start;
    const file = join(dir, 'sessions', sessionFolderName(sessionId), 'messages.jsonl');
    results[`append 10k one per call, fsync ${fsync}`] = {
      ms: Math.round(ms),
      messagesPerSecond: Math.round((COUNT / ms) * 1000),
      fileMiB: Math.round((statSync(file).size / 2 ** 20) * 10) / 10,
    };
    await store.close();
  }

  const sessionId = 'bench-never';
  await jsonlStore(dir).writeSnapshot(
    sessionId,
    {
      kind: 'summary',
      content: { summaryText: 'bench' },
      messageCutoffId: messages[COUNT - 101]?.id ?? '',
      cutoffSeq: COUNT - 100,
      tokenCount: 1,
    },
    { expectedLatestId: null },
  );
  results['context() 10k, cold (new store reads the files)'] = {
    ms: await medianMs(() => jsonlStore(dir).context(sessionId, { headCount: 2 }), { runs: 7, warmup: 1 }),
  };
  const warm = jsonlStore(dir);
  await warm.context(sessionId);
  results['context() 10k, warm'] = { ms: await medianMs(() => warm.context(sessionId, { headCount: 2 })) };
  results['messages() 10k, warm'] = { ms: await medianMs(() => warm.messages(sessionId)) };
  results['search() 10k, warm, no hit'] = {
    ms: await medianMs(() => warm.search(sessionId, { text: 'no such text anywhere' })),
  };
  let extra = 0;
  results['append 1 into the 10k session, fsync never'] = {
    ms: await medianMs(async () => {
      const message = messages[0];
      if (message === undefined) return;
      await warm.append(sessionId, [{ message: { ...message, id: `extra-${extra++}` } }]);
    }),
  };
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log(JSON.stringify(results, null, 2));
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL('./results/jsonl-store.json', import.meta.url),
  `${JSON.stringify(results, null, 2)}\n`,
);
