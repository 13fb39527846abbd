/**
 * Where compactions land (issue 19 §1): replays every recorded agent session that compacts under
 * the default policy at 16k, 32k, 64k and 128k windows (extractive summaries, deterministic)
 * and prints the prompt after each compaction as a share of the window and of the policy's
 * target (p10 / median / p90), the paths kept and the cost with a prompt cache.
 *
 *   node bench/landing.ts
 */
import { recordedAgentSessions, replayAgentSession } from './agent-replays.ts';

const sessions = recordedAgentSessions();
const quantile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1)))] ?? Number.NaN;
};
const percent = (value: number): string => `${Math.round(value * 100)} %`;

console.log(
  '| window | compactions | share of the window p10 / median / p90 | of the target p10 / median / p90 | paths kept | cost with cache |',
);
console.log('|---|---:|---:|---:|---:|---:|');
for (const window of [16_000, 32_000, 64_000, 128_000]) {
  const ofWindow: number[] = [];
  const ofTarget: number[] = [];
  let paths = 0;
  let sessionsCompacting = 0;
  let cost = 0;
  for (const messages of sessions) {
    const result = await replayAgentSession(messages, window);
    if (result.totals.compactions === 0) continue;
    sessionsCompacting++;
    paths += result.identifierSurvival.paths ?? 1;
    cost += result.totals.costManagedCachedUSD ?? 0;
    for (const compaction of result.compactions) {
      ofWindow.push(compaction.tokensAfter / window);
      ofTarget.push(compaction.tokensAfter / result.target);
    }
  }
  const spread = (values: number[]) => [0.1, 0.5, 0.9].map((p) => percent(quantile(values, p))).join(' / ');
  console.log(
    `| ${window / 1000}k | ${ofWindow.length} | ${spread(ofWindow)} | ${spread(ofTarget)} | ${((paths / sessionsCompacting) * 100).toFixed(1)} % | $${cost.toFixed(2)} |`,
  );
}
