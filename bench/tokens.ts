/**
 * Token counting benchmarks (EV-1, SPEC §5): throughput of chatfold's counter against the raw
 * tokenizer libraries on a mixed corpus from the recorded sessions; cold count of a
 * 1,000-message conversation; recount after appending one message.
 *
 *   node bench/tokens.ts            (writes bench/results/tokens.json)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { countTokens as gptTokenizerCount } from 'gpt-tokenizer/encoding/o200k_base';
import { getEncoding } from 'js-tiktoken';
import { createTokenCounter } from '../src/tokens/create-token-counter.ts';
import { syntheticSession, textCorpus } from './corpus.ts';
import { machine, medianMs } from './harness.ts';

const require = createRequire(import.meta.url);
const corpus = textCorpus();
const bytes = corpus.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
const mb = bytes / 1e6;

const { Tokenizer } = require('ai-tokenizer') as {
  Tokenizer: new (data: unknown) => { encode(t: string, a?: string[], d?: string[]): number[] };
};
const encodingModule = require('ai-tokenizer/encoding/o200k_base') as { default?: unknown };
const raw = new Tokenizer(encodingModule.default ?? encodingModule);
const tiktoken = getEncoding('o200k_base');

const sum = (fn: (text: string) => number) => () => corpus.reduce((total, text) => total + fn(text), 0);
const libraries = {
  'ai-tokenizer (raw encode)': sum((text) => raw.encode(text, [], []).length),
  // A fresh counter per run: its content cache would otherwise answer every repeat for free.
  'chatfold countText': () => {
    const counter = createTokenCounter({ tokenizer: 'openai:o200k_base' });
    return corpus.reduce((total, text) => total + counter.countText(text), 0);
  },
  'gpt-tokenizer': sum((text) => gptTokenizerCount(text, { disallowedSpecial: new Set() })),
  'js-tiktoken': sum((text) => tiktoken.encode(text, [], []).length),
};
const throughput: Record<string, { ms: number; mbPerSecond: number; tokens: number }> = {};
for (const [name, fn] of Object.entries(libraries)) {
  const ms = await medianMs(fn, { runs: 5, warmup: 1 });
  throughput[name] = { ms, mbPerSecond: Math.round((mb / (ms / 1000)) * 100) / 100, tokens: fn() };
}
const overhead =
  (throughput['chatfold countText']?.ms ?? 0) / (throughput['ai-tokenizer (raw encode)']?.ms ?? 1) - 1;

const thousand = syntheticSession(1000);
const coldTokens = createTokenCounter({ tokenizer: 'openai:o200k_base' }).count(thousand).total;
const cold = await medianMs(() => createTokenCounter({ tokenizer: 'openai:o200k_base' }).count(thousand), {
  runs: 7,
  warmup: 1,
});
const warm = createTokenCounter({ tokenizer: 'openai:o200k_base' });
warm.count(thousand);
let n = 0;
const appendOne = await medianMs(
  () => {
    const next = {
      ...(thousand.at(-1) as (typeof thousand)[number]),
      id: `appended-${n}`,
      parts: [{ type: 'text' as const, text: `one more message number ${n++}` }],
    };
    return warm.count([...thousand, next]);
  },
  { runs: 50, warmup: 5 },
);

const result = {
  machine: machine(),
  corpus: { texts: corpus.length, megabytes: Math.round(mb * 100) / 100 },
  throughput,
  countingOverheadVsRaw: Math.round(overhead * 1000) / 1000,
  coldCount1000Messages: { messages: thousand.length, tokens: coldTokens, ms: cold },
  recountAfterAppendingOne: { ms: appendOne },
};
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/tokens.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
