import { ChatfoldError } from '../errors/chatfold-error.ts';
import { createEngineCache } from '../messages/engine-cache.ts';
import type { Message } from '../messages/types.ts';
import { scaledBound } from './count-up-to.ts';
import type { CountOptions, TokenCount, TokenCounter } from './types.ts';

/**
 * How far below chatfold's own count a reported input count may be and still be believed:
 * tokenizers of open models differ from the local estimate by 10–30 % (seed 003's "tiktoken
 * may under/over-estimate by 10-30%"). A report further below is an under-report.
 */
export const UNDER_REPORT_TOLERANCE = 0.25;
/**
 * Bounds of the learned estimate→truth ratio: a wild report cannot wreck the budget. Reported
 * usage never pulls the ratio below `1 − UNDER_REPORT_TOLERANCE`; only an exact count can go
 * down to the lower bound.
 */
export const CALIBRATION_BOUNDS = [0.5, 2] as const;
/** Weight of the newest report in the moving ratio. */
export const CALIBRATION_SMOOTHING = 0.3;

/** Provider-reported usage of one call. */
export interface ReportedUsage {
  readonly inputTokens: number;
  readonly outputTokens?: number;
  /**
   * The number is an exact count of the whole prompt (a count endpoint, the size an overflow
   * error names), not a usage report: it is believed below the under-report tolerance too.
   */
  readonly isExact?: boolean;
}

/**
 * Why a server's reported input tokens fall short of chatfold's own count of the request:
 * - `fresh-only`: the server reuses its prompt cache and reports only the newly processed
 *   tokens (Ollama has shipped this);
 * - `tools-excluded`: the report matches the messages without the tool definitions.
 */
export type UnderReportReason = 'fresh-only' | 'tools-excluded';

/** A report chatfold did not believe: it stayed with its own count. */
export interface UnderReport {
  readonly reason: UnderReportReason;
  /** What the provider reported as input tokens. */
  readonly reported: number;
  /** chatfold's own count of the same request (messages + tools + system). */
  readonly estimate: number;
}

/** What {@link CalibratedCounter.recordUsage} made of one report. */
export type UsageVerdict =
  /** The report calibrated the counter (the ratio moved toward it). */
  | { readonly kind: 'calibrated'; readonly ratio: number }
  /** The report was below the tolerance and left the count alone; `isFirst` for the first one. */
  | ({ readonly kind: 'under-report'; readonly isFirst: boolean } & UnderReport)
  /** Nothing to learn from (no input tokens, an empty estimate). */
  | { readonly kind: 'ignored' };

/** A counter that learns from provider-reported usage (TOK-5). */
export interface CalibratedCounter extends TokenCounter {
  /**
   * Records what the provider reported for a prompt made of `prompt` (and `tools` with their
   * `toolChoice`, which the provider's input count includes). Reported usage is evidence, not
   * truth: an under-report beyond {@link UNDER_REPORT_TOLERANCE} never lowers the count.
   */
  recordUsage(prompt: readonly Message[], usage: ReportedUsage, options?: CountOptions): UsageVerdict;
  /** The current estimate→truth ratio (1 until the first report). */
  readonly ratio: number;
  /** The first under-report seen, if any: since then reports below the tolerance are set aside. */
  readonly underReport: UnderReport | undefined;
}

/** Share of the message-only estimate a tools-excluded report lands within. */
const TOOLS_EXCLUDED_MATCH = 0.15;

/**
 * Whether a report is believed: `undefined` when it is, else why it falls short. Pure, so the
 * bound is property-tested on its own.
 *
 * @param reported The provider's input tokens.
 * @param estimate chatfold's count of the same request, tool definitions included.
 * @param toolTokens The tool definitions' share of `estimate`.
 */
export function checkReportedUsage(
  reported: number,
  estimate: number,
  toolTokens = 0,
): UnderReportReason | undefined {
  if (!(estimate > 0) || reported >= estimate * (1 - UNDER_REPORT_TOLERANCE)) return undefined;
  const withoutTools = estimate - toolTokens;
  return toolTokens > 0 && Math.abs(reported - withoutTools) <= withoutTools * TOOLS_EXCLUDED_MATCH
    ? 'tools-excluded'
    : 'fresh-only';
}

/**
 * Wraps a local counter so counts follow the provider's truth (TOK-5): the ratio between the
 * local estimate and reported `input_tokens` is learned per counter (smoothed, bounded), and
 * a prompt that extends the last reported one counts as "reported usage + estimate of the
 * newer messages", which cannot drift far. A report below chatfold's own count by more than
 * {@link UNDER_REPORT_TOLERANCE} (prefix-cache servers that report fresh tokens only, servers
 * that leave the tools out) is set aside: the count used is never lower than the own estimate
 * by more than the tolerance, whatever the server says.
 */
export function createCalibratedTokenCounter(base: TokenCounter): CalibratedCounter {
  const methods = ['count', 'countMessage', 'countText'] as const;
  const missing = methods.filter(
    (name) => typeof (base as Partial<TokenCounter> | null | undefined)?.[name] !== 'function',
  );
  if (missing.length > 0) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `createCalibratedTokenCounter: expected a token counter (an object with ${methods.join(', ')}), received ${base === null ? 'null' : typeof base === 'object' ? `an object without ${missing.join(', ')}` : typeof base}`,
      { option: 'base' },
    );
  }
  let ratio = 1;
  let underReport: UnderReport | undefined;
  // The last believed prompt and what its messages (without tool definitions) cost.
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
    // Its own tables, not the base's: sessions that share a base counter never share a cache.
    cache: createEngineCache(),
    get accuracy() {
      return last === undefined ? base.accuracy : 'calibrated';
    },
    get ratio() {
      return ratio;
    },
    get underReport() {
      return underReport;
    },
    countText: (text) => scaled(base.countText(text)),
    countMessage: (message) => scaled(base.countMessage(message)),
    ...scaledBound(base, scaled),
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
      if (!(usage.inputTokens > 0)) return { kind: 'ignored' };
      // The provider's input count includes the tool definitions: compare like with like.
      const raw = base.count(prompt, options);
      const estimate = raw.total;
      if (!(estimate > 0)) return { kind: 'ignored' };
      if (usage.isExact !== true) {
        const reason = checkReportedUsage(usage.inputTokens, estimate, raw.tools);
        if (reason !== undefined) {
          const found: UnderReport = { reason, reported: usage.inputTokens, estimate };
          const isFirst = underReport === undefined;
          underReport ??= found;
          return { kind: 'under-report', isFirst, ...found };
        }
      }
      const observed = Math.min(
        CALIBRATION_BOUNDS[1],
        Math.max(CALIBRATION_BOUNDS[0], usage.inputTokens / estimate),
      );
      ratio = last === undefined ? observed : ratio + CALIBRATION_SMOOTHING * (observed - ratio);
      // The report split in proportion: the messages' share is what the next extension starts
      // from (the tools are counted again with whatever definitions the next call sends).
      const reportedTokens = Math.min(usage.inputTokens, Math.ceil(estimate * CALIBRATION_BOUNDS[1]));
      last = {
        messages: [...prompt],
        messageTokens: Math.ceil((reportedTokens * (estimate - raw.tools)) / estimate),
      };
      return { kind: 'calibrated', ratio };
    },
  };
  const exact = base.countExact;
  if (exact !== undefined) {
    // A counter that can ask the provider stays one (TOK-4): compaction asks it near a trigger,
    // and every exact answer calibrates the local estimate like reported usage does (TOK-5).
    counter.countExact = async (messages, options) => {
      const result = await exact.call(base, messages, options);
      const { signal: _signal, ...prompt } = options ?? {};
      counter.recordUsage(messages, { inputTokens: result.total, isExact: true }, prompt);
      return result;
    };
  }
  return counter;
}
