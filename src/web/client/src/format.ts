import type { WireCompactionResult } from '../../api-types.ts';

/** Thousands separators: 12,345. */
export const formatCount = (n: number): string => n.toLocaleString('en-US');

/** "12.3 %". */
export const formatPercent = (percent: number): string =>
  `${percent.toLocaleString('en-US', { maximumFractionDigits: 1 })} %`;

/** "3 messages", "1 message". */
export const plural = (n: number, word: string): string => `${formatCount(n)} ${word}${n === 1 ? '' : 's'}`;

/** A short local date and time. */
export const formatTime = (iso: string): string =>
  new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });

/** "1.2 s", "340 ms". */
export const formatDuration = (ms: number): string =>
  ms >= 1000
    ? `${(ms / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 })} s`
    : `${Math.round(ms)} ms`;

/** The notice text of an automatic compaction (messages added, the new token count). */
export function autoCompactionNotice(result: WireCompactionResult): string {
  // `~`: a history far above the window is counted newest first and its oldest part estimated.
  const before = `${result.tokensBeforeEstimated === true ? '~' : ''}${formatCount(result.tokensBefore)}`;
  return `History summarized automatically: ${plural(result.messagesAdded ?? result.messagesSummarized ?? 0, 'message')} added to the summary; context ${before} → ${formatCount(result.tokensAfter)} tokens.`;
}
