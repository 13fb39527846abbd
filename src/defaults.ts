import type { CountAccuracy } from './tokens/types.ts';

/**
 * Every default chatfold applies, in one place (docs and tests cite these). Options left out
 * of `compact()`, `planCompaction()`, `createChatfold()` and the integrations take these
 * values; nothing else in the code repeats them.
 *
 * @example
 * compact(messages, { model: 'gpt-4o', target: DEFAULTS.target / 2 });
 */
export const DEFAULTS = Object.freeze({
  /** Strategy (STR-7): clip → supersede → mask → summarize → truncate. */
  strategy: 'hybrid',
  /** Compact when the prompt reaches 80 % of the message budget (TRG-2). */
  triggers: Object.freeze([Object.freeze({ fraction: 0.8 })]) as readonly { readonly fraction: number }[],
  /** Never auto-compact a prompt smaller than this many tokens (TRG-3, seed 001 FR-5.4.1). */
  floor: 2000,
  /** Compact down to this share of the budget (TRG-4 hysteresis). */
  target: 0.5,
  /** Safety margin as a share of the window, by how trustworthy counts are (TRG-1, FR-5.2.1). */
  safetyMargin: Object.freeze({ exact: 0.05, calibrated: 0.08, approximate: 0.15 }) as Readonly<
    Record<CountAccuracy, number>
  >,
  /** Newest messages always kept verbatim (STR-8, seed 004's 6). */
  keepRecent: 6,
  /** The verbatim tail may use at most this share of the target (the newest unit always stays). */
  tailShareOfTarget: 0.5,
  /** Share of the budget one tool output may use before `clip` cuts it (STR-6). */
  clipShare: 0.25,
  /** Tool-result messages `mask` leaves verbatim, newest first (STR-2). */
  maskKeepRecent: 10,
  /** Newest tokens kept verbatim after a summary (SUM-1, seed 001). */
  retentionTokens: 1000,
  /** Newest messages kept verbatim after a summary (SUM-1, seed 004). */
  retentionMessages: 6,
  /** Timeout of one summarizer call, in milliseconds (RT-4). */
  summaryTimeoutMs: 60_000,
  /** After this many consecutive `beforeCompact` cancels the next compaction runs anyway (HK-1). */
  maxConsecutiveCancels: 3,
  /** First wait after the LLM summarizer failed; doubles per consecutive failure (RT-4). */
  summarizerRetryBaseMs: 30_000,
  /** Upper bound of the summarizer back-off (RT-4). */
  summarizerRetryMaxMs: 15 * 60_000,
  /** Background compaction (issue 13) is queued when the prompt reaches this share of the budget. */
  backgroundThreshold: 0.6,
  /** After an overflow error that reports no limit, the next window is this share of the current one (RT-3). */
  overflowShrink: 0.85,
});

/** The type of {@link DEFAULTS}. */
export type Defaults = typeof DEFAULTS;
