/**
 * Counting the same long list twice (issue 19 §3): a fresh counter counts a session of N
 * messages built from the recorded sessions (bench/scale-corpus.ts: no two copies share
 * content), then counts it again — the same objects, and rebuilt (equal content in new objects,
 * as a stateless caller converts its history on every call). Reports milliseconds, the ratio
 * first / recount, and the process's peak RSS and heap over the list.
 *
 *   node bench/recount.ts 100000     (one size per process: peak memory is per process)
 */

import { createTokenCounter } from '../src/tokens/create-token-counter.ts';
import { scaleSession } from './scale-corpus.ts';

const size = Number(process.argv[2] ?? 5000);
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const baseHeap = process.memoryUsage().heapUsed;
const messages = scaleSession(size);
const rebuilt = messages.map((message) => ({
  ...message,
  parts: message.parts.map((part) => ({ ...part })),
}));
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
const again = time(() => counter.count(rebuilt));
gc?.();
const heapAfter = process.memoryUsage().heapUsed - baseHeap;
const peakRss = Math.round(process.resourceUsage().maxRSS / 1024);
console.log(
  JSON.stringify({
    messages: size,
    firstMs: first,
    recountSameObjectsMs: same,
    recountRebuiltMs: again,
    rebuiltSpeedup: Math.round((first / again) * 10) / 10,
    listHeapMB: Math.round(listHeap / 1e6),
    heapAfterCountsMB: Math.round(heapAfter / 1e6),
    rssBeforeCountMB: Math.round(rssBefore / 1e6),
    peakRssMB: peakRss,
  }),
);
