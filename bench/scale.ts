/**
 * Per-turn cost against history length (issue 10, TOK-6, SPEC §5): sessions of 1k, 10k, 100k
 * and 1M messages built from the recorded agent sessions (fresh ids, a per-copy marker in every
 * text: no content cache can answer a repeat). Each size runs in its own child process:
 * - engine: count cold (a fresh counter per run) against the raw tokenizer on the same texts,
 *   interleaved with the order rotated; recount after appending one message (same objects, and
 *   stateless: every message rebuilt); first and repeated compaction (counter warm);
 *   LangChain.js `trimMessages` against chatfold's `trimToTokens` up to 10k messages;
 * - prepare, once per store (memory, SQLite, PostgreSQL): fill, first `prepare()` (compacts),
 *   `prepare()` warm, a warm turn, a resume; memory against the messages' bytes.
 * Then the growth exponent per operation (least squares on log-log, 10k → 1M).
 *
 * Two series: the real tokenizer up to `--real-max` messages (1M with it takes long), and every
 * size with the chars/4 counter (chatfold's own bookkeeping, no tokenizer time).
 *
 *   node bench/scale.ts [--sizes 1000,10000,100000,1000000] [--tokenizer anthropic:claude]
 *     [--real-max 100000] [--stores memory,sqlite,postgres] [--series real,chars] [--reps 3]
 *     [--trim-max 10000]   (largest session LangChain trimMessages runs on; it is superlinear)
 *
 * Writes bench/results/scale.json and prints markdown tables.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { growthExponent, load, machine } from './harness.ts';
import type { EngineResult } from './scale-engine.ts';
import type { PrepareResult } from './scale-prepare.ts';
import { LANGCHAIN, TRIM_TO_TOKENS, TRUNCATE } from './trim-comparison.ts';

const { values: args } = parseArgs({
  options: {
    child: { type: 'string' },
    size: { type: 'string' },
    store: { type: 'string' },
    sizes: { type: 'string', default: '1000,10000,100000,1000000' },
    tokenizer: { type: 'string', default: 'anthropic:claude' },
    'real-max': { type: 'string', default: '100000' },
    stores: { type: 'string', default: 'memory,sqlite,postgres' },
    series: { type: 'string', default: 'real,chars' },
    reps: { type: 'string', default: '3' },
    'trim-max': { type: 'string', default: '10000' },
    out: { type: 'string', default: 'scale.json' },
  },
});
const APPROXIMATE = 'chars/4';

if (args.child !== undefined) {
  // A child: one measurement, one JSON line on stdout.
  const size = Number(args.size);
  const tokenizer = args.tokenizer ?? APPROXIMATE;
  const result =
    args.child === 'engine'
      ? await (await import('./scale-engine.ts')).runEngine({
          size,
          tokenizer,
          repetitions: Number(args.reps),
          trimMax: Number(args['trim-max']),
        })
      : await (await import('./scale-prepare.ts')).runPrepare({
          size,
          tokenizer,
          store: args.store ?? 'memory',
        });
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  process.exit(0);
}

/** Runs one child process and returns its result line, parsed. */
function child<T>(childArgs: string[], heapMB: number): Promise<T> {
  const script = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      ['--expose-gc', `--max-old-space-size=${heapMB}`, script, ...childArgs],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    proc.on('error', reject);
    proc.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 || line === undefined) reject(new Error(`child ${childArgs.join(' ')} exited ${code}`));
      else resolve(JSON.parse(line.slice('RESULT '.length)) as T);
    });
  });
}

interface SeriesResult {
  readonly tokenizer: string;
  readonly engine: EngineResult[];
  readonly prepare: PrepareResult[];
  readonly errors: string[];
}

const SIZES = (args.sizes ?? '').split(',').map(Number);
const STORES = (args.stores ?? '').split(',').filter(Boolean);
const REAL_MAX = Number(args['real-max']);
const series: Record<string, SeriesResult> = {};
const startedLoad = load();

for (const name of (args.series ?? '').split(',')) {
  const tokenizer = name === 'real' ? (args.tokenizer as string) : APPROXIMATE;
  const sizes = name === 'real' ? SIZES.filter((size) => size <= REAL_MAX) : SIZES;
  const result: SeriesResult = { tokenizer, engine: [], prepare: [], errors: [] };
  series[name] = result;
  for (const size of sizes) {
    const heapMB = size >= 1_000_000 ? 14_000 : size >= 100_000 ? 6000 : 3000;
    const common = ['--size', String(size), '--tokenizer', tokenizer];
    const reps = String(size >= 1_000_000 ? 1 : size >= 100_000 && name === 'real' ? 2 : Number(args.reps));
    try {
      const engine = await child<EngineResult>(
        ['--child', 'engine', ...common, '--reps', reps, '--trim-max', String(args['trim-max'])],
        heapMB,
      );
      result.engine.push(engine);
      console.error(`[${name} ${size}] engine ${JSON.stringify(engine)}`);
    } catch (error) {
      result.errors.push(`engine ${size}: ${(error as Error).message}`);
    }
    for (const store of STORES) {
      try {
        const prepared = await child<PrepareResult>(
          ['--child', 'prepare', ...common, '--store', store],
          heapMB,
        );
        result.prepare.push(prepared);
        console.error(`[${name} ${size}] prepare ${JSON.stringify(prepared)}`);
      } catch (error) {
        result.errors.push(`prepare ${store} ${size}: ${(error as Error).message}`);
      }
    }
  }
}

/** Exponent of one metric over the sizes from 10k up. */
const exponentOf = <T extends { messages: number }>(rows: readonly T[], value: (row: T) => number) =>
  growthExponent(
    rows.filter((row) => row.messages >= 10_000).map((row) => ({ size: row.messages, value: value(row) })),
  );

const exponents = Object.fromEntries(
  Object.entries(series).map(([name, s]) => {
    const engine = {
      countCold: exponentOf(s.engine, (r) => r.countCold.chatfoldMs),
      rawTokenizer: exponentOf(s.engine, (r) => r.countCold.rawTokenizerMs),
      encoder: exponentOf(s.engine, (r) => r.countCold.encoderMs),
      recountSameObjects: exponentOf(s.engine, (r) => r.recount.sameObjectsMs),
      recountExtend: exponentOf(s.engine, (r) => r.recount.extendMs),
      recountStateless: exponentOf(s.engine, (r) => r.recount.statelessMs),
      compactionFirst: exponentOf(s.engine, (r) => r.compaction.firstMs),
      compactionRepeated: exponentOf(s.engine, (r) => r.compaction.repeatedMs),
      peakRss: exponentOf(s.engine, (r) => r.peakRssMB),
    };
    const stores = Object.fromEntries(
      STORES.map((store) => {
        const rows = s.prepare.filter((r) => r.store === store);
        return [
          store,
          {
            prepareWarm: exponentOf(rows, (r) => r.prepareWarmMs),
            turnWarm: exponentOf(rows, (r) => r.turnWarmMs),
            append: exponentOf(rows, (r) => r.appendMs),
            resume: exponentOf(rows, (r) => r.resumeMs),
            firstPrepare: exponentOf(rows, (r) => r.firstPrepareMs),
          },
        ];
      }),
    );
    return [name, { engine, stores }];
  }),
);

const results = {
  machine: machine(),
  load: { start: startedLoad, end: load() },
  note: 'Sessions built from the two recorded Claude Code agent sessions (test/fixtures/claude-code), ~2.2 KB of JSON per message, fresh ids and a per-copy marker in every text. Each size and store in its own child process. Counter warm for compaction (a live session has counted its messages); "first" is the first compaction of these message objects, "repeated" the same call again (per-object caches warm). Exponents: least squares on log-log over the sizes from 10k.',
  series,
  exponents,
};
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL(`./results/${args.out}`, import.meta.url), `${JSON.stringify(results, null, 2)}\n`);

const n = (value: number | undefined): string =>
  value === undefined || Number.isNaN(value)
    ? '—'
    : value >= 100
      ? String(Math.round(value))
      : String(Math.round(value * 100) / 100);
const lines: string[] = [];
for (const [name, s] of Object.entries(series)) {
  const e = exponents[name]?.engine;
  lines.push(
    `\n### ${name === 'real' ? `real tokenizer (${s.tokenizer})` : 'chars/4 counter (chatfold bookkeeping only)'}\n`,
    '| messages | count cold ms | tiktoken ms | ratio | chatfold encoder on the texts ms | count / encoder | recount +1 (same objects) ms | +1 via extendTokenCount ms | recount +1 (stateless) ms | first compaction ms | repeated compaction ms | peak RSS MB | message MB |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...s.engine.map(
      (r) =>
        `| ${r.messages.toLocaleString('en')} | ${n(r.countCold.chatfoldMs)} | ${n(r.countCold.rawTokenizerMs)} | ${r.countCold.ratio.toFixed(2)} | ${n(r.countCold.encoderMs)} | ${r.countCold.overhead?.toFixed(2) ?? '—'} | ${n(r.recount.sameObjectsMs)} | ${n(r.recount.extendMs)} | ${n(r.recount.statelessMs)} | ${n(r.compaction.firstMs)} | ${n(r.compaction.repeatedMs)} | ${r.peakRssMB} | ${n(r.messageBytes / 1e6)} |`,
    ),
    `| exponent 10k→ | ${n(e?.countCold)} | ${n(e?.rawTokenizer)} | | ${n(e?.encoder)} | | ${n(e?.recountSameObjects)} | ${n(e?.recountExtend)} | ${n(e?.recountStateless)} | ${n(e?.compactionFirst)} | ${n(e?.compactionRepeated)} | ${n(e?.peakRss)} | |`,
    '',
    '| store | messages | fill msg/s | first prepare() ms | prepare() warm ms | append 1 + prepare() warm ms | of which append ms | resume ms | projection | live memory MB | RSS growth MB | message MB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...s.prepare.map(
      (r) =>
        `| ${r.store} | ${r.messages.toLocaleString('en')} | ${r.fillPerSecond} | ${n(r.firstPrepareMs)} | ${n(r.prepareWarmMs)} | ${n(r.turnWarmMs)} | ${n(r.appendMs)} | ${n(r.resumeMs)} | ${r.projectionMessages} | ${r.liveGrowthMB} | ${r.rssGrowthMB} | ${n(r.messageBytes / 1e6)} |`,
    ),
    ...STORES.map((store) => {
      const x = exponents[name]?.stores[store];
      return `| ${store} exponent 10k→ | | | ${n(x?.firstPrepare)} | ${n(x?.prepareWarm)} | ${n(x?.turnWarm)} | ${n(x?.append)} | ${n(x?.resume)} | | | | |`;
    }),
  );
  const trims = s.engine.flatMap((r) => (r.trimming === undefined ? [] : [r.trimming]));
  if (trims.length > 0) {
    lines.push(
      '',
      `| messages | trimMessages warm ms | trimToTokens warm ms | ratio | compact truncate warm ms | ratio | trimMessages cold ms | trimToTokens cold ms | ratio | compact truncate cold ms | ratio | kept (LC / trimToTokens / truncate) | problems (LC / trimToTokens / truncate) |`,
      '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
      ...trims.map((t) => {
        const w = (name: string) => t.warm[name];
        const c = (name: string) => t.cold[name]?.ms;
        const problems = [LANGCHAIN, TRIM_TO_TOKENS, TRUNCATE].map(
          (name) => w(name)?.problems.join(', ') || 'none',
        );
        return `| ${t.messages.toLocaleString('en')} | ${n(w(LANGCHAIN)?.ms)} | ${n(w(TRIM_TO_TOKENS)?.ms)} | ${n(t.speedup.warm[TRIM_TO_TOKENS])}× | ${n(w(TRUNCATE)?.ms)} | ${n(t.speedup.warm[TRUNCATE])}× | ${n(c(LANGCHAIN))} | ${n(c(TRIM_TO_TOKENS))} | ${n(t.speedup.cold[TRIM_TO_TOKENS])}× | ${n(c(TRUNCATE))} | ${n(t.speedup.cold[TRUNCATE])}× | ${w(LANGCHAIN)?.kept} / ${w(TRIM_TO_TOKENS)?.kept} / ${w(TRUNCATE)?.kept} | ${problems.join(' / ')} |`;
      }),
    );
  }
  if (s.errors.length > 0) lines.push('', `errors: ${s.errors.join('; ')}`);
}
console.log(lines.join('\n'));
