import type { Message } from '../messages/types.ts';
import type { TokenCount, TokenCounter } from './types.ts';

/** Bounds of the learned estimate→truth ratio: a wild report cannot wreck the budget. */
export const CALIBRATION_BOUNDS = [0.5, 2] as const;
/** Weight of the newest report in the moving ratio. */
export const CALIBRATION_SMOOTHING = 0.3;

/** Provider-reported usage of one call. */
export interface ReportedUsage {
  readonly inputTokens: number;
  readonly outputTokens?: number;
}

/** A counter that learns from provider-reported usage (TOK-5). */
export interface CalibratedCounter extends TokenCounter {
  /** Records what the provider reported for a prompt made of `prompt`. */
  recordUsage(prompt: readonly Message[], usage: ReportedUsage): void;
  /** The current estimate→truth ratio (1 until the first report). */
  readonly ratio: number;
}

/**
 * Wraps a local counter so counts follow the provider's truth (TOK-5): the ratio between the
 * local estimate and reported `input_tokens` is learned per counter (smoothed, bounded), and
 * a prompt that extends the last reported one counts as "reported usage + estimate of the
 * newer messages", which cannot drift far.
 */
export function createCalibratedTokenCounter(base: TokenCounter): CalibratedCounter {
  let ratio = 1;
  let last: { ids: string[]; inputTokens: number } | undefined;
  const scaled = (tokens: number): number => Math.ceil(tokens * ratio);
  const counter: CalibratedCounter = {
    tokenizer: base.tokenizer,
    get accuracy() {
      return last === undefined ? base.accuracy : 'calibrated';
    },
    get ratio() {
      return ratio;
    },
    countText: (text) => scaled(base.countText(text)),
    countMessage: (message) => scaled(base.countMessage(message)),
    count(messages, options): TokenCount {
      const raw = base.count(messages, options);
      const isExtension =
        last !== undefined &&
        last.ids.length <= messages.length &&
        last.ids.every((id, i) => messages[i]?.id === id);
      const at = ratio;
      const scale = (tokens: number): number => Math.ceil(tokens * at);
      let total: number;
      if (isExtension && last !== undefined) {
        let newer = 0;
        for (let i = last.ids.length; i < messages.length; i++) newer += scale(raw.perMessage[i] as number);
        total = last.inputTokens + newer + (raw.tools > 0 && last.ids.length === 0 ? scale(raw.tools) : 0);
      } else {
        total = scale(raw.total);
      }
      let perMessage: readonly number[] | undefined;
      return {
        total,
        // On first read, like the base counter's (copying every count costs more than a recount).
        get perMessage() {
          perMessage ??= at === 1 ? raw.perMessage : raw.perMessage.map(scale);
          return perMessage;
        },
        tools: scale(raw.tools),
        overhead: raw.overhead,
        tokenizer: raw.tokenizer,
        accuracy: counter.accuracy,
      };
    },
    recordUsage(prompt, usage) {
      if (!(usage.inputTokens > 0)) return;
      const estimate = base.count(prompt).total;
      if (estimate > 0) {
        const observed = Math.min(
          CALIBRATION_BOUNDS[1],
          Math.max(CALIBRATION_BOUNDS[0], usage.inputTokens / estimate),
        );
        ratio = last === undefined ? observed : ratio + CALIBRATION_SMOOTHING * (observed - ratio);
      }
      last = { ids: prompt.map((message) => message.id), inputTokens: usage.inputTokens };
    },
  };
  const exact = base.countExact;
  if (exact !== undefined) {
    // A counter that can ask the provider stays one (TOK-4): compaction asks it near a trigger,
    // and every exact answer calibrates the local estimate like reported usage does (TOK-5).
    counter.countExact = async (messages, options) => {
      const result = await exact.call(base, messages, options);
      counter.recordUsage(messages, { inputTokens: result.total - result.tools });
      return result;
    };
  }
  return counter;
}
