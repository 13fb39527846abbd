/**
 * Compaction benchmarks (EV-1, SPEC §5):
 * 1. planning time of `compact()` (deterministic `hybrid`, extractive summary) on 1k / 10k /
 *    100k-message sessions built from the recorded agent sessions with fresh ids and a marker
 *    per copy (bench/scale-corpus.ts: no cache can answer a repeat), counter warm (a session
 *    keeps its counter): the first call on these message objects and the repeated call, side
 *    by side (per-object caches make repeats cheaper; a first call is what a turn pays);
 * 2. "keep the newest messages within 64k tokens" on the real 344-message agent session:
 *    LangChain.js `trimMessages` against `trimToTokens` and `compact({ strategy: 'truncate' })`,
 *    interleaved with the order rotated, warm and cold (bench/trim-comparison.ts).
 *
 *   node bench/compaction.ts [--sizes 1000,10000,100000]   (writes bench/results/compaction.json)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createTokenCounter } from '../src/tokens/create-token-counter.ts';
import { recordedConversations } from './corpus.ts';
import { load, machine } from './harness.ts';
import { scaleSession } from './scale-corpus.ts';
import { measurePlanning } from './scale-engine.ts';
import { compareTrimming } from './trim-comparison.ts';

const { values: args } = parseArgs({ options: { sizes: { type: 'string', default: '1000,10000,100000' } } });
const TOKENIZER = 'anthropic:claude';
const started = load();

const planning: Record<
  string,
  { messages: number; tokensBefore: number; tokensAfter: number; firstMs: number; repeatedMs: number }
> = {};
for (const size of (args.sizes ?? '').split(',').map(Number)) {
  const messages = scaleSession(size);
  const counter = createTokenCounter({ tokenizer: TOKENIZER, cacheSize: size + 1000 });
  counter.count(messages); // warm: a live session has counted its messages already
  const { first, firstMs, repeatedMs } = await measurePlanning(messages, counter, size >= 100_000 ? 5 : 11);
  planning[`${size / 1000}k`] = {
    messages: messages.length,
    tokensBefore: first.plan.tokensBefore,
    tokensAfter: first.plan.tokensAfter,
    firstMs: Math.round(firstMs * 10) / 10,
    repeatedMs,
  };
  console.error(`planning ${size}: ${JSON.stringify(planning[`${size / 1000}k`])}`);
}

const session = recordedConversations().reduce((a, b) => (b.length > a.length ? b : a));
const counter = createTokenCounter({ tokenizer: TOKENIZER });
counter.count(session);
const trimming = await compareTrimming({
  messages: session,
  counter,
  tokenizer: TOKENIZER,
  maxTokens: 64_000,
  repetitions: 7,
});

const result = {
  machine: machine(),
  load: { start: started, end: load() },
  planning,
  trimming: { ...trimming, sessionTokens: counter.count(session).total },
};
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/compaction.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
