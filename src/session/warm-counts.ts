import type { Message } from '../messages/types.ts';
import { yieldToEventLoop } from '../stores/shared/yield-to-event-loop.ts';
import type { TokenCounter } from '../tokens/types.ts';

/** Most messages one slice of {@link warmCounts} counts before the event loop runs again. */
export const WARM_SLICE_MESSAGES = 8;
/** Longest stretch, in milliseconds, one slice of {@link warmCounts} holds the event loop. */
export const WARM_SLICE_MS = 1;

/** Options of {@link warmCounts}; the defaults are {@link WARM_SLICE_MESSAGES} and {@link WARM_SLICE_MS}. */
export interface WarmCountsOptions {
  readonly sliceMessages?: number;
  readonly sliceMs?: number;
  /** A monotonic clock in milliseconds (tests); `performance.now` by default. */
  readonly now?: () => number;
  /** How to let the event loop run between slices (tests); {@link yieldToEventLoop} by default. */
  readonly yieldToEventLoop?: () => Promise<void>;
}

/**
 * Counts a resumed session's messages once, a slice at a time, and lets the event loop run
 * between slices (NFR-7.5): a server opening a long conversation keeps answering other
 * requests meanwhile. A slice ends after `sliceMessages` messages or `sliceMs` milliseconds,
 * whichever comes first, so a long history always yields, and a few very long messages do
 * not hold the thread for many milliseconds. The counts land in the counter's caches, so the
 * first `prepare()` or `status()` after it costs what a warm one does; the counts never
 * depend on the clock, only where the slices end does.
 *
 * When the counter has `count`, each slice ends by counting the history so far: the counter
 * remembers the last list it counted and extends it (TOK-6), so the first count of the whole
 * history afterwards (the gauge of `status()`) finds every message in that list instead of
 * looking up a thousand messages at one stretch; that count's answer does not change.
 *
 * @param counter the session's counter (its caches keep the counts).
 * @param messages the projection just loaded.
 * @returns how many times the event loop ran between slices.
 */
export async function warmCounts(
  counter: Pick<TokenCounter, 'countMessage'> & Partial<Pick<TokenCounter, 'count'>>,
  messages: readonly Message[],
  {
    sliceMessages = WARM_SLICE_MESSAGES,
    sliceMs = WARM_SLICE_MS,
    now = () => performance.now(),
    yieldToEventLoop: yieldNow = yieldToEventLoop,
  }: WarmCountsOptions = {},
): Promise<number> {
  let yields = 0;
  let inSlice = 0;
  let sliceStart = now();
  for (const [index, message] of messages.entries()) {
    counter.countMessage(message);
    inSlice++;
    const isLast = index === messages.length - 1;
    const endsSlice = !isLast && (inSlice >= sliceMessages || now() - sliceStart >= sliceMs);
    // Every message of the prefix is cached by now: this reads only this slice's messages.
    if (isLast || endsSlice) counter.count?.(messages.slice(0, index + 1));
    if (endsSlice) {
      await yieldNow();
      yields++;
      inSlice = 0;
      sliceStart = now();
    }
  }
  return yields;
}
