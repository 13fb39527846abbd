import type { CompactionReport } from '../../compaction/types.ts';
import { plural } from '../plural.ts';

const count = (n: number): string => n.toLocaleString('en-US');

/** `0.4 s` */
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/**
 * What a compaction did, in one line (seed 000 §4.2 visible events):
 * `history compacted: 41 messages → summary, 35,375 → 9,744 tokens, 0.4 s`.
 */
export function compactionLine(report: CompactionReport, durationMs: number): string {
  if (!report.compacted) {
    return `history not compacted: ${report.cancelled ? 'cancelled by beforeCompact' : report.reason}`;
  }
  const stage = (name: string) => report.stages.find((effect) => effect.stage === name);
  const summarized = stage('summarize')?.summarized ?? 0;
  const stubbed = report.stages.reduce((sum, effect) => sum + effect.stubbed, 0);
  const masked = report.stages.reduce((sum, effect) => sum + effect.masked, 0);
  const dropped = report.stages.reduce((sum, effect) => sum + effect.dropped, 0) - summarized;
  const what: string[] = [];
  if (summarized > 0) what.push(`${plural(summarized, 'message')} → summary`);
  if (stubbed > 0) what.push(`${plural(stubbed, 'stale tool output')} stubbed`);
  if (masked > 0) what.push(`${plural(masked, 'old tool output')} masked`);
  if (dropped > 0 && summarized === 0) what.push(`${plural(dropped, 'message')} left out`);
  if (what.length === 0)
    what.push(`${count(report.messagesBefore)} → ${plural(report.messagesAfter, 'message')}`);
  const source = report.summary?.source === 'extractive' && summarized > 0 ? ' (extractive summary)' : '';
  // `~`: a history far above the window is counted newest first and its oldest part estimated.
  const before = `${report.tokensBeforeEstimated === true ? '~' : ''}${count(report.tokensBefore)}`;
  return `history compacted: ${what.join(', ')}${source}, ${before} → ${count(report.tokensAfter)} tokens, ${seconds(durationMs)}`;
}
