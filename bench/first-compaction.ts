/**
 * A cold first `compact()` of a long history (issue 19 §3): a session of N messages built from
 * the recorded sessions, a fresh counter, a 64k window, the extractive summary (no model).
 * Reports the time, the process's peak RSS over the RSS before the call, and the message bytes.
 *
 *   node --expose-gc bench/first-compaction.ts 100000   (one size per process)
 */
import { compact } from '../src/compaction/compact.ts';
import { createTokenCounter } from '../src/tokens/create-token-counter.ts';
import { messageBytes, scaleSession } from './scale-corpus.ts';

const size = Number(process.argv[2] ?? 5000);
const messages = scaleSession(size);
const bytes = messageBytes(messages);
(globalThis as { gc?: () => void }).gc?.();
const rssBefore = process.memoryUsage().rss;
const counter = createTokenCounter({ tokenizer: 'anthropic:claude' });
const start = performance.now();
const { plan } = await compact(messages, { window: 64_000, counter });
const ms = Math.round(performance.now() - start);
const peak = process.resourceUsage().maxRSS * 1024;
console.log(
  JSON.stringify({
    messages: size,
    messageMB: Math.round(bytes / 1e6),
    firstCompactionMs: ms,
    compacted: plan.compacted,
    tokensBefore: plan.tokensBefore,
    tokensAfter: plan.tokensAfter,
    rssBeforeMB: Math.round(rssBefore / 1e6),
    peakRssOverInputMB: Math.round((peak - rssBefore) / 1e6),
  }),
);
