import type { SessionStatus } from '../../session/types.ts';
import type { UnderReportReason } from '../../tokens/calibrated-counter.ts';
import { plural } from '../plural.ts';
import { createStyle, type Style } from './terminal.ts';

/** Width of seed 004's trigger bars, in cells (one cell per 5 %). */
const BAR_CELLS = 20;

const count = (n: number): string => n.toLocaleString('en-US');

/** `[█████░░░…]`: one cell per 5 %, as seed 004 draws it, clamped to the bar. */
export function triggerBar(percent: number): string {
  const filled = Math.max(0, Math.min(BAR_CELLS, Math.floor(percent / 5)));
  return `[${'█'.repeat(filled)}${'░'.repeat(BAR_CELLS - filled)}]`;
}

/** `36k`, `200k`, `1.2M`, `950` — the window line's compact numbers. */
export function compactCount(n: number): string {
  if (n >= 1_000_000) return `${Number((n / 1_000_000).toFixed(1))}M`;
  if (n >= 1000) return `${Math.round(n / 1000)}k`;
  return String(n);
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** `2024-01-15 10:30` in local time (seed 004's `%Y-%m-%d %H:%M`). */
export function formatCreated(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

const ACCURACY_NOTE: Readonly<Record<SessionStatus['accuracy'], string>> = {
  exact: 'exact',
  calibrated: 'calibrated (estimate corrected by the provider-reported usage)',
  approximate: 'approximate (no tokenizer for this model; characters / 4)',
};

/** Why the counts are chatfold's own although the provider reports usage. */
export function underReportNote(reason: UnderReportReason): string {
  return reason === 'fresh-only'
    ? 'server reports fresh tokens only; counting locally'
    : 'server leaves the tool definitions out of its input tokens; counting locally';
}

/** What `/context` shows besides seed 004's status. */
export interface ContextViewOptions {
  /** The model as the window line names it (`gpt-4o`, `openai:gpt-4o`). */
  readonly model: string;
  /**
   * Colours, as seed 004 prints them (cyan headings, dim labels, a yellow ⚡ line); none by
   * default (`NO_COLOR`, not a terminal).
   */
  readonly style?: Style;
}

const PLAIN = createStyle(false);

/**
 * `/context` (CLI-1, TRG-6): seed 004's status exactly — last summary, created, both trigger
 * bars with counts and percents, the "⚡ Summarization will trigger on next message" line when
 * it will — then the window line (`gpt-4o • 36k/200k tokens (18 %)`) and which counts are exact.
 *
 * @returns The lines to print.
 */
export function contextView(status: SessionStatus, { model, style = PLAIN }: ContextViewOptions): string[] {
  const { cyan, dim, yellow } = style;
  const lines = ['', cyan('Context Status')];
  if (status.summary !== undefined) {
    lines.push(
      `  ${dim('Last summary:')} ${plural(status.summary.messagesSummarized, 'message')} → ${plural(status.summary.tokens, 'token')}`,
    );
    lines.push(`  ${dim('Created:')} ${formatCreated(status.summary.createdAt)}`);
  } else {
    lines.push(`  ${dim('No summary yet')}`);
  }
  lines.push('', cyan('Summarization Triggers (N messages OR K tokens)'));
  if (status.messagesTrigger !== undefined) {
    const percent = (status.messagesSinceCompaction / status.messagesTrigger) * 100;
    lines.push(
      `  Messages: ${count(status.messagesSinceCompaction)} / ${count(status.messagesTrigger)} (${Math.round(percent)}%)`,
    );
    lines.push(`           ${triggerBar(percent)}`);
  } else {
    lines.push(`  Messages: ${count(status.messagesSinceCompaction)} (no message trigger)`);
  }
  if (status.tokensTrigger !== undefined) {
    const percent = (status.tokens / status.tokensTrigger) * 100;
    lines.push(
      `  Tokens:   ${count(status.tokens)} / ${count(status.tokensTrigger)} (${Math.round(percent)}%)`,
    );
    lines.push(`           ${triggerBar(percent)}`);
  } else {
    lines.push(`  Tokens:   ${count(status.tokens)} (no token trigger)`);
  }
  if (status.willCompactNextTurn)
    lines.push('', `  ${yellow('⚡ Summarization will trigger on next message')}`);
  else if (status.autoCompactionResumesAt !== undefined)
    lines.push(
      '',
      `  ${yellow(`Waiting: the last compaction did not help; automatic compaction resumes at message ${count(status.autoCompactionResumesAt)} (a prompt that does not fit is still compacted)`)}`,
    );
  const windowPercent = status.window > 0 ? Math.round((status.tokens / status.window) * 100) : 0;
  lines.push(
    '',
    `${model} • ${compactCount(status.tokens)}/${compactCount(status.window)} tokens (${windowPercent} %)`,
    `  Message counts are exact; token counts are ${ACCURACY_NOTE[status.accuracy]}, tokenizer ${status.tokenizer}`,
    `  History: ${status.text}`,
  );
  if (status.underReport !== undefined) {
    lines.push(`  ${yellow(`Note: ${underReportNote(status.underReport.reason)}`)}`);
  }
  lines.push(...policyLines(status, style));
  return lines;
}

/**
 * The policy in force, so nothing that decides is hidden: its name, each window-share trigger
 * with its bar, the budget a prompt must fit (compacted whatever the triggers when it does
 * not), and the floor when it is holding a trigger back.
 */
export function policyLines(status: SessionStatus, style: Style = PLAIN): string[] {
  const { policy } = status;
  const lines = ['', style.cyan(`Policy: ${policy.name}`)];
  for (const condition of status.conditions) {
    if (condition.kind !== 'fraction') continue;
    const share = Math.round((condition.threshold / status.window) * 100);
    lines.push(
      `  Window:   ${count(condition.value)} / ${count(condition.threshold)} (${Math.round(condition.percent)}% of the ${share} % trigger)`,
      `           ${triggerBar(condition.percent)}`,
    );
  }
  if (policy.triggers.length === 0)
    lines.push('  No automatic triggers: only a prompt that does not fit is compacted');
  const budget = status.breakdown;
  lines.push(
    `  Budget:   ${count(status.budget)} tokens for messages (reserve ${count(budget.reservedOutput)}, margin ${count(budget.safetyMargin)}, tools ${count(budget.tools)}); a prompt over it is always compacted`,
  );
  if (policy.floor.tokens > 0 || policy.floor.messages > 0) {
    const floor = [
      ...(policy.floor.tokens > 0 ? [`${count(policy.floor.tokens)} tokens`] : []),
      ...(policy.floor.messages > 0 ? [plural(policy.floor.messages, 'message')] : []),
    ].join(' and ');
    lines.push(
      `  Floor:    no automatic compaction below ${floor}${status.heldByFloor ? ' — holding a trigger back now' : ''}`,
    );
  }
  return lines;
}
