/**
 * Counting the same long list twice (issue 19 §3): a fresh counter counts a session of N
 * messages built from the recorded sessions (bench/scale-corpus.ts: no two copies share
 * content), then counts it again — the same objects, and rebuilt (equal content in new objects,
 * as a stateless caller converts its history on every call). The rebuilt recount runs
 * `--rebuilds` times, each on a new copy made before the clock (median reported; the first
 * one separately, since it is the one that follows the first count). Reports milliseconds, the
 * ratio first / rebuilt recount, and the process's peak RSS and heap over the list.
 *
 * `--rebuild json` rebuilds through `JSON.parse(JSON.stringify(…))` (new strings too, as a
 * server parses each request) instead of spreading each message and part; `--shift` puts `r`
 * new messages at the head of rebuilt copy `r`, so no message is at its place in the list
 * counted before it (the counter cannot read a message against the one it saw there).
 *
 *   node --expose-gc bench/recount.ts 100000 [--rebuilds 5] [--rebuild spread|json] [--shift]
 *   (one size per process: peak memory is per process)
 */
import { parseArgs } from 'node:util';
import type { Message } from '../src/messages/types.ts';
import { createTokenCounter } from '../src/tokens/create-token-counter.ts';
import { median } from './harness.ts';
import { scaleSession } from './scale-corpus.ts';

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rebuilds: { type: 'string', default: '5' },
    rebuild: { type: 'string', default: 'spread' },
    shift: { type: 'boolean', default: false },
  },
});
if (flags.rebuild !== 'spread' && flags.rebuild !== 'json') throw new Error('--rebuild is spread or json');
const size = Number(positionals[0] ?? 5000);
const rebuilds = Math.max(1, Number(flags.rebuilds));
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const baseHeap = process.memoryUsage().heapUsed;
const messages = scaleSession(size);
const json = flags.rebuild === 'json' ? JSON.stringify(messages) : undefined;
let copies = 0;
const rebuild = (): Message[] => {
  copies++;
  const list: Message[] =
    json === undefined
      ? messages.map((message) => ({ ...message, parts: message.parts.map((part) => ({ ...part })) }))
      : (JSON.parse(json) as Message[]);
  if (!flags.shift) return list;
  const head = Array.from(
    { length: copies },
    (_, index): Message => ({
      id: `shift-${copies}-${index}`,
      role: 'user',
      createdAt: '2026-01-01T00:00:00.000Z',
      parts: [{ type: 'text', text: `inserted ${index}` }],
    }),
  );
  return [...head, ...list];
};
let rebuilt = rebuild();
gc?.();
const listHeap = process.memoryUsage().heapUsed - baseHeap;
const rssBefore = process.memoryUsage().rss;
const counter = createTokenCounter({ tokenizer: 'anthropic:claude' });
const time = (fn: () => unknown): number => {
  const start = performance.now();
  fn();
  return Math.round((performance.now() - start) * 10) / 10;
};
const first = time(() => counter.count(messages));
const same = time(() => counter.count(messages));
const again: number[] = [];
for (let run = 0; run < rebuilds; run++) {
  if (run > 0) {
    rebuilt = rebuild();
    gc?.();
  }
  const list = rebuilt;
  again.push(time(() => counter.count(list)));
}
gc?.();
const heapAfter = process.memoryUsage().heapUsed - baseHeap;
const peakRss = Math.round(process.resourceUsage().maxRSS / 1024);
const recount = median(again);
console.log(
  JSON.stringify({
    messages: size,
    rebuild: flags.rebuild,
    shift: flags.shift,
    firstMs: first,
    recountSameObjectsMs: same,
    recountRebuiltMs: Math.round(recount * 10) / 10,
    recountRebuiltRuns: again,
    rebuiltSpeedup: Math.round((first / recount) * 10) / 10,
    listHeapMB: Math.round(listHeap / 1e6),
    heapAfterCountsMB: Math.round(heapAfter / 1e6),
    rssBeforeCountMB: Math.round(rssBefore / 1e6),
    peakRssMB: peakRss,
  }),
);
