import { POLICIES } from './policy/presets.ts';
import type { CountAccuracy } from './tokens/types.ts';

/**
 * Every default chatfold applies, in one place (docs and tests cite these). Options left out
 * of `compact()`, `planCompaction()`, `createChatfold()` and the integrations take these
 * values; nothing else in the code repeats them.
 *
 * @example
 * compact(messages, { model: 'gpt-4o', policy: { ...DEFAULTS.policy, target: { fraction: 0.3 } } });
 */
export const DEFAULTS = Object.freeze({
  /**
   * The policy used when none is given: when to compact (65 % of the window), to what size
   * (45 % of it) and what to keep. Every field is in docs/policies.md; `POLICIES` has the others.
   */
  policy: POLICIES.default,
  /** Safety margin as a share of the window for `safetyMargin: 'by-accuracy'` (TRG-1, FR-5.2.1). */
  safetyMargin: Object.freeze({ exact: 0.05, calibrated: 0.08, approximate: 0.15 }) as Readonly<
    Record<CountAccuracy, number>
  >,
  /** Share of the budget one tool output may use before `clip` cuts it (STR-6). */
  clipShare: 0.25,
  /** Tool-result messages `mask` leaves verbatim, newest first (STR-2). */
  maskKeepRecent: 10,
  /** Timeout of one summarizer call, in milliseconds (RT-4). */
  summaryTimeoutMs: 60_000,
  /** After this many consecutive `beforeCompact` cancels the next compaction runs anyway (HK-1). */
  maxConsecutiveCancels: 3,
  /** Conversations a stateless integration remembers the last projection of (issue 19). */
  rememberedConversations: 16,
  /** Background compaction is queued when the prompt reaches this share of the budget. */
  backgroundThreshold: 0.6,
  /** After an overflow error that reports no limit, the next window is this share of the current one (RT-3). */
  overflowShrink: 0.85,
});

/** The type of {@link DEFAULTS}. */
export type Defaults = typeof DEFAULTS;
