/**
 * The default policy's numbers (Engine 2): replays every recorded agent session that compacts,
 * at 32k and 128k windows, under candidate (trigger, target) pairs of the `default` preset, and
 * prints the mean share of input tokens saved, the cost with a prompt cache, and how many of
 * the file paths of the compacted messages are still in the prompt. Deterministic (extractive
 * summaries, no LLM): the numbers do not depend on the machine.
 *
 *   node bench/policies.ts
 */
import { recordedAgentSessions, replayAgentSession } from './agent-replays.ts';

const sessions = recordedAgentSessions();
const candidates: [trigger: number, target: number][] = [
  [0.75, 0.5],
  [0.7, 0.45],
  [0.65, 0.45],
  [0.6, 0.4],
];

console.log(
  '| trigger → target | window | sessions compacting | input tokens saved | cost with cache (unmanaged) | paths kept | compactions |',
);
console.log('|---|---|---|---|---|---|---|');
for (const [trigger, target] of candidates) {
  for (const window of [32_000, 128_000]) {
    let count = 0;
    let saved = 0;
    let cost = 0;
    let unmanaged = 0;
    let paths = 0;
    let compactions = 0;
    for (const messages of sessions) {
      const result = await replayAgentSession(messages, window, {
        triggers: [{ fraction: trigger }],
        target: { fraction: target },
      });
      if (result.totals.compactions === 0) continue;
      count++;
      saved += result.totals.savedRatio;
      cost += result.totals.costManagedCachedUSD ?? 0;
      unmanaged += result.totals.costUnmanagedCachedUSD ?? 0;
      paths += result.identifierSurvival.paths ?? 1;
      compactions += result.totals.compactions;
    }
    console.log(
      `| ${Math.round(trigger * 100)} % → ${Math.round(target * 100)} % | ${window / 1000}k | ${count} | ${((saved / count) * 100).toFixed(1)} % | $${cost.toFixed(2)} ($${unmanaged.toFixed(2)}) | ${((paths / count) * 100).toFixed(1)} % | ${compactions} |`,
    );
  }
}
