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
