/**
 * Token counting benchmarks (EV-1, TOK-8, SPEC §5), all `o200k_base`, special-token strings
 * counted as text, every comparison interleaved in one run (order rotated, medians):
 *
 * 1. throughput of chatfold against the raw tokenizer libraries on a mixed corpus from the
 *    recorded sessions, with each library's token total and how many texts it counts
 *    differently from the reference (tiktoken, OpenAI's Rust tokenizer in WebAssembly);
 * 2. long inputs: 1M characters of prose, of random base64, of one repeated letter, and 40,000
 *    `=` (one pre-token each for the last two: quadratic for the libraries), with how the time
 *    grows with the length;
 * 3. start-up: a fresh process that loads the encoding and counts one word, per library, and
 *    `chatfold count` on a two-message file (needs `npm run build`);
 * 4. a cold count of a 1,000-message agent session and the recount after appending one.
 *
 * ai-tokenizer (chatfold's tokenizer until issue 14) is no dependency any more; it joins the
 * comparison when installed: `npm install --no-save --legacy-peer-deps ai-tokenizer@1.0.6`.
 *
 *   node bench/tokens.ts [--quick]     (writes bench/results/tokens.json)
 *   node bench/tokens.ts --long        (only 2., with each long input's time over prose's; writes nothing)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { countTokens as gptTokenizerCount } from 'gpt-tokenizer/encoding/o200k_base';
import { getEncoding } from 'js-tiktoken';
import { createTokenCounter } from '../src/tokens/create-token-counter.ts';
import { loadEncoding } from '../src/tokens/encodings.ts';
import { randomBase64 } from '../test/fixtures/tokens/random-base64.ts';
import { recordedConversations, textCorpus } from './corpus.ts';
import { growthExponent, interleaved, load, machine, median } from './harness.ts';
import { messageTexts, scaleSession } from './scale-corpus.ts';

const { values: flags } = parseArgs({ options: { quick: { type: 'boolean' }, long: { type: 'boolean' } } });
const require = createRequire(import.meta.url);
const root = new URL('../', import.meta.url).pathname;
const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

type Count = (text: string) => number;

/** ai-tokenizer when installed (see the header), else undefined. */
function aiTokenizer(): Count | undefined {
  try {
    const { Tokenizer } = require('ai-tokenizer') as {
      Tokenizer: new (data: unknown) => { encode(t: string, a?: string[], d?: string[]): number[] };
    };
    const data = require('ai-tokenizer/encoding/o200k_base') as { default?: unknown };
    const raw = new Tokenizer(data.default ?? data);
    return (text) => raw.encode(text, [], []).length;
  } catch {
    return undefined;
  }
}

const tiktoken = (
  require('tiktoken') as {
    get_encoding(name: string): { encode(t: string, a: string[], d: string[]): Uint32Array };
  }
).get_encoding('o200k_base');
const jsTiktoken = getEncoding('o200k_base');
const reference: Count = (text) => tiktoken.encode(text, [], []).length;
const chatfoldEncoder = loadEncoding('o200k_base');
const noSpecial = new Set<string>();

/** Every library's plain count of one text (chatfold's bare encoder: no content cache). */
const libraries: Record<string, Count> = {
  'chatfold encoder': chatfoldEncoder,
  'tiktoken (wasm)': reference,
  'gpt-tokenizer': (text) => gptTokenizerCount(text, { disallowedSpecial: noSpecial }),
  'js-tiktoken': (text) => jsTiktoken.encode(text, [], []).length,
};
const ai = aiTokenizer();
if (ai !== undefined) libraries['ai-tokenizer'] = ai;

// --- 1. throughput on the mixed corpus -----------------------------------------------------
const corpus = textCorpus();
const corpusMB = corpus.reduce((sum, text) => sum + Buffer.byteLength(text), 0) / 1e6;
type Counter = ReturnType<typeof createTokenCounter>;
const corpusSubjects: Record<string, { setup?: () => Counter; run: (counter: Counter) => number }> = {
  // A fresh counter per run (made before the clock): its content cache would answer repeats.
  'chatfold countText': {
    setup: () => createTokenCounter({ tokenizer: 'openai:o200k_base' }),
    run: (counter) => corpus.reduce((total, text) => total + counter.countText(text), 0),
  },
};
for (const [name, count] of Object.entries(libraries))
  corpusSubjects[name] = { run: () => corpus.reduce((total, text) => total + count(text), 0) };
const corpusTimed = flags.long
  ? {}
  : await interleaved(corpusSubjects, { repetitions: flags.quick ? 3 : 7, warmup: 1 });
const throughput: Record<
  string,
  { ms: number; mbPerSecond: number; tokens: number; textsDiffering?: number }
> = {};
for (const [name, subject] of Object.entries(flags.long ? {} : corpusSubjects)) {
  const ms = (corpusTimed as Record<string, { ms: number }>)[name]?.ms ?? Number.NaN;
  const count = libraries[name];
  throughput[name] = {
    ms,
    mbPerSecond: round(corpusMB / (ms / 1000)),
    tokens: subject.run(createTokenCounter({ tokenizer: 'openai:o200k_base' })),
    ...(count === undefined
      ? {}
      : { textsDiffering: corpus.filter((t) => count(t) !== reference(t)).length }),
  };
}

// --- 2. long inputs --------------------------------------------------------------------------
const MILLION = flags.quick ? 200_000 : 1_000_000;
function randomLetters(chars: number): string {
  let seed = 19;
  let out = '';
  for (let i = 0; i < chars; i++) {
    seed = Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5;
    out += String.fromCharCode(97 + ((seed >>> 8) % 26));
  }
  return out;
}
function prose(chars: number): string {
  const texts: string[] = [];
  for (const conversation of recordedConversations())
    for (const message of conversation)
      if (message.role === 'user' || message.role === 'assistant')
        for (const part of message.parts) if (part.type === 'text') texts.push(part.text);
  let out = '';
  while (out.length < chars) out += `${texts.join('\n\n')}\n\n`;
  return out.slice(0, chars);
}
const longInputs: Record<string, string> = {
  [`${MILLION.toLocaleString('en-US')} chars of prose`]: prose(MILLION),
  [`${MILLION.toLocaleString('en-US')} chars of random base64`]: randomBase64(MILLION),
  [`${MILLION.toLocaleString('en-US')} × 'x'`]: 'x'.repeat(MILLION),
  [`${MILLION.toLocaleString('en-US')} × '='`]: '='.repeat(MILLION),
  // One pre-token of random lowercase letters: every pair of letters, merges all over the run.
  [`${MILLION.toLocaleString('en-US')} random lowercase letters`]: randomLetters(MILLION),
  "40,000 × '='": '='.repeat(40_000),
};
/**
 * One pre-token each: every run gets a run one character longer, so no library's merge cache
 * answers a repeat (gpt-tokenizer and ai-tokenizer keep whole pre-tokens: 0.06 ms the second time).
 */
const onePiece = new Set([
  `${MILLION.toLocaleString('en-US')} × 'x'`,
  `${MILLION.toLocaleString('en-US')} × '='`,
  `${MILLION.toLocaleString('en-US')} random lowercase letters`,
  "40,000 × '='",
]);
/** Quadratic libraries that cannot finish an input in minutes (js-tiktoken took 160 s on 40,000 '='). */
const skipped: Record<string, readonly string[]> = {
  [`${MILLION.toLocaleString('en-US')} × 'x'`]: [
    'tiktoken (wasm)',
    'gpt-tokenizer',
    'js-tiktoken',
    'ai-tokenizer',
  ],
  "40,000 × '='": ['js-tiktoken'],
};
for (const label of [
  `${MILLION.toLocaleString('en-US')} × '='`,
  `${MILLION.toLocaleString('en-US')} random lowercase letters`,
])
  skipped[label] = skipped[`${MILLION.toLocaleString('en-US')} × 'x'`] as readonly string[];
const long: Record<string, Record<string, { ms: number; tokens: number }>> = {};
for (const [label, text] of Object.entries(longInputs)) {
  let runs = 0;
  const input = () => (onePiece.has(label) ? text + (text[0] as string).repeat(++runs) : text);
  const subjects: Record<string, { setup: () => string; run: (input: string) => number }> = {};
  for (const [name, count] of Object.entries(libraries))
    if (!skipped[label]?.includes(name)) subjects[name] = { setup: input, run: count };
  const timed = await interleaved(subjects, { repetitions: 3 });
  long[label] = Object.fromEntries(
    Object.keys(subjects).map((name) => [
      name,
      { ms: timed[name]?.ms ?? Number.NaN, tokens: (libraries[name] as Count)(text) },
    ]),
  );
  console.error(`long input ${label}: done`);
}
// A long input's time over prose of the same length (issue 19: a run without breaks ≤ 3×),
// chatfold's encoder alone, the inputs interleaved in one block (the ratio sees the same load).
let extra = 0;
const againstProse = await interleaved(
  Object.fromEntries(
    Object.entries(longInputs).map(([label, text]) => [
      label,
      {
        setup: () => (onePiece.has(label) ? text + (text[0] as string).repeat(++extra) : text),
        run: (input: string) => chatfoldEncoder(input),
      },
    ]),
  ),
  { repetitions: flags.quick ? 3 : 9, warmup: 1 },
);
const proseMs = againstProse[`${MILLION.toLocaleString('en-US')} chars of prose`]?.ms ?? Number.NaN;
const overProse = Object.fromEntries(
  Object.entries(againstProse).map(([label, { ms }]) => [label, { ms, overProse: round(ms / proseMs) }]),
);
if (flags.long) {
  console.log(
    JSON.stringify(
      { machine: machine(), load: load(), longInputs: long, chatfoldOverProse: overProse },
      null,
      2,
    ),
  );
  process.exit(0);
}
// Growth with the length of one pre-token: chatfold to a million, the reference as far as it goes.
const growth = (count: Count, sizes: number[]) => {
  const points = sizes.map((size) => {
    const text = 'x'.repeat(size);
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const start = performance.now();
      count(text);
      times.push(performance.now() - start);
    }
    return { size, value: median(times) };
  });
  return { points, exponent: round(growthExponent(points) ?? Number.NaN) };
};
const repeatedGrowth = {
  chatfold: growth(chatfoldEncoder, [10_000, 100_000, MILLION]),
  'tiktoken (wasm)': growth(reference, [5_000, 10_000, 20_000]),
};

// --- 3. start-up --------------------------------------------------------------------------------
const startupScripts: Record<string, string> = {
  'node, nothing loaded': '',
  // The built module (`npm run build`): importing src/ would time Node's TypeScript stripping.
  'chatfold encoder': `const { loadEncoding } = await import(${JSON.stringify(existsSync(`${root}dist/tokens/encodings.js`) ? `${root}dist/tokens/encodings.js` : `${root}src/tokens/encodings.ts`)}); loadEncoding('o200k_base')('hello');`,
  'tiktoken (wasm)': `const { createRequire } = await import('node:module'); createRequire(${JSON.stringify(`${root}package.json`)})('tiktoken').get_encoding('o200k_base').encode('hello');`,
  'gpt-tokenizer': `const m = await import('gpt-tokenizer/encoding/o200k_base'); m.countTokens('hello');`,
  'js-tiktoken': `const { getEncoding } = await import('js-tiktoken'); getEncoding('o200k_base').encode('hello');`,
};
if (ai !== undefined)
  startupScripts['ai-tokenizer'] =
    `const { createRequire } = await import('node:module'); const r = createRequire(${JSON.stringify(`${root}package.json`)}); const d = r('ai-tokenizer/encoding/o200k_base'); new (r('ai-tokenizer').Tokenizer)(d.default ?? d).encode('hello', [], []);`;
const scratch = mkdtempSync(join(tmpdir(), 'chatfold-bench-'));
const smallFile = join(scratch, 'small.json');
writeFileSync(
  smallFile,
  JSON.stringify([
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'Hello!' },
  ]),
);
const cli = `${root}dist/cli/main.js`;
const startupCommands: Record<string, { args: string[]; env?: Record<string, string> }> = {};
for (const [name, script] of Object.entries(startupScripts))
  startupCommands[name] = { args: ['--input-type=module', '-e', script] };
if (existsSync(cli)) {
  startupCommands['chatfold --help'] = { args: [cli, '--help'] };
  startupCommands['chatfold count (gpt-4o)'] = { args: [cli, 'count', smallFile, '--model', 'gpt-4o'] };
  startupCommands['chatfold count (claude)'] = {
    args: [cli, 'count', smallFile, '--model', 'claude-sonnet-4-5'],
  };
  // The bin turns Node's compile cache on (src/cli/main.ts); this row shows what it saves.
  startupCommands['chatfold count (gpt-4o), compile cache off'] = {
    args: [cli, 'count', smallFile, '--model', 'gpt-4o'],
    env: { NODE_DISABLE_COMPILE_CACHE: '1' },
  };
} else console.error('bench/tokens: no dist/ (run `npm run build`): the chatfold CLI rows are left out');
const startupTimed = await interleaved(
  Object.fromEntries(
    Object.entries(startupCommands).map(([name, { args, env }]) => [
      name,
      {
        run: () => {
          const result = spawnSync(process.execPath, args, {
            cwd: root,
            env: { ...process.env, ...env },
            encoding: 'utf8',
          });
          if (result.status !== 0) throw new Error(`${name}: exit ${result.status}: ${result.stderr}`);
        },
      },
    ]),
  ),
  { repetitions: flags.quick ? 3 : 9, warmup: 1 },
);
rmSync(scratch, { recursive: true, force: true });
const startup = Object.fromEntries(Object.entries(startupTimed).map(([name, { ms }]) => [name, { ms }]));

// --- 4. a cold 1,000-message session and the recount after one more ---------------------------
// 1,000 messages of the recorded agent sessions with fresh ids and a per-copy marker in every
// text (bench/scale-corpus.ts): a content cache cannot answer a repeat.
const thousand = scaleSession(1000);
const texts = messageTexts(thousand);
const coldTokens = createTokenCounter({ tokenizer: 'openai:o200k_base' }).count(thousand).total;
const coldTimed = await interleaved<Counter | undefined>(
  {
    'chatfold count, fresh counter': {
      setup: () => createTokenCounter({ tokenizer: 'openai:o200k_base' }),
      run: (counter) => counter?.count(thousand),
    },
    'tiktoken on the same texts': { run: () => texts.reduce((t, text) => t + reference(text), 0) },
  },
  { repetitions: 7, warmup: 1 },
);
const cold = coldTimed['chatfold count, fresh counter']?.ms ?? Number.NaN;
const rawCold = coldTimed['tiktoken on the same texts']?.ms ?? Number.NaN;
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

const result = {
  machine: machine(),
  load: load(),
  corpus: { texts: corpus.length, megabytes: round(corpusMB) },
  throughput,
  longInputs: long,
  chatfoldOverProse: overProse,
  repeatedLetterGrowth: repeatedGrowth,
  startup,
  coldCount1000Messages: {
    messages: thousand.length,
    tokens: coldTokens,
    ms: cold,
    rawTokenizerMs: rawCold,
    ratio: round(cold / rawCold),
  },
  recountAfterAppendingOne: { ms: median(recounts) },
};
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
if (!flags.quick)
  writeFileSync(new URL('./results/tokens.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
