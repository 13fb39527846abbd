/**
 * EV-2: replays every recorded session at 32k and 128k windows with the default `hybrid`
 * pipeline and the offline extractive summarizer; writes the `chatfold replay --json` report
 * and the SVG chart per run to bench/replays/, and a summary table to stdout.
 *
 *   node bench/replays.ts
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';

const root = new URL('../test/fixtures/', import.meta.url).pathname;
const out = new URL('./replays/', import.meta.url).pathname;
const cli = new URL('../src/cli/main.ts', import.meta.url).pathname;
const files = [
  ...readdirSync(`${root}claude-code`, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.jsonl'))
    .map((file) => `claude-code/${file}`),
  'swe-agent/marshmallow-1867.function-calling.openai.json',
].sort();

const rows: string[] = [
  '| session | window | calls | compactions | saved | peak | paths kept | commands kept | cost unmanaged (cached) | cost chatfold (cached) | fits / valid / goal |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
];
for (const file of files) {
  for (const window of [32_000, 128_000]) {
    const name = `${basename(file).replace(/\.(jsonl|json)$/, '')}-${window / 1000}k`;
    const json = execFileSync(
      process.execPath,
      [cli, 'replay', `${root}${file}`, '--window', String(window), '--json', '--chart', `${out}${name}.svg`],
      {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    writeFileSync(`${out}${name}.json`, json);
    const r = JSON.parse(json);
    const t = r.totals;
    const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)} %`);
    const usd = (v: number | null) => (v === null ? '–' : `$${v.toFixed(2)}`);
    rows.push(
      `| ${basename(file).slice(0, 28)} | ${window / 1000}k | ${r.turns} | ${t.compactions} | ${pct(t.savedRatio)} | ${t.peakTokens.toLocaleString('en-US')} | ${pct(r.identifierSurvival.paths)} | ${pct(r.identifierSurvival.commands)} | ${usd(t.costUnmanagedUSD)} (${usd(t.costUnmanagedCachedUSD)}) | ${usd(t.costManagedUSD)} (${usd(t.costManagedCachedUSD)}) | ${r.invariants.allFit && r.invariants.allValid && r.invariants.goalKept ? 'yes' : 'NO'} |`,
    );
  }
}
process.stdout.write(`${rows.join('\n')}\n`);
