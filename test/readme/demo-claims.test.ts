/**
 * The README's numbers are the demo's (issue 20): `npm run demo` replays the bundled Claude Code
 * session at a 32k window, and the README quotes the share of input tokens saved and the input
 * cost before and after. This runs the same replay through the built CLI (`npm test` builds
 * first) and checks the quoted numbers, so a change to compaction cannot leave them stale.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runChatfold } from '../cli/run-chatfold.ts';

const root = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');

describe('the README quotes the demo', () => {
  it('saved share and input cost as `npm run demo` prints them', async () => {
    const run = await runChatfold([
      'replay',
      new URL('examples/sessions/claude-code-long.jsonl', root).pathname,
      '--window',
      '32000',
      '--json',
    ]);
    expect(run.code).toBe(0);
    const { turns, totals, invariants } = JSON.parse(run.stdout);
    expect(invariants).toEqual({ allFit: true, allValid: true, goalKept: true });
    const dollars = (value: number) => `$${value.toFixed(2)}`;
    // The README's sentence, read back: "(N model calls that reached Pk tokens) … chatfold sent
    // S % fewer input tokens ($U → $M)".
    const quoted =
      /\((\d+) model calls that reached (\d+)k tokens\)[\s\S]*?chatfold sent (\d+) % fewer input tokens \((\$[\d.]+) → (\$[\d.]+)\)/.exec(
        readme,
      );
    expect(quoted, 'the README no longer quotes the demo in the expected words').not.toBeNull();
    expect(quoted?.slice(1)).toEqual([
      String(turns),
      String(Math.round(totals.unmanagedPeakTokens / 1000)),
      String(Math.floor(totals.savedRatio * 100)),
      dollars(totals.costUnmanagedUSD),
      dollars(totals.costManagedUSD),
    ]);
  }, 120_000);
});
