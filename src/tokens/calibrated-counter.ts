import type { Message } from '../messages/types.ts';
import type { CountOptions, TokenCount, TokenCounter } from './types.ts';

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
  /**
   * Records what the provider reported for a prompt made of `prompt` (and `tools` with their
   * `toolChoice`, which the provider's input count includes).
   */
  recordUsage(prompt: readonly Message[], usage: ReportedUsage, options?: CountOptions): void;
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
  // The last reported prompt and what its messages (without tool definitions) cost.
  let last: { messages: readonly Message[]; messageTokens: number } | undefined;
  /**
   * Whether `messages` starts with the last reported prompt, unchanged. Ids alone are not
   * enough: compaction replaces a message by a stub, mask or clip with the same id (and a
   * `metadata.chatfold` record), and that prefix no longer costs what was reported.
   */
  const extendsLast = (messages: readonly Message[]): boolean => {
    if (last === undefined || last.messages.length > messages.length) return false;
    return last.messages.every((before, i) => {
      const now = messages[i];
      if (now === before) return true;
      return now?.id === before.id && now.metadata?.chatfold === before.metadata?.chatfold;
    });
  };
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
      const isExtension = extendsLast(messages);
      const at = ratio;
      const scale = (tokens: number): number => Math.ceil(tokens * at);
      let total: number;
      if (isExtension && last !== undefined) {
        let newer = 0;
        for (let i = last.messages.length; i < messages.length; i++)
          newer += scale(raw.perMessage[i] as number);
        total = last.messageTokens + newer + scale(raw.tools);
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
    recordUsage(prompt, usage, options = {}) {
      if (!(usage.inputTokens > 0)) return;
      // The provider's input count includes the tool definitions: compare like with like.
      const raw = base.count(prompt, options);
      const estimate = raw.total;
      if (estimate > 0) {
        const observed = Math.min(
          CALIBRATION_BOUNDS[1],
          Math.max(CALIBRATION_BOUNDS[0], usage.inputTokens / estimate),
        );
        ratio = last === undefined ? observed : ratio + CALIBRATION_SMOOTHING * (observed - ratio);
      }
      last = {
        messages: [...prompt],
        messageTokens: Math.max(0, usage.inputTokens - Math.ceil(raw.tools * ratio)),
      };
    },
  };
  const exact = base.countExact;
  if (exact !== undefined) {
    // A counter that can ask the provider stays one (TOK-4): compaction asks it near a trigger,
    // and every exact answer calibrates the local estimate like reported usage does (TOK-5).
    counter.countExact = async (messages, options) => {
      const result = await exact.call(base, messages, options);
      const { signal: _signal, ...prompt } = options ?? {};
      counter.recordUsage(messages, { inputTokens: result.total }, prompt);
      return result;
    };
  }
  return counter;
}
