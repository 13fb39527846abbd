/**
 * Token counting benchmarks (EV-1, SPEC §5): throughput of chatfold's counter against the raw
 * tokenizer libraries on a mixed corpus from the recorded sessions (interleaved, order rotated,
 * medians); cold count of a 1,000-message agent session with fresh content (a fresh counter
 * per run, against the raw tokenizer on the same texts); recount after appending one message.
 *
 *   node bench/tokens.ts            (writes bench/results/tokens.json)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { countTokens as gptTokenizerCount } from 'gpt-tokenizer/encoding/o200k_base';
import { getEncoding } from 'js-tiktoken';
import { createTokenCounter } from '../src/tokens/create-token-counter.ts';
import { textCorpus } from './corpus.ts';
import { interleaved, load, machine, median } from './harness.ts';
import { messageTexts, scaleSession } from './scale-corpus.ts';

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
type Subject = {
  setup?: () => ReturnType<typeof createTokenCounter>;
  run: (c?: ReturnType<typeof createTokenCounter>) => number;
};
const libraries: Record<string, Subject> = {
  'ai-tokenizer (raw encode)': { run: sum((text) => raw.encode(text, [], []).length) },
  // A fresh counter per run (made before the clock): its content cache would otherwise answer every repeat.
  'chatfold countText': {
    setup: () => createTokenCounter({ tokenizer: 'openai:o200k_base' }),
    run: (counter) => corpus.reduce((total, text) => total + (counter?.countText(text) ?? 0), 0),
  },
  'gpt-tokenizer': { run: sum((text) => gptTokenizerCount(text, { disallowedSpecial: new Set() })) },
  'js-tiktoken': { run: sum((text) => tiktoken.encode(text, [], []).length) },
};
// Interleaved, the order rotated every repetition (none always runs first), medians.
const timed = await interleaved(libraries, { repetitions: 5, warmup: 1 });
const throughput: Record<string, { ms: number; mbPerSecond: number; tokens: number }> = {};
for (const [name, subject] of Object.entries(libraries)) {
  const ms = timed[name]?.ms ?? Number.NaN;
  throughput[name] = {
    ms,
    mbPerSecond: Math.round((mb / (ms / 1000)) * 100) / 100,
    tokens: subject.run(subject.setup?.()),
  };
}
const overhead =
  (throughput['chatfold countText']?.ms ?? 0) / (throughput['ai-tokenizer (raw encode)']?.ms ?? 1) - 1;

// 1,000 messages of the recorded agent sessions with fresh ids and a per-copy marker in every
// text (bench/scale-corpus.ts): a content cache cannot answer a repeat.
const thousand = scaleSession(1000);
const texts = messageTexts(thousand);
const coldTokens = createTokenCounter({ tokenizer: 'openai:o200k_base' }).count(thousand).total;
const coldTimed = await interleaved<ReturnType<typeof createTokenCounter> | undefined>(
  {
    'chatfold count, fresh counter': {
      setup: () => createTokenCounter({ tokenizer: 'openai:o200k_base' }),
      run: (counter) => counter?.count(thousand),
    },
    'ai-tokenizer on the same texts': {
      run: () => texts.reduce((t, text) => t + raw.encode(text, [], []).length, 0),
    },
  },
  { repetitions: 7, warmup: 1 },
);
const cold = coldTimed['chatfold count, fresh counter']?.ms ?? Number.NaN;
const rawCold = coldTimed['ai-tokenizer on the same texts']?.ms ?? Number.NaN;
const warm = createTokenCounter({ tokenizer: 'openai:o200k_base' });
warm.count(thousand);
// Recount after appending one message: the list is built before the clock starts.
const recounts: number[] = [];
let list = thousand;
for (let n = 0; n < 60; n++) {
  list = [
    ...list,
    {
      ...(thousand.at(-1) as (typeof thousand)[number]),
      id: `appended-${n}`,
      parts: [{ type: 'text' as const, text: `one more message number ${n}` }],
    },
  ];
  const start = performance.now();
  warm.count(list);
  if (n >= 10) recounts.push(performance.now() - start);
}
const appendOne = median(recounts);

const result = {
  machine: machine(),
  load: load(),
  corpus: { texts: corpus.length, megabytes: Math.round(mb * 100) / 100 },
  throughput,
  countingOverheadVsRaw: Math.round(overhead * 1000) / 1000,
  coldCount1000Messages: {
    messages: thousand.length,
    tokens: coldTokens,
    ms: cold,
    rawTokenizerMs: rawCold,
    ratio: Math.round((cold / rawCold) * 100) / 100,
  },
  recountAfterAppendingOne: { ms: appendOne },
};
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL('./results/tokens.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
